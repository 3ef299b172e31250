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

Targets first: failures on false-belief questions (targets) weigh ``target_weight`` times a
control failure (memory, reality, true belief), and controls get at most
``max_controls_per_target`` samples per target sample. With ``complete_families`` every story
yields its whole question family, so each false belief has true-belief questions beside it.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tomflywheel._io import validation_error_field
from tomflywheel._rng import stable_seed
from tomflywheel.config import FeedbackSettings
from tomflywheel.errors import ConfigError
from tomflywheel.feedback._profile import diagnoser_calibration
from tomflywheel.feedback._roles import Role, diagnosis_role
from tomflywheel.feedback._surface import Surface
from tomflywheel.schema import Diagnosis, ErrorCategory
from tomflywheel.world import GENERATORS, generator_for


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
    role: Literal["target", "control"] = "target"
    """``target``: failures on beliefs that differ from reality; ``control``: memory, reality
    or true-belief failures."""
    count: int
    """Samples wanted (controls included); whole stories are taken, so a few more may come."""
    generator: str
    params: dict[str, Any]
    """Generator parameters (seed and story count are set at synthesis)."""
    seed: int
    bad_case_ids: list[str] = Field(default_factory=list)
    why: str
    """The parameter choice in words."""
    surface: Surface | None = None
    """The surface of the failing set, which the synthesized samples take (``None``: the
    generator's own)."""


class SynthesisPlan(BaseModel):
    """The whole plan; ``plan_id`` is a hash of its content."""

    model_config = ConfigDict(extra="forbid")

    plan_id: str
    seed: int
    budget: int
    controls: bool
    items: list[PlanItem]
    self_diagnoses_left_out: int = 0
    """LLM diagnoses the evaluated model made of its own answers, not planned from
    (``feedback.plan_self_diagnoses`` off)."""
    uncalibrated_left_out: int = 0
    """Other LLM diagnoses not planned from: their diagnoser failed calibration or had too few
    cross-checks (``feedback.plan_uncalibrated_diagnoses`` off)."""
    diagnoser_calibration: dict[str, Any] | None = None
    """The LLM diagnoser's agreement with the engine on cross-checked cases (``None``: no LLM
    diagnosis to plan from)."""


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


def _role_budgets(
    failures: Mapping[Role, int], budget: int, settings: FeedbackSettings
) -> dict[Role, int]:
    """Budget for targets and for controls: weighted by failures, controls capped."""
    targets, controls = failures.get("target", 0), failures.get("control", 0)
    if not targets or not controls:
        return {"target": budget if targets else 0, "control": budget if controls else 0}
    weighted = settings.target_weight * targets
    control = round(budget * controls / (controls + weighted)) if weighted + controls else 0
    ratio = settings.max_controls_per_target
    control = min(control, int(budget * ratio / (1 + ratio)))
    return {"target": budget - control, "control": control}


def check_generator_params(overrides: Mapping[str, Mapping[str, Any]]) -> None:
    """Refuse ``feedback.generator_params`` naming an unknown generator or parameter.

    Raises:
        ConfigError: Which generator or parameter, and why.
    """
    for name, params in overrides.items():
        if name not in GENERATORS.names():
            known = ", ".join(GENERATORS.names())
            raise ConfigError(f"feedback.generator_params: no generator {name!r} (known: {known})")
        try:
            GENERATORS.get(name).params.model_validate(params)
        except ValidationError as err:
            field, reason = validation_error_field(err)
            raise ConfigError(f"feedback.generator_params.{name}.{field}: {reason}") from err


Cell = tuple[str, str, str, str, Role]
"""A weakness: dataset, question type (kept for tgtom), order, error category, role."""


def _cell(
    d: Diagnosis,
    tasks: Mapping[str, str],
    roles: Mapping[tuple[str, str, int], Role] | None,
) -> Cell:
    """The weakness a diagnosis belongs to."""
    # The order already says what a ToMi or Hi-ToM question type says for synthesis; tgtom's
    # twelve types ask different things, so they stay apart.
    keep_type = tasks.get(d.dataset, d.dataset).startswith("tgtom") or d.order is None
    category = d.category.value if d.category else ""
    return (
        d.dataset,
        (d.question_type or "") if keep_type else "",
        "" if d.order is None else str(d.order),
        category,
        (roles or {}).get((d.dataset, d.sample_id, d.trial)) or diagnosis_role(d),
    )


def _cells(
    diagnoses: Sequence[Diagnosis],
    tasks: Mapping[str, str],
    settings: FeedbackSettings,
    roles: Mapping[tuple[str, str, int], Role] | None,
) -> tuple[dict[Cell, list[Diagnosis]], int, int, dict[str, Any] | None]:
    """The diagnoses planned from, by weakness; and what was left out, and why.

    Returns:
        The cells, the evaluated model's self-diagnoses left out, the uncalibrated LLM
        diagnoses left out, and the LLM diagnoser's calibration (``None`` without one).
    """
    cells: dict[Cell, list[Diagnosis]] = defaultdict(list)
    left_out = uncalibrated = 0
    from_llm = [d for d in diagnoses if d.method == "llm" and d.category is not None]
    calibration = (
        diagnoser_calibration(
            diagnoses,
            min_agreement=settings.min_diagnoser_agreement,
            min_cases=settings.min_calibration_cases,
        )
        if from_llm
        else None
    )
    trusted = calibration is None or calibration["status"] == "passed"
    for d in diagnoses:
        if d.category is None:
            continue
        if d.by_evaluated_model and not settings.plan_self_diagnoses:
            left_out += 1
            continue
        if d.method == "llm" and not trusted and not settings.plan_uncalibrated_diagnoses:
            uncalibrated += 1
            continue
        cells[_cell(d, tasks, roles)].append(d)
    return cells, left_out, uncalibrated, calibration


