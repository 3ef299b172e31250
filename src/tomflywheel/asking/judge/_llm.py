"""LLM judges: a structured verdict from StructureClient, alone or after the rules (hybrid).

The hybrid lets the rules decide whenever they can: every choice question and every open
question whose answer set is closed (the story's ``meta.candidates``) is decided by the rules,
and the LLM is asked there only on a seeded share of the certain items, to estimate its
accuracy (its verdict never counts). The LLM decides only open answers the rules cannot settle,
and its verdict counts only when its reply holds together (see ``_consistency.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from tomflywheel._rng import rng_for
from tomflywheel.asking._shuffle import format_options
from tomflywheel.asking.judge._base import JudgeContext, error_judgment, judge
from tomflywheel.asking.judge._consistency import inconsistency
from tomflywheel.asking.judge._rules import (
    AnswerPolicy,
    RulesResult,
    judge_by_rules,
    rules_args,
    rules_options,
)
from tomflywheel.schema import Judgment, MethodRef, Prediction, Sample, Verdict

if TYPE_CHECKING:  # types only: the judge registry loads without the LLM client
    from tomflywheel.llm import StructureClient, StructureFailure

JUDGE_SYSTEM = (
    "You grade answers to questions about stories. Compare the model's answer with the "
    "reference answer(s): it is correct if it means the same thing, even if worded differently. "
    "Reply in JSON."
)


class JudgeVerdict(BaseModel):
    """The judge model's verdict on one answer, with the answer it read and why."""

    answer: str = Field(
        max_length=120,
        description="the final answer the model gave, copied from its reply ('' if it gave none)",
    )
    reason: str = Field(
        max_length=200, description="one short sentence comparing that answer with the reference"
    )
    correct: bool = Field(description="true if that answer means the same as a reference answer")


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
    parts.append("What answer did the model give, and is it correct?")
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
    policy: AnswerPolicy = "strict"
    uses_llm: bool = True

    @property
    def ref(self) -> MethodRef:
        """Name and arguments."""
        if self.hybrid:
            return MethodRef(name="hybrid", args=rules_args(self.strict, self.partial, self.policy))
        return MethodRef(name="llm")

    def _calibrates(self, prediction: Prediction) -> bool:
        """Whether to ask the judge on a rule-decided item (seeded by sample and trial)."""
        rate = self.context.settings.calibration_rate
        key = f"{prediction.sample_id}:{prediction.trial}"
        return rate > 0 and rng_for("judge-calibration", key).random() < rate

    async def __call__(self, sample: Sample, prediction: Prediction) -> Judgment:
        """Judge one prediction; a judge failure or contradiction gives ``unjudged``."""
        if prediction.error is not None:
            return error_judgment(prediction, self.ref)
        rules = judge_by_rules(
            sample, prediction, strict=self.strict, partial=self.partial, policy=self.policy
        )
        base = {"sample_id": prediction.sample_id, "trial": prediction.trial, "method": self.ref}
        if self.hybrid and rules.clear:
            decided = Judgment(
                **base, verdict=rules.verdict, match_type=rules.match_type, answer=rules.answer
            )
            if not (rules.certain and self._calibrates(prediction)):
                return decided
            asked = await self._ask(sample, prediction, rules)
            # The judge's verdict is recorded for calibration only: the rules' verdict stands.
            return decided.model_copy(update=_judge_fields(asked))
        asked = await self._ask(sample, prediction, rules)
        return asked.model_copy(update={"match_type": "judge"})

    async def _ask(self, sample: Sample, prediction: Prediction, rules: RulesResult) -> Judgment:
        """The judge's reply as the fields of a judgment (``verdict`` already checked)."""
        if self.context.structure is None:
            raise RuntimeError("LLM judge built without a StructureClient")
        result = await ask_judge(
            self.context.structure,
            sample,
            prediction,
            story_chars=self.context.settings.story_chars,
            max_tokens=self.context.settings.max_tokens,
        )
        common = {
            "sample_id": prediction.sample_id,
            "trial": prediction.trial,
            "method": self.ref,
            "answer": rules.answer,
            "rules_verdict": rules.verdict,
            "rules_certain": rules.certain,
        }
        # The LLM client is loaded by now (it sent the request); importers never reach here.
        from tomflywheel.llm import StructureFailure

        if isinstance(result, StructureFailure):
            return Judgment(
                **common,
                verdict=Verdict.UNJUDGED,
                judge_verdict=Verdict.UNJUDGED,
                failure=result.reason,
                raw_judge_output=result.raw_text,
            )
        claimed = Verdict.CORRECT if result.correct else Verdict.INCORRECT
        problem = inconsistency(
            sample,
            prediction.raw_output or "",
            answer=result.answer,
            reason=result.reason,
            correct=result.correct,
        )
        verdict = Verdict.UNJUDGED if problem else claimed
        return Judgment(
            **common,
            verdict=verdict,
            judge_verdict=verdict,
            judge_answer=result.answer,
            reason=result.reason,
            failure=f"inconsistent judge: {problem}" if problem else None,
        )


def _judge_fields(asked: Judgment) -> dict[str, Any]:
    """What a calibration ask adds to a rule-decided judgment."""
    return {
        "rules_verdict": asked.rules_verdict,
        "rules_certain": asked.rules_certain,
        "judge_verdict": asked.judge_verdict,
        "judge_answer": asked.judge_answer,
        "reason": asked.reason,
        "raw_judge_output": asked.raw_judge_output,
        # Why the judge's reply was not usable (evidence for the calibration figure).
        "failure": asked.failure,
    }


@judge("llm")
def llm_judge(context: JudgeContext) -> LLMJudge:
    """Judge every prediction with a structured LLM verdict (correct yes/no, short reason).

    Args:
        context: Must carry a StructureClient.
    """
    return LLMJudge(context=context, hybrid=False)


@judge("hybrid", options=rules_options)
def hybrid_judge(
    context: JudgeContext,
    *,
    strict: bool = False,
    partial: bool = True,
    policy: AnswerPolicy = "strict",
) -> LLMJudge:
    """Let the rules decide whenever they can and ask the LLM judge only about the rest.

    The rules decide every choice question and every open question over a closed answer set
    (the story's candidates), and any exact or normalized match, or a contained gold with no
    wrong answer beside it. Only other open answers go to the LLM judge, whose verdict counts
    when its reply is consistent. On a seeded share (``judge.calibration_rate``) of the items
    the rules are certain of, the judge is asked too, only to estimate its accuracy.

    Args:
        context: Must carry a StructureClient.
        strict: Rules accept exact matches only.
        partial: Rules accept prefix and suffix matches.
        policy: A reply naming several answers: ``strict`` ambiguous, ``lenient`` its last.
    """
    return LLMJudge(context=context, hybrid=True, strict=strict, partial=partial, policy=policy)
