"""The log-prob judge: the option with the highest log-probability is the model's answer."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tomflywheel.asking._shuffle import LETTERS
from tomflywheel.asking.judge._base import JudgeContext, error_judgment, judge
from tomflywheel.schema import Judgment, MethodRef, Prediction, Sample, Verdict


def option_scores(prediction: Prediction, normalize: Literal["sum", "mean"] = "sum") -> list[float]:
    """Each shown option's score: summed log-prob, or the mean per token."""
    values = prediction.option_logprobs or []
    if normalize == "sum":
        return list(values)
    counts = prediction.option_token_counts or [1] * len(values)
    return [value / max(count, 1) for value, count in zip(values, counts, strict=True)]


def softmax(scores: Sequence[float], temperature: float) -> list[float]:
    """Probabilities from scores at a temperature (numerically stable)."""
    top = max(scores)
    weights = [math.exp((score - top) / temperature) for score in scores]
    total = sum(weights)
    return [weight / total for weight in weights]


def gold_positions(prediction: Prediction) -> list[int]:
    """Positions (in shown order) of the correct options.

    Read from the letters recorded when the options were scored: the scored options may be the
    story's candidates rather than the sample's own answer lists (which can hold spelling variants
    of the gold, like ToMi's ``green_bucket`` / ``green bucket``).
    """
    return [LETTERS.index(letter) for letter in prediction.gold_letters or []]


@dataclass
class LogprobJudge:
    """Picks the highest-scoring option; ties go to the first shown (never silently to gold)."""

    normalize: Literal["sum", "mean"] = "sum"
    uses_llm: bool = False

    @property
    def ref(self) -> MethodRef:
        """Name and arguments."""
        return MethodRef(name="logprob", args={"normalize": self.normalize})

    async def __call__(self, sample: Sample, prediction: Prediction) -> Judgment:
        """Judge one scored prediction."""
        if prediction.error is not None or not prediction.option_logprobs:
            return error_judgment(prediction, self.ref)
        scores = option_scores(prediction, self.normalize)
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        gold = gold_positions(prediction)
        verdict = Verdict.CORRECT if best in gold else Verdict.INCORRECT
        options = prediction.options or []
        return Judgment(
            sample_id=prediction.sample_id,
            trial=prediction.trial,
            verdict=verdict,
            method=self.ref,
            match_type="logprob",
            answer=options[best] if best < len(options) else None,
        )


@judge("logprob", options=lambda settings, task: {"normalize": settings.logprob.normalize})
def logprob_judge(
    context: JudgeContext, *, normalize: Literal["sum", "mean"] = "sum"
) -> LogprobJudge:
    """Judge by scoring every option as a continuation and picking the most likely.

    Args:
        context: Unused (scores are computed in the predict stage).
        normalize: ``sum`` of token log-probs, or ``mean`` per token (favours long options less).
    """
    return LogprobJudge(normalize=normalize)