def _counts(cells: Mapping[Cell, list[Diagnosis]], settings: FeedbackSettings) -> dict[Cell, int]:
    """Samples per weakness: the budget split between roles, then by failures within each."""
    keys = sorted(cells)
    failures: dict[Role, int] = defaultdict(int)
    for key in keys:
        failures[key[4]] += len(cells[key])
    budgets = _role_budgets(failures, settings.budget, settings)
    counts: dict[Cell, int] = {}
    for role, budget in budgets.items():
        group = [key for key in keys if key[4] == role]
        shares = _allocate([len(cells[k]) for k in group], budget, settings.min_per_weakness)
        counts.update(zip(group, shares, strict=True))
    return counts


def _aim(
    key: Cell, task: str, settings: FeedbackSettings, surface: Surface | None
) -> tuple[str, dict[str, Any], str]:
    """The generator a weakness asks for, its parameters, and the choice in words."""
    _, question_type, order, category_name, _ = key
    category = ErrorCategory(category_name)
    generator = generator_for(task, category)
    params, why = generator.aim(category, question_type or None, int(order) if order else None)
    if settings.complete_families and any(name in params for name in generator.family):
        params = {k: v for k, v in params.items() if k not in generator.family}
        why += ", every story with its complete question family"
    params = {**params, "controls": settings.controls, "diversity": settings.diversity}
    if generator.name in settings.generator_params:
        params |= settings.generator_params[generator.name]
        why += f", with the configured {sorted(settings.generator_params[generator.name])}"
    imitated = any(task.startswith(prefix) for prefix in generator.serves)
    if settings.answer_profile == "benchmark" and generator.benchmark_profile and imitated:
        params["profile"] = generator.benchmark_profile
        why += f", answers by the benchmark's convention (profile {params['profile']})"
    if surface is not None:
        why += f", in its set's surface ({_surface_words(surface)})"
    return generator.name, params, why


def _plan_item(
    key: Cell,
    members: list[Diagnosis],
    count: int,
    tasks: Mapping[str, str],
    settings: FeedbackSettings,
    *,
    case_ids: Mapping[tuple[str, str, int], str] | None,
    surfaces: Mapping[str, Surface] | None,
) -> PlanItem:
    """One weakness's plan item: the generator aimed at it, its count, seed and lineage."""
    dataset, question_type, order, category_name, role = key
    task = tasks.get(dataset, dataset)
    surface = (surfaces or {}).get(dataset) if settings.match_surface else None
    generator, params, why = _aim(key, task, settings, surface)
    ids = [
        (case_ids or {}).get((d.dataset, d.sample_id, d.trial), f"{d.dataset}/{d.sample_id}")
        for d in members
    ]
    weakness = " · ".join(
        part
        for part in (
            dataset,
            question_type,
            order and f"order {order}",
            category_name,
            role == "control" and "control",
        )
        if part
    )
    return PlanItem(
        weakness=weakness,
        dataset=dataset,
        task=task,
        question_type=question_type or None,
        order=int(order) if order else None,
        category=ErrorCategory(category_name),
        role=role,
        n_diagnoses=len(members),
        count=count,
        generator=generator,
        params=params,
        seed=stable_seed("synthesis", f"{settings.seed}:{weakness}") % 2**31,
        bad_case_ids=ids[:50],
        why=why,
        surface=surface,
    )


def build_plan(
    diagnoses: Sequence[Diagnosis],
    tasks: Mapping[str, str],
    settings: FeedbackSettings,
    *,
    case_ids: Mapping[tuple[str, str, int], str] | None = None,
    roles: Mapping[tuple[str, str, int], Role] | None = None,
    surfaces: Mapping[str, Surface] | None = None,
) -> SynthesisPlan:
    """A plan from diagnoses; the same diagnoses and settings give the same plan.

    Args:
        diagnoses: The diagnosed bad cases (undiagnosed ones are skipped, and so are the
            evaluated model's diagnoses of itself unless ``settings.plan_self_diagnoses``, and
            LLM diagnoses whose diagnoser is not calibrated against the engine's cross-checked
            diagnoses unless ``settings.plan_uncalibrated_diagnoses``).
        tasks: Task name of each dataset label (``tomi_test`` -> ``tomi``).
        settings: Budget, minimum per weakness, controls, seed, diversity.
        case_ids: Readable bad-case ids for lineage, by (dataset, sample id, trial).
        roles: Target or control per bad case (by the engine's reading of its story); cases
            missing here get the role their question type and error imply.
        surfaces: The surface of each dataset label's evaluated samples; with
            ``settings.match_surface`` a weakness's samples take their set's.

    Raises:
        ConfigError: ``settings.generator_params`` names an unknown generator or parameter.
    """
    check_generator_params(settings.generator_params)
    cells, left_out, uncalibrated, calibration = _cells(diagnoses, tasks, settings, roles)
    counts = _counts(cells, settings)
    items = [
        _plan_item(
            key, cells[key], counts[key], tasks, settings, case_ids=case_ids, surfaces=surfaces
        )
        for key in sorted(cells)
        if counts[key] > 0
    ]
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
        self_diagnoses_left_out=left_out,
        uncalibrated_left_out=uncalibrated,
        diagnoser_calibration=calibration,
    )


def _surface_words(surface: Surface) -> str:
    numbers = "numbered lines" if surface.numbered else "no line numbers"
    return f"{numbers}, answered {surface.answer_format.replace('_', ' ')}"
