"""The verifiable reward of a reply: the evaluation's rules against the engine-derived answer.

A reply is scored as the evaluation would judge it (the rules judge, with the evaluation's
matching options, on the options in the order the prompt showed them), never by an LLM:
naming the right candidate earns ``reward_correct``, naming exactly one of the story's
candidates earns ``reward_format`` whether right or not, naming several costs
``penalty_several``, and a reply that names none earns nothing.
"""

from __future__ import annotations

from tomflywheel.asking import judge_reply, rules_options, shown_options
from tomflywheel.config import EvalSettings, GrpoSettings
from tomflywheel.datasets import TaskSpec
from tomflywheel.schema import Sample, Verdict

NAMED_ONE = frozenset({"candidate", "letter", "option_text"})
"""Match types of a reply that named exactly one answer of a closed set."""


def answer_reward(
    sample: Sample, reply: str, *, task: TaskSpec, settings: EvalSettings, grpo: GrpoSettings
) -> float:
    """The reward of ``reply`` to ``sample``'s evaluation prompt."""
    shown = shown_options(sample, completion=task.prompt_kind == "completion")
    result = judge_reply(sample, reply, shown=shown, **rules_options(settings, task))
    if result.verdict is Verdict.AMBIGUOUS:
        return -grpo.penalty_several
    reward = grpo.reward_format if result.closed and result.match_type in NAMED_ONE else 0.0
    if result.verdict is Verdict.CORRECT:
        reward += grpo.reward_correct
    return reward
