"""The diagnose stage: symbolic diagnosis where the engine reads the story, the LLM elsewhere."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tomflywheel._io import JsonlAppender, OrderedAppender, read_jsonl
from tomflywheel._rng import rng_for
from tomflywheel.config import FeedbackSettings
from tomflywheel.feedback._llm_diagnosis import diagnose_with_llm, llm_record
from tomflywheel.feedback._mining import BadCase
from tomflywheel.feedback._symbolic import symbolic_diagnosis
from tomflywheel.llm import StructureClient, StructureFailure, run_batch
from tomflywheel.schema import Diagnosis


@dataclass(frozen=True)
class DiagnosisPlan:
    """What one case needs: its symbolic diagnosis (if any) and whether the LLM is asked."""

    case: BadCase
    symbolic: Diagnosis | None
    ask_llm: bool


def read_diagnoses(path: Path) -> list[Diagnosis]:
    """Diagnoses written so far (a partial last line from a crash is ignored)."""
    return list(read_jsonl(path, Diagnosis, tolerate_partial_tail=True)) if path.exists() else []


def plan_diagnoses(
    cases: Sequence[BadCase], settings: FeedbackSettings, *, llm_available: bool
) -> list[DiagnosisPlan]:
    """Decide per case, deterministically, whether the LLM diagnoses or cross-checks it.

    Unparseable stories go to the LLM; a seeded share of parsed ones is cross-checked; the
    LLM budget (``max_llm_diagnoses``) is spent in case order.
    """
    budget = settings.max_llm_diagnoses
    plans = []
    for case in cases:
        symbolic = symbolic_diagnosis(case)
        wanted = (
            settings.llm_diagnosis
            and llm_available
            and (
                symbolic is None
                or (
                    symbolic.category is not None
                    and rng_for("cross-check", case.case_id).random() < settings.cross_check_rate
                )
            )
        )
        if wanted and budget is not None:
            wanted = budget > 0
            budget -= int(wanted)
        plans.append(DiagnosisPlan(case, symbolic, wanted))
    return plans


async def _run_one(
    plan: DiagnosisPlan, structure: StructureClient | None, evaluated_model: str | None
) -> Diagnosis:
    case, symbolic = plan.case, plan.symbolic
    if not plan.ask_llm or structure is None:
        if symbolic is not None:
            return symbolic
        return llm_record(
            case, StructureFailure("no parser for this story and no LLM diagnosis", None, 0)
        )
    result = await diagnose_with_llm(structure, case)
    if symbolic is None:
        diagnoser = structure.content.model
        # Not knowing the evaluated model, assume the worst: a self-diagnosis stays out of plans.
        by_evaluated = evaluated_model is None or evaluated_model == diagnoser
        return llm_record(case, result, diagnoser=diagnoser, by_evaluated_model=by_evaluated)
    cross = None if isinstance(result, StructureFailure) else result.category
    return symbolic.model_copy(update={"cross_check": cross})


async def run_diagnoses(
    plans: Sequence[DiagnosisPlan],
    out_path: Path,
    *,
    structure: StructureClient | None,
    concurrency: int,
    on_progress: Callable[[int, int], None] | None = None,
    evaluated_model: str | None = None,
) -> int:
    """Diagnose the planned cases, appending in case order; returns how many were written.

    An LLM diagnosis names its model and whether that is ``evaluated_model`` (``None``:
    unknown, taken as the evaluated model).
    """
    with JsonlAppender(out_path) as appender:
        ordered = OrderedAppender(appender)

        async def one(plan: DiagnosisPlan) -> Diagnosis:
            return await _run_one(plan, structure, evaluated_model)

        await run_batch(
            plans,
            one,
            concurrency=concurrency,
            on_result=lambda index, _plan, record: ordered.put(index, record),  # type: ignore[arg-type]
            on_progress=on_progress,
        )
    return ordered.written
