"""Candidate exports: chat fine-tuning JSONL and ShareGPT-style JSON, from normalized samples."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tomflywheel._io import atomic_write_text, write_jsonl_atomic
from tomflywheel.config import EvalSettings
from tomflywheel.datasets import task_for_sample
from tomflywheel.evaluation import training_messages
from tomflywheel.schema import Sample

SHAREGPT_ROLES = {"system": "system", "user": "human", "assistant": "gpt"}


def chat_messages(
    sample: Sample, settings: EvalSettings, *, with_rationale: bool
) -> list[dict[str, str]]:
    """The sample as system/user/assistant messages, prompted as the evaluation prompts it."""
    rationale = sample.meta.get("rationale") if with_rationale else None
    task = task_for_sample(sample)
    return training_messages(
        sample,
        settings,
        completion=task.prompt_kind == "completion",
        rationale=str(rationale) if rationale else None,
        instructions=task.instructions,
    )


def export_chat_jsonl(
    samples: Sequence[Sample], out: Path, settings: EvalSettings, *, with_rationale: bool = False
) -> int:
    """``{"id", "messages"}`` per line, written atomically; returns the count."""
    records = [
        {"id": s.id, "messages": chat_messages(s, settings, with_rationale=with_rationale)}
        for s in samples
    ]
    return write_jsonl_atomic(out, records)


def export_sharegpt(
    samples: Sequence[Sample], out: Path, settings: EvalSettings, *, with_rationale: bool = False
) -> int:
    """A ShareGPT-style JSON list (``conversations`` of ``from``/``value``); returns the count."""
    records = [
        {
            "id": s.id,
            "conversations": [
                {"from": SHAREGPT_ROLES[m["role"]], "value": m["content"]}
                for m in chat_messages(s, settings, with_rationale=with_rationale)
            ],
        }
        for s in samples
    ]
    atomic_write_text(out, json.dumps(records, ensure_ascii=False, indent=1) + "\n")
    return len(records)
