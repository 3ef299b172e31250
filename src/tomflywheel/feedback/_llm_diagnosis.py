"""LLM diagnosis: a structured error category, evidence span and explanation for one bad case."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tomflywheel.feedback._mining import BadCase
from tomflywheel.llm import StructureClient, StructureFailure
from tomflywheel.schema import Diagnosis, ErrorCategory

DIAGNOSIS_SYSTEM = (
    "You analyse why a language model answered a theory-of-mind question wrongly. Pick the one "
    "error category that explains the wrong answer best, quote a short span of evidence from "
    "the story or the answer, and explain in one sentence. Reply in JSON."
)

CATEGORY_LINES = {
    ErrorCategory.REALITY_BIAS: "answered the true current state, ignoring a false belief",
    ErrorCategory.STALE_MEMORY: "answered an earlier state that no one believes now",
    ErrorCategory.ORDER_CONFUSION: "answered a belief of the wrong depth (first vs second order)",
    ErrorCategory.PERSPECTIVE_CONFUSION: "answered another character's belief",
    ErrorCategory.DISTRACTOR: "answered something from an irrelevant sentence",
    ErrorCategory.HALLUCINATION: "answered something not in the story",
    ErrorCategory.FORMAT: "no usable answer (empty, cut off, wrong format)",
    ErrorCategory.UNSUPPORTED: "named something in the story that nothing supports",
    ErrorCategory.KNOWLEDGE_ACCESS: "misjudged who saw, heard or knows what",
    ErrorCategory.INTENT_OR_EMOTION: "misread a desire, intention or emotion",
    ErrorCategory.COMMONSENSE: "a factual or commonsense slip",
    ErrorCategory.OTHER: "none of the above",
}


class LLMDiagnosis(BaseModel):
    """The diagnosing model's structured answer."""

    category: ErrorCategory = Field(description="the error category that fits best")
    evidence: str = Field(max_length=160, description="a short quote from the story or answer")
    explanation: str = Field(max_length=240, description="one sentence")


def diagnosis_messages(case: BadCase, *, story_chars: int = 3000) -> list[dict[str, str]]:
    """The prompt for one bad case."""
    sample, prediction = case.sample, case.prediction
    story = sample.story if len(sample.story) <= story_chars else sample.story[:story_chars] + " …"
    categories = "\n".join(f"- {c.value}: {text}" for c, text in CATEGORY_LINES.items())
    options = ""
    if prediction.options:
        options = "\nOptions: " + "; ".join(
            f"{chr(65 + i)}. {o}" for i, o in enumerate(prediction.options)
        )
    output = prediction.raw_output
    if output is None and case.judgment.answer:
        output = case.judgment.answer
    user = (
        f"Story:\n{story}\n\nQuestion: {sample.question}{options}\n"
        f"Correct answer: {' | '.join(sample.answer.correct_answers)}\n"
        f"Model's answer: {(output or '').strip() or '(empty)'}\n\nCategories:\n{categories}"
    )
    return [{"role": "system", "content": DIAGNOSIS_SYSTEM}, {"role": "user", "content": user}]


async def diagnose_with_llm(
    structure: StructureClient, case: BadCase, *, max_tokens: int = 160
) -> LLMDiagnosis | StructureFailure:
    """One structured diagnosis (or the failure to get one)."""
    return await structure.ask(LLMDiagnosis, diagnosis_messages(case), max_tokens=max_tokens)


def llm_record(
    case: BadCase,
    result: LLMDiagnosis | StructureFailure,
    *,
    diagnoser: str | None = None,
    by_evaluated_model: bool = False,
) -> Diagnosis:
    """A ``Diagnosis`` record from an LLM result; a failure keeps its reason, no category.

    Args:
        case: The bad case.
        result: The diagnosing model's answer, or the failure to get one.
        diagnoser: The diagnosing model's name (``None``: no model was asked).
        by_evaluated_model: The diagnosing model is the evaluated model.
    """
    base = {
        "dataset": case.dataset,
        "sample_id": case.sample.id,
        "trial": case.prediction.trial,
        "reason": case.reason,
        "method": "llm",
        "model_answer": case.judgment.answer or case.prediction.raw_output,
        "question_type": _str_or_none(case.sample.meta.get("question_type")),
        "order": _int_or_none(case.sample.meta.get("order")),
        "diagnoser": diagnoser,
        "by_evaluated_model": by_evaluated_model and diagnoser is not None,
    }
    if isinstance(result, StructureFailure):
        return Diagnosis(**base, category=None, failure=result.reason)
    return Diagnosis(
        **base, category=result.category, evidence=result.evidence, explanation=result.explanation
    )


def _str_or_none(value: object) -> str | None:
    return None if value is None else str(value)


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
