"""Experiment folders with known verdicts, their metrics computed as the metric stage does.

``tomi_synth``: generated ToMi-style stories (engine-readable, with controls and twins);
``social``: Social IQa-like items that ask no minds. ``true_location`` answers right exactly
where no false belief is asked, so it scores 50% belief-balanced; ``perfect`` everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import LogprobSettings
from tomflywheel.datasets import TaskSpec
from tomflywheel.evaluation import compute_metrics
from tomflywheel.schema import Answer, Judgment, MethodRef, Sample, Verdict
from tomflywheel.world.generators import generate

Rule = Callable[[Sample], bool]


def true_location(sample: Sample) -> bool:
    """Right where the answer is the real state: every item but the false beliefs."""
    return not sample.meta.get("tom")


def perfect(sample: Sample) -> bool:
    return True


def tomi_samples(n: int = 8) -> list[Sample]:
    return list(generate("tomi", n=n, seed=11, controls=True))


def social_samples() -> list[Sample]:
    return [
        Sample(
            id=f"social-{i}",
            story=f"Person {i} baked bread for the neighbours.",
            question="How would the neighbours feel?",
            answer=Answer(correct_answers=["grateful"], wrong_answers=["angry", "bored"]),
            meta={"dataset": "social"},
        )
        for i in range(6)
    ]


def write_dataset(root: Path, label: str, samples: list[Sample], rule: Rule) -> dict:
    """``samples.jsonl``, ``judgment.jsonl`` and ``metrics.json`` of one dataset; the metrics."""
    folder = root / label
    judgments = [
        Judgment(
            sample_id=s.id,
            verdict=Verdict.CORRECT if rule(s) else Verdict.INCORRECT,
            method=MethodRef(name="rules"),
        )
        for s in samples
    ]
    write_jsonl_atomic(folder / "samples.jsonl", samples)
    write_jsonl_atomic(folder / "judgment.jsonl", judgments)
    metrics = compute_metrics(
        label=label,
        task=TaskSpec(name=label, description="", prompt_kind="open", judge="rules"),
        samples=samples,
        predictions=[],
        judgments=judgments,
        logprob=LogprobSettings(),
    )
    (folder / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return metrics


def write_experiment(root: Path, rule: Rule, *, model: str = "m") -> dict[str, dict]:
    """An experiment of ``tomi_synth`` and ``social`` answered by ``rule``; metrics by label."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.yaml").write_text(
        f"server: external\nllm: {{model: {model}}}\n", encoding="utf-8"
    )
    return {
        "tomi_synth": write_dataset(root, "tomi_synth", tomi_samples(), rule),
        "social": write_dataset(root, "social", social_samples(), rule),
    }
