"""Asking a model and reading its answer: what every stage uses to put a sample to a model.

Prompts and templates, the seeded option shuffle, the :class:`Predictor` (one request: generate
or score options), answer normalisation and matching, and the judging methods
(:mod:`tomflywheel.asking.judge`), and the ``TaskSpec`` a dataset declares (how its samples are
asked and judged, declared in :mod:`tomflywheel.tasks`). Below ``datasets`` and the stages: it
may import ``llm``, ``config``, ``schema`` and the base modules.

The exports load their module on first use (PEP 562): the judge registry (which the task
registry checks names against) loads without the predictor and the LLM client behind it, so
importing an importer loads no ``tomflywheel.llm`` module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tomflywheel._lazy_exports import attach
from tomflywheel.tasks import PromptKind, TaskSpec

if TYPE_CHECKING:
    from tomflywheel.asking._letters import (
        letters_from_option_text,
        named_letters,
        options_named,
        parse_letters,
    )
    from tomflywheel.asking._match import (
        CASCADE,
        first_word,
        match_text,
        mentioned_in_order,
        mentions,
        normalize,
        normalize_tokens,
    )
    from tomflywheel.asking._predictor import (
        Predictor,
        Work,
        scoring_sample,
    )
    from tomflywheel.asking._prompts import (
        RenderedPrompt,
        answer_text,
        completion_text,
        render_logprob_context,
        render_prompt,
        render_user_text,
        taught_rationale,
        training_messages,
    )
    from tomflywheel.asking._scoring import (
        ScoringRequest,
        is_sentence_sample,
        scored_prediction,
        scoring_request,
        unscorable_prediction,
    )
    from tomflywheel.asking._shuffle import (
        LETTERS,
        ShuffledOptions,
        format_options,
        shown_options,
        shuffle_options,
    )
    from tomflywheel.asking.judge import (
        JUDGES,
        Judge,
        JudgeContext,
        build_judge,
        closed_candidates,
        judge_by_rules,
        judge_reply,
        option_scores,
        rules_options,
    )

__getattr__, __dir__ = attach(
    __name__,
    {
        "_letters": (
            "letters_from_option_text",
            "named_letters",
            "options_named",
            "parse_letters",
        ),
        "_match": (
            "CASCADE",
            "first_word",
            "match_text",
            "mentioned_in_order",
            "mentions",
            "normalize",
            "normalize_tokens",
        ),
        "_predictor": (
            "Predictor",
            "Work",
            "scoring_sample",
        ),
        "_prompts": (
            "RenderedPrompt",
            "answer_text",
            "completion_text",
            "render_logprob_context",
            "render_prompt",
            "render_user_text",
            "taught_rationale",
            "training_messages",
        ),
        "_scoring": (
            "ScoringRequest",
            "is_sentence_sample",
            "scored_prediction",
            "scoring_request",
            "unscorable_prediction",
        ),
        "_shuffle": (
            "LETTERS",
            "ShuffledOptions",
            "format_options",
            "shown_options",
            "shuffle_options",
        ),
        "judge": (
            "JUDGES",
            "Judge",
            "JudgeContext",
            "build_judge",
            "closed_candidates",
            "judge_by_rules",
            "judge_reply",
            "option_scores",
            "rules_options",
        ),
    },
)
"""Each export's module: ``import tomflywheel.asking`` loads none of them."""

__all__ = [
    "CASCADE",
    "JUDGES",
    "LETTERS",
    "Judge",
    "JudgeContext",
    "Predictor",
    "PromptKind",
    "RenderedPrompt",
    "ScoringRequest",
    "ShuffledOptions",
    "TaskSpec",
    "Work",
    "answer_text",
    "build_judge",
    "closed_candidates",
    "completion_text",
    "first_word",
    "format_options",
    "is_sentence_sample",
    "judge_by_rules",
    "judge_reply",
    "letters_from_option_text",
    "match_text",
    "mentioned_in_order",
    "mentions",
    "named_letters",
    "normalize",
    "normalize_tokens",
    "option_scores",
    "options_named",
    "parse_letters",
    "render_logprob_context",
    "render_prompt",
    "render_user_text",
    "rules_options",
    "scored_prediction",
    "scoring_request",
    "scoring_sample",
    "shown_options",
    "shuffle_options",
    "taught_rationale",
    "training_messages",
    "unscorable_prediction",
]
