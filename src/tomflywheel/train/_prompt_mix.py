"""Which admitted samples GRPO prompts with (``train.grpo.prompts``).

GRPO reinforces whatever wins its groups. On a mix that is mostly controls, naming where the
thing really is wins; on false-belief targets alone, naming where it was first seen wins. A
*balanced* mix pays neither shortcut more than half the time: each target comes with a
control that asks a mind too and whose answer is where the thing really is (a true belief).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from tomflywheel._rng import stable_seed
from tomflywheel.audit import CONTROL_QUESTION_TYPES, sample_role
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample

PromptMix = Literal["all", "targets", "balanced"]


def grpo_prompt_samples(
    samples: Sequence[Sample], mix: PromptMix, *, seed: int, source: Path
) -> list[Sample]:
    """The samples GRPO prompts with, in file order.

    ``all``: every sample. ``targets``: the false-belief samples (``audit.sample_role``).
    ``balanced``: the targets and as many controls, chosen first among controls that ask a
    mind (a true belief), then among world questions (memory, reality), each in an order
    seeded from ``seed``.

    Raises:
        DataError: ``targets`` or ``balanced`` and no sample of ``source`` is a target.
    """
    if mix == "all":
        return list(samples)
    roles = [sample_role(sample) for sample in samples]
    target_ids = {s.id for s, role in zip(samples, roles, strict=True) if role == "target"}
    if not target_ids:
        raise DataError(source, None, None, f"grpo.prompts: {mix}, and no sample is a target")
    if mix == "targets":
        return [sample for sample in samples if sample.id in target_ids]
    controls = [s for s, role in zip(samples, roles, strict=True) if role == "control"]
    ranked = sorted(
        controls,
        key=lambda s: (_asks_the_world(s), stable_seed(f"grpo-balanced:{seed}", s.id)),
    )
    chosen = target_ids | {s.id for s in ranked[: len(target_ids)]}
    return [sample for sample in samples if sample.id in chosen]


def _asks_the_world(sample: Sample) -> bool:
    """Whether a control asks where things are or were (memory, reality), not a mind."""
    return str(sample.meta.get("question_type") or "") in CONTROL_QUESTION_TYPES
