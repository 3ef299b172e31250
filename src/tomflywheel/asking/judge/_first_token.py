"""The first-token judge: the first generated word must be the expected word."""

from __future__ import annotations

from dataclasses import dataclass

from tomflywheel.asking._match import first_word
from tomflywheel.asking.judge._base import JudgeContext, error_judgment, judge
from tomflywheel.schema import Judgment, MethodRef, Prediction, Sample, Verdict


@dataclass
class FirstTokenJudge:
    """Compares the first word of the output with the first word of each gold answer."""

    uses_llm: bool = False

    @property
    def ref(self) -> MethodRef:
        """Name and arguments."""
        return MethodRef(name="first_token")

    async def __call__(self, sample: Sample, prediction: Prediction) -> Judgment:
        """Judge one prediction (paired prompts are combined by the metrics' both-correct unit)."""
        if prediction.error is not None:
            return error_judgment(prediction, self.ref)
        said = first_word(prediction.raw_output or "")
        expected = {first_word(gold) for gold in sample.answer.correct_answers}
        verdict = Verdict.CORRECT if said and said in expected else Verdict.INCORRECT
        return Judgment(
            sample_id=prediction.sample_id,
            trial=prediction.trial,
            verdict=verdict,
            method=self.ref,
            match_type="first_token" if verdict is Verdict.CORRECT else "none",
            answer=said or None,
        )


@judge("first_token")
def first_token_judge(context: JudgeContext) -> FirstTokenJudge:
    """Judge sentence completions: the first generated word must equal the expected word.

    Args:
        context: Unused.
    """
    return FirstTokenJudge()
