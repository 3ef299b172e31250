"""The rules judge: text cascade for open QA, letter parsing for choice QA."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tomflywheel.asking._letters import letters_from_option_text, parse_letters
from tomflywheel.asking._match import match_text, mentions
from tomflywheel.asking._task import TaskSpec
from tomflywheel.asking.judge._base import JudgeContext, error_judgment, judge
from tomflywheel.config import EvalSettings
from tomflywheel.schema import Judgment, MethodRef, Prediction, QAKind, Sample, Verdict


@dataclass(frozen=True, slots=True)
class RulesResult:
    """What the rules found, before any LLM is asked."""

    verdict: Verdict
    match_type: str
    answer: str | None
    clear: bool
    """Whether the rules settle it (exact/normalized, a parsed letter, or an unambiguous span)."""


def judge_by_rules(
    sample: Sample, prediction: Prediction, *, strict: bool = False, partial: bool = True
) -> RulesResult:
    """Judge a generated answer with rules only (``partial``: allow prefix/suffix matches)."""
    output = prediction.raw_output or ""
    if prediction.options is not None and prediction.gold_letters is not None:
        return _judge_choice(sample, prediction, output)
    match = match_text(output, sample.answer.correct_answers, strict=strict, partial=partial)
    if match is None:
        return RulesResult(Verdict.INCORRECT, "none", output.strip() or None, clear=False)
    # A contained gold is only clear when no wrong answer is mentioned beside it.
    clear = match.match_type in ("exact", "normalized") or (
        match.match_type == "contained"
        and not any(mentions(output, wrong) for wrong in sample.answer.wrong_answers)
    )
    return RulesResult(Verdict.CORRECT, match.match_type, match.gold, clear=clear)


def _judge_choice(sample: Sample, prediction: Prediction, output: str) -> RulesResult:
    options = prediction.options or []
    multi = sample.kind is QAKind.MULTI_CHOICE
    letters = parse_letters(output, len(options), multi=multi)
    match_type = "letter"
    if letters is None:
        letters = letters_from_option_text(output, options) if not multi else None
        match_type = "option_text"
    if letters is None:
        return RulesResult(Verdict.INCORRECT, "unparsable", None, clear=False)
    right = sorted(letters) == sorted(prediction.gold_letters or [])
    verdict = Verdict.CORRECT if right else Verdict.INCORRECT
    return RulesResult(verdict, match_type, ",".join(letters), clear=True)


@dataclass
class RulesJudge:
    """Rules only: never sends a request."""

    strict: bool = False
    partial: bool = True
    uses_llm: bool = False

    @property
    def ref(self) -> MethodRef:
        """Name and arguments."""
        return MethodRef(name="rules", args={"strict": self.strict, "partial": self.partial})

    async def __call__(self, sample: Sample, prediction: Prediction) -> Judgment:
        """Judge one prediction."""
        if prediction.error is not None:
            return error_judgment(prediction, self.ref)
        result = judge_by_rules(sample, prediction, strict=self.strict, partial=self.partial)
        return Judgment(
            sample_id=prediction.sample_id,
            trial=prediction.trial,
            verdict=result.verdict,
            method=self.ref,
            match_type=result.match_type,
            answer=result.answer,
        )


def rules_options(settings: EvalSettings, task: TaskSpec | None) -> dict[str, Any]:
    """Strict matching from the settings; no partial credit where the benchmark gives none."""
    return {"strict": settings.strict_matching, "partial": not (task and task.strict_matching)}


@judge("rules", options=rules_options)
def rules_judge(context: JudgeContext, *, strict: bool = False, partial: bool = True) -> RulesJudge:
    """Judge by rules only, never sending a request.

    Open answers go through the exact -> normalized -> contained -> prefix -> suffix cascade
    (``strict``: exact only); choice answers through letter parsing, then option text.

    Args:
        context: Unused (rules need no client).
        strict: Accept exact matches only.
        partial: Accept prefix and suffix matches (partial answers).
    """
    return RulesJudge(strict=strict, partial=partial)
