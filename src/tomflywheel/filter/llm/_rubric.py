"""The rubric judge: clarity, solvability and whether theory of mind is needed, with thresholds."""

from __future__ import annotations

from tomflywheel.audit import is_control as sample_is_control
from tomflywheel.config import RubricSettings
from tomflywheel.filter.checks import Asker, CheckContext, Question, check, failed, passed, skipped
from tomflywheel.filter.records import Candidate, RubricScore
from tomflywheel.llm import StructureFailure
from tomflywheel.schema import CheckResult, Sample

_SYSTEM = (
    "You review training items for a theory-of-mind reasoning dataset. Judge the item as "
    "written: is it clear, does the given answer follow from the story alone, and does "
    "answering require reasoning about what someone believes, knows, wants or intends?"
)


def clip(text: str, limit: int) -> str:
    """Cut a long text for a prompt, saying so."""
    return text if len(text) <= limit else text[:limit] + " [...]"


def item_text(sample: Sample, story_chars: int) -> str:
    """The item as the judge and the rewriter see it: story, question, options, answer."""
    parts = [f"Story:\n{clip(sample.story, story_chars)}"]
    if sample.question.strip():
        parts.append(f"Question: {sample.question}")
    if sample.answer.wrong_answers:
        parts.append("Options: " + "; ".join(sample.options))
    parts.append("Correct answer: " + " / ".join(sample.answer.correct_answers))
    return "\n\n".join(parts)


def rubric_messages(sample: Sample, settings: RubricSettings) -> list[dict[str, str]]:
    """The rubric request for one sample."""
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": item_text(sample, settings.story_chars)},
    ]


def is_control(sample: Sample, settings: RubricSettings) -> bool:
    """Whether a sample is a control (exempt from needing theory of mind).

    The shared rule (:func:`tomflywheel.audit.is_control`), plus any question types the
    settings add to it.
    """
    if sample.meta.get("question_type") in settings.control_question_types:
        return True
    return sample_is_control(sample)


def rubric_summary(score: RubricScore) -> str:
    """Scores and issues in one line."""
    issues = "; ".join(score.issues) or "none"
    return (
        f"clarity {score.clarity}, solvability {score.solvability}, "
        f"needs ToM {'yes' if score.needs_tom else 'no'}; issues: {issues}"
    )


async def ask_rubric(work: Asker, candidate: Candidate, trial: int) -> object:
    """The rubric judge's scores for one candidate version (or the failure to get them)."""
    if candidate.sample is None:
        raise ValueError("only valid samples are scored")
    rubric = work.settings.rubric
    return await work.structure.ask(
        RubricScore, rubric_messages(candidate.sample, rubric), max_tokens=rubric.max_tokens
    )


RUBRIC = Question("rubric", ask_rubric)
"""Asked about every valid candidate that reaches the LLM phase."""


@check(
    "rubric",
    phase="llm",
    asks=RUBRIC,
    reasons={
        "rubric_unjudged": (False, "The rubric judge gave no valid reply."),
        "low_solvability": (True, "The judge doubts the answer follows from the story."),
        "low_clarity": (True, "The judge finds the item unclear or ambiguous."),
        "tom_not_needed": (True, "The question needs no theory of mind (and is no control)."),
    },
)
def rubric_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """The rubric judge's scores reach their thresholds and a non-control question needs ToM.

    Clarity and solvability (1-5) must reach the configured marks; a judge that fails to give
    a valid reply is a failure (``rubric_unjudged``), never a pass.
    """
    sample = candidate.sample
    if sample is None:
        return skipped("rubric", "not_applicable")
    if not context.use_llm:
        return skipped("rubric", "no_llm")
    score = context.evidence.rubric
    if score is None:
        return skipped("rubric", "not_applicable", "no rubric requested")
    if isinstance(score, StructureFailure):
        detail = f"structured call failed after {score.attempts} tries: {score.reason}"
        return failed("rubric", "rubric_unjudged", detail)
    marks = context.settings.rubric
    summary = rubric_summary(score)
    if score.solvability < marks.min_solvability:
        return failed("rubric", "low_solvability", summary)
    if score.clarity < marks.min_clarity:
        return failed("rubric", "low_clarity", summary)
    if marks.require_tom and not score.needs_tom and not is_control(sample, marks):
        return failed("rubric", "tom_not_needed", summary)
    return passed("rubric", summary)
