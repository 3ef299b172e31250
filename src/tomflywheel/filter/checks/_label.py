"""Label verification checks: symbolic re-derivation, naturalization, free-form agreement."""

from __future__ import annotations

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
    applies=is_naturalized,
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
    applies=lambda candidate: candidate.origin == "free_form" and not engine_decided(candidate),
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
