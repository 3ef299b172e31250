"""Label verification checks: symbolic re-derivation, naturalization, free-form agreement."""

from __future__ import annotations

from collections.abc import Iterable

from tomflywheel._rng import stable_seed
from tomflywheel.filter.checks._context import CheckContext
from tomflywheel.filter.checks._registry import Asker, Question, check, failed, passed, skipped
from tomflywheel.filter.checks._solve import solve_once
from tomflywheel.filter.checks._verify import (
    extraction_messages,
    verify_extraction,
    verify_trace_label,
)
from tomflywheel.filter.records import Candidate, Extraction, SolveTrial, engine_decided, has_trace
from tomflywheel.llm import StructureFailure
from tomflywheel.schema import CheckResult

_UNVERIFIED = (False, "No LLM to verify the label, and unverified labels are not admitted.")


@check(
    "symbolic_label",
    phase="record",
    reasons={
        "trace_invalid": (False, "The trace is missing, unreadable or does not replay."),
        "verifier_disagreement": (False, "The forward tracker and the belief graph disagree."),
        "label_mismatch": (False, "The re-derived answer is not the gold answer."),
    },
)
def symbolic_label_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """A sample with a trace (symbolic or naturalized) re-derives to its gold with both verifiers.

    The forward tracker and the temporal belief graph replay ``meta.trace`` independently; both
    must give the same answer, and it must be among the correct answers.
    """
    sample = candidate.sample
    if sample is None or candidate.origin == "free_form":
        return skipped("symbolic_label", "not_applicable")
    if not has_trace(sample):
        return failed("symbolic_label", "trace_invalid", f"{candidate.origin} sample without trace")
    outcome = verify_trace_label(sample.meta["trace"], sample.answer.correct_answers)
    if outcome.reason is None:
        return passed("symbolic_label", outcome.detail)
    return failed("symbolic_label", outcome.reason, outcome.detail)


def _unverified(name: str, context: CheckContext) -> CheckResult:
    if context.settings.label.admit_unverified:
        return skipped(name, "no_llm")
    return failed(name, "label_unverified", "no LLM to verify the label")


async def ask_extraction(work: Asker, candidate: Candidate, trial: int) -> object:
    """The events and question of a naturalized story, extracted back from its prose."""
    sample = candidate.sample
    if sample is None:
        raise ValueError("only valid samples are extracted")
    messages = extraction_messages(sample.story, sample.question, sample.meta["trace"])
    return await work.structure.ask(
        Extraction, messages, max_tokens=work.settings.label.extraction_max_tokens
    )


def is_naturalized(candidate: Candidate) -> bool:
    """A naturalized story whose source trace is there to compare with."""
    return (
        candidate.sample is not None
        and candidate.origin == "naturalized"
        and has_trace(candidate.sample)
    )


EXTRACTION = Question("extraction", ask_extraction)


@check(
    "naturalization",
    phase="llm",
    asks=EXTRACTION,
    applies=lambda candidate, context: is_naturalized(candidate),
    reasons={
        "extraction_failed": (True, "No events could be extracted from the prose."),
        "naturalization_drift": (True, "The prose's extracted events give another answer."),
        "label_unverified": _UNVERIFIED,
    },
)
def naturalization_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """A naturalized story's events, extracted back from its prose by an LLM, give its gold.

    The events (and what the question asks) are extracted with a structured call and replayed by
    both verifiers; an answer other than the gold means the rewrite drifted from its source.
    """
    sample = candidate.sample
    if sample is None or candidate.origin != "naturalized" or not has_trace(sample):
        return skipped("naturalization", "not_applicable")
    if not context.use_llm:
        return _unverified("naturalization", context)
    extraction = context.evidence.extraction
    if extraction is None:
        return skipped("naturalization", "not_applicable", "no extraction requested")
    if isinstance(extraction, StructureFailure):
        detail = f"structured call failed after {extraction.attempts} tries: {extraction.reason}"
        return failed("naturalization", "extraction_failed", detail)
    outcome = verify_extraction(extraction, sample.meta["trace"], sample.answer.correct_answers)
    if outcome.reason is None:
        return passed("naturalization", outcome.detail)
    reason = "extraction_failed" if outcome.reason == "trace_invalid" else outcome.reason
    return failed("naturalization", reason, outcome.detail)


def judge_decides(candidate: Candidate) -> bool:
    """A free-form sample whose label the engine cannot read: only the judge can verify it."""
    return candidate.origin == "free_form" and not engine_decided(candidate)


