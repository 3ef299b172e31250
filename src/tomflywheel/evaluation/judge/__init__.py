"""Judging methods: rules, first token, log-prob, LLM and hybrid (a registry of factories)."""

from tomflywheel.evaluation.judge import _first_token, _llm, _logprob, _rules  # noqa: F401
from tomflywheel.evaluation.judge._base import JUDGES, Judge, JudgeContext, error_judgment
from tomflywheel.evaluation.judge._letters import letters_from_option_text, parse_letters
from tomflywheel.evaluation.judge._llm import JudgeVerdict, judge_messages
from tomflywheel.evaluation.judge._logprob import gold_positions, option_scores, softmax
from tomflywheel.evaluation.judge._match import (
    CASCADE,
    first_word,
    match_text,
    mentions,
    normalize,
)
from tomflywheel.evaluation.judge._rules import RulesResult, judge_by_rules

__all__ = [
    "CASCADE",
    "JUDGES",
    "Judge",
    "JudgeContext",
    "JudgeVerdict",
    "RulesResult",
    "error_judgment",
    "first_word",
    "gold_positions",
    "judge_by_rules",
    "judge_messages",
    "letters_from_option_text",
    "match_text",
    "mentions",
    "normalize",
    "option_scores",
    "parse_letters",
    "softmax",
]
