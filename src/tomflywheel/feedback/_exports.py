"""Candidate exports: chat fine-tuning JSONL and ShareGPT-style JSON, from normalized samples."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tomflywheel._io import atomic_write_text, write_jsonl_atomic
from tomflywheel.asking import training_messages
from tomflywheel.config import EvalSettings
from tomflywheel.datasets import TaskSpec
from tomflywheel.schema import Sample

SHAREGPT_ROLES = {"system": "system", "user": "human", "assistant": "gpt"}

TaskedSample = tuple[Sample, TaskSpec]
"""A sample with its task, resolved once where the sample was made or read."""


def chat_messages(
    sample: Sample, task: TaskSpec, settings: EvalSettings, *, with_rationale: bool
) -> list[dict[str, str]]:
    """The sample as system/user/assistant messages, prompted as the evaluation prompts it."""
    rationale = sample.meta.get("rationale") if with_rationale else None
    return training_messages(
        sample, settings, task=task, rationale=str(rationale) if rationale else None
    )


def export_chat_jsonl(
    samples: Sequence[TaskedSample],
    out: Path,
    settings: EvalSettings,
    *,
    with_rationale: bool = False,
) -> int:
    """``{"id", "messages"}`` per line, written atomically; returns the count."""
    records = [
        {"id": s.id, "messages": chat_messages(s, task, settings, with_rationale=with_rationale)}
        for s, task in samples
    ]
    return write_jsonl_atomic(out, records)


def export_sharegpt(
    samples: Sequence[TaskedSample],
    out: Path,
    settings: EvalSettings,
    *,
    with_rationale: bool = False,
) -> int:
    """A ShareGPT-style JSON list (``conversations`` of ``from``/``value``); returns the count."""
    records = [
        {
            "id": s.id,
            "conversations": [
                {"from": SHAREGPT_ROLES[m["role"]], "value": m["content"]}
                for m in chat_messages(s, task, settings, with_rationale=with_rationale)
            ],
        }
        for s, task in samples
    ]
    atomic_write_text(out, json.dumps(records, ensure_ascii=False, indent=1) + "\n")
    return len(records)
