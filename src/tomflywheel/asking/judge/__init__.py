"""Judging methods: rules, first token, log-prob, LLM and hybrid (a registry of factories)."""

# Built-in judging methods: each module registers its factory on import; this block is their list.
from tomflywheel.asking.judge import _first_token, _llm, _logprob, _rules  # noqa: F401
from tomflywheel.asking.judge._base import (
    JUDGES,
    Judge,
    JudgeContext,
    RegisteredJudge,
    build_judge,
    error_judgment,
    judge,
)
from tomflywheel.asking.judge._llm import JudgeVerdict, judge_messages
from tomflywheel.asking.judge._logprob import gold_positions, option_scores, softmax
from tomflywheel.asking.judge._rules import RulesResult, judge_by_rules

__all__ = [
    "JUDGES",
    "Judge",
    "JudgeContext",
    "JudgeVerdict",
    "RegisteredJudge",
    "RulesResult",
    "build_judge",
    "error_judgment",
    "gold_positions",
    "judge",
    "judge_by_rules",
    "judge_messages",
    "option_scores",
    "softmax",
]
