"""The synthesis plan: which generators, with which parameters, how many samples per weakness.

A weakness is a (dataset, question type, order, error category) cell of the error profile. The
plan only allocates the budget; the world's generator registry says which generator serves the
failing task (ToMi-style for ToMi, Hi-ToM-style for Hi-ToM, ...; stories the engine cannot
parse map to the skill their error category names) and with which parameters each generator
aims at the error (false-belief stories for reality bias, neighbouring orders for order
confusion, more agents for perspective confusion, more distractors for distractor errors, claims
for trust errors). Matched controls are always on unless disabled: every false-belief story
comes with its true-belief twin, Kosinski tasks with their control variants, so the new data
teaches the skill and not a shortcut ("the answer is never where the object is").
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tomflywheel._rng import stable_seed
from tomflywheel.config import FeedbackSettings
from tomflywheel.schema import Diagnosis, ErrorCategory
from tomflywheel.world import generator_for


class PlanItem(BaseModel):
    """Samples to synthesize for one weakness."""

    model_config = ConfigDict(extra="forbid")

    weakness: str
    """``dataset · question type · order · category``."""
    dataset: str
    task: str
    question_type: str | None
    order: int | None
    category: ErrorCategory
    n_diagnoses: int
    """Bad cases behind this weakness."""
    count: int
    """Samples wanted (controls included)."""
    generator: str
    params: dict[str, Any]
    """Generator parameters (seed and story count are set at synthesis)."""
    seed: int
    bad_case_ids: list[str] = Field(default_factory=list)
    why: str
    """The parameter choice in words."""


class SynthesisPlan(BaseModel):
    """The whole plan; ``plan_id`` is a hash of its content."""

    model_config = ConfigDict(extra="forbid")

    plan_id: str
    seed: int
    budget: int
    controls: bool
    items: list[PlanItem]


def _allocate(weights: Sequence[int], budget: int, minimum: int) -> list[int]:
    """Split ``budget`` in proportion to ``weights``, at least ``minimum`` each while it lasts.

    The largest remainders get the leftovers (ties go to the earlier weakness).
    """
    counts = [0] * len(weights)
    order = sorted(range(len(weights)), key=lambda i: (-weights[i], i))
    remaining = budget
    for i in order:
        give = min(minimum, remaining)
        counts[i] += give
        remaining -= give
    total = sum(weights)
    if remaining <= 0 or total == 0:
        return counts
    shares = [remaining * w / total for w in weights]
    floors = [int(share) for share in shares]
    counts = [c + f for c, f in zip(counts, floors, strict=True)]
    leftover = remaining - sum(floors)
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(shares[i] - floors[i]), i))
    for i in by_remainder[:leftover]:
        counts[i] += 1
    return counts


def build_plan(
    diagnoses: Sequence[Diagnosis],
    tasks: Mapping[str, str],
    settings: FeedbackSettings,
    *,
    case_ids: Mapping[tuple[str, str, int], str] | None = None,
) -> SynthesisPlan:
    """A plan from diagnoses; the same diagnoses and settings give the same plan.

    Args:
        diagnoses: The diagnosed bad cases (undiagnosed ones are skipped).
        tasks: Task name of each dataset label (``tomi_test`` -> ``tomi``).
        settings: Budget, minimum per weakness, controls, seed, diversity.
        case_ids: Readable bad-case ids for lineage, by (dataset, sample id, trial).
    """
    cells: dict[tuple[str, str, str, str], list[Diagnosis]] = defaultdict(list)
    for d in diagnoses:
        if d.category is None:
            continue
        # The order already says what a ToMi or Hi-ToM question type says for synthesis; tgtom's
        # twelve types ask different things, so they stay apart.
        keep_type = tasks.get(d.dataset, d.dataset).startswith("tgtom") or d.order is None
        key = (
            d.dataset,
            (d.question_type or "") if keep_type else "",
            "" if d.order is None else str(d.order),
            d.category.value,
        )
        cells[key].append(d)
    keys = sorted(cells)
    counts = _allocate([len(cells[k]) for k in keys], settings.budget, settings.min_per_weakness)
    items = []
    for key, count in zip(keys, counts, strict=True):
        if count <= 0:
            continue
        dataset, question_type, order, category_name = key
        category = ErrorCategory(category_name)
        task = tasks.get(dataset, dataset)
        generator = generator_for(task, category)
        params, why = generator.aim(category, question_type or None, int(order) if order else None)
        params = {**params, "controls": settings.controls, "diversity": settings.diversity}
        members = cells[key]
        ids = [
            (case_ids or {}).get((d.dataset, d.sample_id, d.trial), f"{d.dataset}/{d.sample_id}")
            for d in members
        ]
        weakness = " · ".join(
            part
            for part in (dataset, question_type, order and f"order {order}", category_name)
            if part
        )
        items.append(
            PlanItem(
                weakness=weakness,
                dataset=dataset,
                task=task,
                question_type=question_type or None,
                order=int(order) if order else None,
                category=category,
                n_diagnoses=len(members),
                count=count,
                generator=generator.name,
                params=params,
                seed=stable_seed("synthesis", f"{settings.seed}:{weakness}") % 2**31,
                bad_case_ids=ids[:50],
                why=why,
            )
        )
    body = [item.model_dump(mode="json") for item in items]
    digest = hashlib.sha256(
        json.dumps([settings.seed, settings.budget, body], sort_keys=True).encode()
    ).hexdigest()[:12]
    return SynthesisPlan(
        plan_id=digest,
        seed=settings.seed,
        budget=settings.budget,
        controls=settings.controls,
        items=items,
    )
