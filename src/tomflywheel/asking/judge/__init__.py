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
from tomflywheel.asking.judge._consistency import inconsistency, reason_polarity
from tomflywheel.asking.judge._llm import JudgeVerdict, judge_messages
from tomflywheel.asking.judge._logprob import gold_positions, option_scores, softmax
from tomflywheel.asking.judge._rules import (
    AnswerPolicy,
    RulesResult,
    closed_candidates,
    judge_by_rules,
    judge_reply,
    rules_options,
)

__all__ = [
    "JUDGES",
    "AnswerPolicy",
    "Judge",
    "JudgeContext",
    "JudgeVerdict",
    "RegisteredJudge",
    "RulesResult",
    "build_judge",
    "closed_candidates",
    "error_judgment",
    "gold_positions",
    "inconsistency",
    "judge",
    "judge_by_rules",
    "judge_messages",
    "judge_reply",
    "option_scores",
    "reason_polarity",
    "rules_options",
    "softmax",
]
