"""A round's training data: its new admitted samples plus a replayed share of earlier ones.

Training on everything admitted so far (``replay: 1``) keeps earlier skills but lets old data
dominate later rounds; a smaller share focuses a round on what it just found, while some
earlier data keeps the model from forgetting it.
"""

from __future__ import annotations

from pathlib import Path

from tomflywheel._io import write_jsonl_atomic
from tomflywheel._rng import rng_for
from tomflywheel.artifacts import FeedbackOutputs, TrainingMix
from tomflywheel.schema import Sample, read_samples


def is_new(sample: Sample, plan_id: str | None, candidate_ids: set[str]) -> bool:
    """Whether an admitted sample came from this round (its plan, else its candidate id)."""
    lineage = sample.meta.get("lineage") or {}
    if plan_id is not None and isinstance(lineage, dict) and lineage.get("plan_id"):
        return lineage["plan_id"] == plan_id
    return sample.id in candidate_ids


def round_training_data(
    admitted: Path,
    out: Path,
    *,
    replay: float,
    key: str,
    feedback: FeedbackOutputs | None,
) -> tuple[Path, TrainingMix]:
    """The file to train on, and its make-up (``new``, ``replayed``, ``earlier``).

    ``replay`` 1 trains on the whole admitted file as it is; otherwise the round's new samples
    (by the round's feedback outputs: its plan id, else its candidates file) and a seeded share
    (``rng_for("replay", key)``) of the earlier ones, in file order, are written to ``out``.
    """
    plan_id = feedback.plan_id if feedback else None
    listed = feedback.candidates if feedback else None
    candidate_ids = {s.id for s in read_samples(listed)} if listed and listed.exists() else set()
    samples = list(read_samples(admitted))
    new = [is_new(s, plan_id, candidate_ids) for s in samples]
    earlier = [i for i, fresh in enumerate(new) if not fresh]
    if replay >= 1.0:
        return admitted, TrainingMix(new=sum(new), earlier=len(earlier), replayed=len(earlier))
    keep = set(rng_for("replay", key).sample(earlier, round(replay * len(earlier))))
    chosen = [s for i, s in enumerate(samples) if new[i] or i in keep]
    write_jsonl_atomic(out, chosen)
    return out, TrainingMix(new=sum(new), earlier=len(earlier), replayed=len(keep))
