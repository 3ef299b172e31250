"""The verifiable reward of a reply: the evaluation's rules against the engine-derived answer.

A reply is scored as the evaluation would judge it (the rules judge, with the evaluation's
matching options, on the options in the order the prompt showed them), never by an LLM:
naming the right candidate earns ``reward_correct``, naming exactly one of the story's
candidates earns ``reward_format`` whether right or not, naming several costs
``penalty_several``, and a reply that names none earns nothing.
"""

from __future__ import annotations

from tomflywheel.asking import judge_by_rules, rules_options, shuffle_options
from tomflywheel.config import EvalSettings, GrpoSettings
from tomflywheel.datasets import TaskSpec
from tomflywheel.schema import Prediction, QAKind, Sample, Verdict

NAMED_ONE = frozenset({"candidate", "letter", "option_text"})
"""Match types of a reply that named exactly one answer of a closed set."""


def answer_reward(
    sample: Sample, reply: str, *, task: TaskSpec, settings: EvalSettings, grpo: GrpoSettings
) -> float:
    """The reward of ``reply`` to ``sample``'s evaluation prompt."""
    completion = task.prompt_kind == "completion"
    shuffled = None if completion or sample.kind is QAKind.OPEN else shuffle_options(sample)
    prediction = Prediction(
        sample_id=sample.id,
        mode="generate",
        endpoint="chat",
        raw_output=reply,
        options=shuffled.options if shuffled else None,
        option_map=shuffled.option_map if shuffled else None,
        gold_letters=shuffled.gold_letters if shuffled else None,
    )
    result = judge_by_rules(sample, prediction, **rules_options(settings, task))
    if result.verdict is Verdict.AMBIGUOUS:
        return -grpo.penalty_several
    reward = grpo.reward_format if result.closed and result.match_type in NAMED_ONE else 0.0
    if result.verdict is Verdict.CORRECT:
        reward += grpo.reward_correct
    return reward
