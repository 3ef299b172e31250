"""The rules judge: text cascade for open QA, letter parsing for choice QA."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tomflywheel.asking._letters import named_letters, options_named, parse_letters
from tomflywheel.asking._match import (
    final_answer,
    match_text,
    mentioned_in_order,
    mentions,
    normalize,
)
from tomflywheel.asking._shuffle import ShuffledOptions
from tomflywheel.asking.judge._base import JudgeContext, error_judgment, judge
from tomflywheel.config import EvalSettings
from tomflywheel.schema import Judgment, MethodRef, Prediction, QAKind, Sample, Verdict
from tomflywheel.tasks import TaskSpec

AnswerPolicy = Literal["strict", "lenient"]
"""What a reply naming several answers gets: ``strict`` calls it ambiguous (scored wrong),
``lenient`` takes the last answer it names (a model correcting itself)."""


@dataclass(frozen=True, slots=True)
class RulesResult:
    """What the rules found, before any LLM is asked."""

    verdict: Verdict
    match_type: str
    answer: str | None
    clear: bool
    """Whether the rules settle it (exact/normalized, a parsed letter, an unambiguous span, or
    any verdict on a closed answer set)."""
    closed: bool = False
    """The answer set is closed (options, or the story's candidates): the rules' verdict is
    final and no LLM judge may overturn it."""

    @property
    def certain(self) -> bool:
        """Whether the rules read one answer (or none) in a closed set, or a clear match.

        These are the items on which an LLM judge's accuracy is estimated.
        """
        return self.clear and self.verdict is not Verdict.AMBIGUOUS


def closed_candidates(sample: Sample) -> list[str] | None:
    """The story's candidate answers of an open question (``meta.candidates``), if closed.

    Closed: at least two candidates, one of them a gold answer.
    """
    candidates = sample.meta.get("candidates")
    if not isinstance(candidates, list) or len(candidates) < 2:
        return None
    texts = [str(c) for c in candidates]
    golds = {normalize(g) for g in sample.answer.correct_answers}
    return texts if any(normalize(c) in golds for c in texts) else None


def judge_by_rules(
    sample: Sample,
    prediction: Prediction,
    *,
    strict: bool = False,
    partial: bool = True,
    policy: AnswerPolicy = "strict",
) -> RulesResult:
    """Judge a generated answer with rules only.

    Args:
        sample: The sample (its golds, wrong options and ``meta.candidates``).
        prediction: The model's output.
        strict: Exact matches only.
        partial: Allow prefix and suffix matches.
        policy: A reply naming several answers of a closed set: ambiguous or its last one.

    A reply that reasons first is judged on what follows its last ``Answer:`` line.
    """
    output = final_answer(prediction.raw_output or "")
    if prediction.options is not None and prediction.gold_letters is not None:
        return _judge_choice(sample, prediction, output, policy)
    if (candidates := closed_candidates(sample)) is not None:
        return _judge_closed(sample, candidates, output, strict, partial, policy)
    match = match_text(output, sample.answer.correct_answers, strict=strict, partial=partial)
    if match is None:
        return RulesResult(Verdict.INCORRECT, "none", output.strip() or None, clear=False)
    # A contained gold is only clear when no wrong answer is mentioned beside it.
    clear = match.match_type in ("exact", "normalized") or (
        match.match_type == "contained"
        and not any(mentions(output, wrong) for wrong in sample.answer.wrong_answers)
    )
    return RulesResult(Verdict.CORRECT, match.match_type, match.gold, clear=clear)


def judge_reply(
    sample: Sample,
    reply: str,
    *,
    shown: ShuffledOptions | None,
    trial: int = 0,
    **options: Any,
) -> RulesResult:
    """Judge a chat reply to the prompt that showed ``shown`` (``judge_by_rules``' options)."""
    prediction = Prediction(
        sample_id=sample.id,
        trial=trial,
        mode="generate",
        endpoint="chat",
        options=shown.options if shown else None,
        option_map=shown.option_map if shown else None,
        gold_letters=shown.gold_letters if shown else None,
        raw_output=reply,
    )
    return judge_by_rules(sample, prediction, **options)


def _closed(verdict: Verdict, match_type: str, answer: str | None) -> RulesResult:
    return RulesResult(verdict, match_type, answer, clear=True, closed=True)


def _judge_closed(
    sample: Sample,
    candidates: list[str],
    output: str,
    strict: bool,
    partial: bool,
    policy: AnswerPolicy,
) -> RulesResult:
    """Open QA over the story's candidates: the one candidate named decides."""
    if strict:
        named = [c for c in candidates if output.strip() == c.strip()]
    else:
        named = [candidates[i] for i in mentioned_in_order(output, candidates)]
        if not named and partial:
            # A cut-short reply ("green" for green_bucket) counts if it fits one candidate only.
            named = [c for c in candidates if match_text(output, [c]) is not None]
            named = named if len(named) == 1 else []
    if not named:
        return _closed(Verdict.INCORRECT, "no_candidate", output.strip() or None)
    if len(named) > 1 and policy == "strict":
        return _closed(Verdict.AMBIGUOUS, "candidates", ", ".join(named))
    chosen = named[-1]
    golds = {normalize(g) for g in sample.answer.correct_answers}
    right = normalize(chosen) in golds
    return _closed(Verdict.CORRECT if right else Verdict.INCORRECT, "candidate", chosen)


def _judge_choice(
    sample: Sample, prediction: Prediction, output: str, policy: AnswerPolicy
) -> RulesResult:
    options = prediction.options or []
    gold = sorted(prediction.gold_letters or [])
    if sample.kind is QAKind.MULTI_CHOICE:
        letters = parse_letters(output, len(options), multi=True)
        if letters is None:
            return _closed(Verdict.INCORRECT, "unparsable", None)
        verdict = Verdict.CORRECT if letters == gold else Verdict.INCORRECT
        return _closed(verdict, "letter", ",".join(letters))
    letters = named_letters(output, len(options))
    match_type = "letter"
    if not letters:
        letters = options_named(output, options)
        match_type = "option_text"
    if not letters:
        return _closed(Verdict.INCORRECT, "unparsable", None)
    if len(letters) > 1 and policy == "strict":
        return _closed(Verdict.AMBIGUOUS, match_type, ",".join(letters))
    chosen = letters[-1]
    return _closed(Verdict.CORRECT if [chosen] == gold else Verdict.INCORRECT, match_type, chosen)


@dataclass
class RulesJudge:
    """Rules only: never sends a request."""

    strict: bool = False
    partial: bool = True
    policy: AnswerPolicy = "strict"
    uses_llm: bool = False

    @property
    def ref(self) -> MethodRef:
        """Name and arguments."""
        return MethodRef(name="rules", args=rules_args(self.strict, self.partial, self.policy))

    async def __call__(self, sample: Sample, prediction: Prediction) -> Judgment:
        """Judge one prediction."""
        if prediction.error is not None:
            return error_judgment(prediction, self.ref)
        result = judge_by_rules(
            sample, prediction, strict=self.strict, partial=self.partial, policy=self.policy
        )
        return Judgment(
            sample_id=prediction.sample_id,
            trial=prediction.trial,
            verdict=result.verdict,
            method=self.ref,
            match_type=result.match_type,
            answer=result.answer,
        )


def rules_args(strict: bool, partial: bool, policy: AnswerPolicy) -> dict[str, Any]:
    """The rules' arguments as written into judgments.

    The policy is written only when not the default, so judgments written before it existed
    keep their identity.
    """
    args: dict[str, Any] = {"strict": strict, "partial": partial}
    if policy != "strict":
        args["policy"] = policy
    return args


def rules_options(settings: EvalSettings, task: TaskSpec | None) -> dict[str, Any]:
    """Strict matching and the answer policy from the settings.

    No partial credit where the benchmark gives none.
    """
    return {
        "strict": settings.strict_matching,
        "partial": not (task and task.strict_matching),
        "policy": settings.answer_policy,
    }


@judge("rules", options=rules_options)
def rules_judge(
    context: JudgeContext,
    *,
    strict: bool = False,
    partial: bool = True,
    policy: AnswerPolicy = "strict",
) -> RulesJudge:
    """Judge by rules only, never sending a request.

    Choice answers: the option letters named, else the option texts. Open answers over a closed
    set (the story's ``meta.candidates``): the candidates named. Either way one named answer
    decides, several are ``ambiguous`` (``policy: strict``) or the last one counts
    (``lenient``), none is incorrect. Other open answers go through the exact -> normalized ->
    contained -> prefix -> suffix cascade (``strict``: exact only).

    Args:
        context: Unused (rules need no client).
        strict: Accept exact matches only.
        partial: Accept prefix and suffix matches (partial answers).
        policy: A reply naming several answers: ``strict`` ambiguous, ``lenient`` its last.
    """
    return RulesJudge(strict=strict, partial=partial, policy=policy)