def calibration_choice(candidates: Iterable[Candidate], items: int) -> frozenset[str]:
    """Up to ``items`` engine-verified samples for the judge to solve as well, chosen by id.

    Empty when no label is left to the judge: then its accuracy matters to nothing. The choice is
    seeded per id (``judge-calibration``), so it does not depend on the input's order.
    """
    candidates = list(candidates)
    if items <= 0 or not any(c.sample is not None and judge_decides(c) for c in candidates):
        return frozenset()
    verified = {
        c.id
        for c in candidates
        if c.sample is not None and c.reading is not None and c.reading.status == "verified"
    }
    ranked = sorted(verified, key=lambda id_: (stable_seed("judge-calibration", id_), id_))
    return frozenset(ranked[:items])


async def ask_solve(work: Asker, candidate: Candidate, trial: int) -> object:
    """One of k seeded trials of the judge model at a free-form sample."""
    return await solve_once(
        work.client,
        candidate,
        trial,
        settings=work.settings.solve,
        eval_settings=work.eval_settings,
    )


SOLVES = Question(
    "solves",
    ask_solve,
    trials=lambda settings: settings.solve.k,
    many=True,
    on_request_error=lambda trial, reason: SolveTrial(trial, None, False, reason),
)


@check(
    "solve_agreement",
    phase="llm",
    asks=SOLVES,
    applies=lambda candidate, context: judge_decides(candidate),
    reasons={
        "label_unconfirmed": (True, "The judge model's majority answer is not the label."),
        "label_unjudged": (False, "Every solving request failed."),
        "label_unverified": _UNVERIFIED,
    },
)
def solve_agreement_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """A free-form sample's label is what the judge model answers in most of k seeded trials.

    Only for labels the world engine cannot read; the detail names the judge (a majority of the
    evaluated model itself verifies nothing: the summary counts those labels as unverified).
    """
    sample = candidate.sample
    if sample is None or candidate.origin != "free_form":
        return skipped("solve_agreement", "not_applicable")
    if engine_decided(candidate):
        return skipped("solve_agreement", "not_applicable", "the world engine read the label")
    if not context.use_llm:
        return _unverified("solve_agreement", context)
    trials = context.evidence.solves
    if trials is None:
        return skipped("solve_agreement", "not_applicable", "no trials requested")
    answered = [trial for trial in trials if trial.error is None]
    if not answered:
        errors = sorted({trial.error or "" for trial in trials})
        return failed("solve_agreement", "label_unjudged", "; ".join(errors))
    agree = sum(trial.agrees for trial in answered)
    answers = ", ".join(repr(trial.answer) for trial in answered)
    detail = (
        f"judge {context.judge_name()}: {agree}/{len(trials)} trials agree with the label "
        f"(answers: {answers})"
    )
    if agree * 2 > len(trials):
        return passed("solve_agreement", detail)
    return failed("solve_agreement", "label_unconfirmed", detail)


CALIBRATION_AGREES = "judge agrees"
CALIBRATION_DISAGREES = "judge disagrees"
"""How a ``judge_calibration`` result's detail starts; it always passes (see the check)."""


@check(
    "judge_calibration",
    phase="llm",
    asks=SOLVES,
    applies=lambda candidate, context: candidate.id in context.calibration_ids,
    reasons={},
)
def judge_calibration_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """The judge also solves a sample whose label the engine verified: does its majority agree?

    It measures the judge, not the sample (the engine verified its label), so it always passes;
    the detail says whether the judge agreed, and the agreements over a run are the judge's
    calibration (``judge_calibration``).
    """
    if candidate.id not in context.calibration_ids or not context.use_llm:
        return skipped("judge_calibration", "not_applicable")
    trials = context.evidence.solves
    if trials is None:
        return skipped("judge_calibration", "not_applicable", "no trials requested")
    answered = [trial for trial in trials if trial.error is None]
    if not answered:
        errors = "; ".join(sorted({trial.error or "" for trial in trials}))
        return passed("judge_calibration", f"judge unanswered: {errors}")
    agree = sum(trial.agrees for trial in answered)
    verdict = CALIBRATION_AGREES if agree * 2 > len(trials) else CALIBRATION_DISAGREES
    return passed(
        "judge_calibration",
        f"{verdict}: {context.judge_name()}, {agree}/{len(trials)} trials give the label the "
        "engine verified",
    )
