"""Label verification checks: symbolic re-derivation, naturalization, free-form agreement."""

from __future__ import annotations

from tomflywheel.filter._candidate import Candidate, has_trace
from tomflywheel.filter._context import CheckContext
from tomflywheel.filter._registry import check, failed, passed, skipped
from tomflywheel.filter._verify import verify_extraction, verify_trace_label
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


@check(
    "naturalization",
    phase="llm",
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


@check(
    "solve_agreement",
    phase="llm",
    reasons={
        "label_unconfirmed": (True, "The judge model's majority answer is not the label."),
        "label_unjudged": (False, "Every solving request failed."),
        "label_unverified": _UNVERIFIED,
    },
)
def solve_agreement_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """A free-form sample's label is what the judge model answers in most of k seeded trials."""
    sample = candidate.sample
    if sample is None or candidate.origin != "free_form":
        return skipped("solve_agreement", "not_applicable")
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
    detail = f"{agree}/{len(trials)} trials agree with the label (answers: {answers})"
    if agree * 2 > len(trials):
        return passed("solve_agreement", detail)
    return failed("solve_agreement", "label_unconfirmed", detail)
