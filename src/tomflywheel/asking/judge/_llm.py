"""LLM judges: a structured verdict from StructureClient, alone or after the rules (hybrid)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from tomflywheel.asking._shuffle import format_options
from tomflywheel.asking.judge._base import JudgeContext, error_judgment, judge
from tomflywheel.asking.judge._rules import judge_by_rules, rules_options
from tomflywheel.llm import StructureClient, StructureFailure
from tomflywheel.schema import Judgment, MethodRef, Prediction, Sample, Verdict

JUDGE_SYSTEM = (
    "You grade answers to questions about stories. Compare the model's answer with the "
    "reference answer(s): it is correct if it means the same thing, even if worded differently. "
    "Reply in JSON."
)


class JudgeVerdict(BaseModel):
    """The judge model's verdict on one answer."""

    correct: bool = Field(description="true if the model's answer means the same as a reference")
    reason: str = Field(max_length=200, description="one short sentence explaining the verdict")


def judge_messages(
    sample: Sample, prediction: Prediction, *, story_chars: int
) -> list[dict[str, str]]:
    """The judge prompt for one prediction."""
    story = sample.story if len(sample.story) <= story_chars else sample.story[:story_chars] + " …"
    parts = [f"Story:\n{story}", f"Question: {sample.question}"]
    if prediction.options:
        parts.append("Options:\n" + format_options(prediction.options))
        gold = ", ".join(prediction.gold_letters or [])
        parts.append(f"Correct option(s): {gold} ({'; '.join(sample.answer.correct_answers)})")
    else:
        parts.append("Reference answer(s): " + " | ".join(sample.answer.correct_answers))
    parts.append(f"Model's answer: {(prediction.raw_output or '').strip()}")
    parts.append("Is the model's answer correct?")
    return [
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


async def ask_judge(
    structure: StructureClient,
    sample: Sample,
    prediction: Prediction,
    *,
    story_chars: int,
    max_tokens: int,
) -> JudgeVerdict | StructureFailure:
    """One structured verdict (or the failure to get one)."""
    return await structure.ask(
        JudgeVerdict,
        judge_messages(sample, prediction, story_chars=story_chars),
        max_tokens=max_tokens,
    )


@dataclass
class LLMJudge:
    """Asks the judge model about every prediction; ``hybrid`` asks only when rules are unsure."""

    context: JudgeContext
    hybrid: bool
    strict: bool = False
    partial: bool = True
    uses_llm: bool = True

    @property
    def ref(self) -> MethodRef:
        """Name and arguments."""
        if self.hybrid:
            return MethodRef(name="hybrid", args={"strict": self.strict, "partial": self.partial})
        return MethodRef(name="llm")

    async def __call__(self, sample: Sample, prediction: Prediction) -> Judgment:
        """Judge one prediction; a judge failure gives ``unjudged``, never a score."""
        if prediction.error is not None:
            return error_judgment(prediction, self.ref)
        rules = judge_by_rules(sample, prediction, strict=self.strict, partial=self.partial)
        base = {"sample_id": prediction.sample_id, "trial": prediction.trial, "method": self.ref}
        if self.hybrid and rules.clear:
            return Judgment(
                **base, verdict=rules.verdict, match_type=rules.match_type, answer=rules.answer
            )
        if self.context.structure is None:
            raise RuntimeError("LLM judge built without a StructureClient")
        result = await ask_judge(
            self.context.structure,
            sample,
            prediction,
            story_chars=self.context.settings.story_chars,
            max_tokens=self.context.settings.max_tokens,
        )
        if isinstance(result, StructureFailure):
            return Judgment(
                **base,
                verdict=Verdict.UNJUDGED,
                match_type="judge",
                answer=rules.answer,
                rules_verdict=rules.verdict,
                failure=result.reason,
                raw_judge_output=result.raw_text,
            )
        return Judgment(
            **base,
            verdict=Verdict.CORRECT if result.correct else Verdict.INCORRECT,
            match_type="judge",
            answer=rules.answer,
            rules_verdict=rules.verdict,
            reason=result.reason,
        )


@judge("llm")
def llm_judge(context: JudgeContext) -> LLMJudge:
    """Judge every prediction with a structured LLM verdict (correct yes/no, short reason).

    Args:
        context: Must carry a StructureClient.
    """
    return LLMJudge(context=context, hybrid=False)


@judge("hybrid", options=rules_options)
def hybrid_judge(context: JudgeContext, *, strict: bool = False, partial: bool = True) -> LLMJudge:
    """Let the rules decide clear matches and send the rest to the LLM judge.

    Clear: an exact or normalized match, a contained gold with no wrong option beside it, or a
    parsed option letter. Everything else (prefix/suffix matches, no match, no letter) is judged
    by the LLM; the rules' opinion is kept for the agreement figure.

    Args:
        context: Must carry a StructureClient.
        strict: Rules accept exact matches only.
        partial: Rules accept prefix and suffix matches.
    """
    return LLMJudge(context=context, hybrid=True, strict=strict, partial=partial)
