"""Text in and out: the phrase table, story parser and renderer, question wording and parser.

One phrase table serves both directions, so whatever the renderer writes parses back to the
same events.

May import: ``model``, ``physics``, ``verifiers`` (it needs only ``model``). The exports load on
first use: a generator renders stories without importing the parsers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tomflywheel._lazy_exports import attach

if TYPE_CHECKING:
    from tomflywheel.world.language._phrases import name_list
    from tomflywheel.world.language._question_parser import parse_question
    from tomflywheel.world.language._question_text import (
        ANSWER_FORMATS,
        answer_format,
        answer_text,
        question_text,
    )
    from tomflywheel.world.language._story_parser import Grammar, parse_story
    from tomflywheel.world.language._story_render import is_numbered, render_event, render_story

__getattr__, __dir__ = attach(
    __name__,
    {
        "_phrases": ("name_list",),
        "_question_parser": ("parse_question",),
        "_question_text": ("ANSWER_FORMATS", "answer_format", "answer_text", "question_text"),
        "_story_parser": ("Grammar", "parse_story"),
        "_story_render": ("is_numbered", "render_event", "render_story"),
    },
)

__all__ = [
    "ANSWER_FORMATS",
    "Grammar",
    "answer_format",
    "answer_text",
    "is_numbered",
    "name_list",
    "parse_question",
    "parse_story",
    "question_text",
    "render_event",
    "render_story",
]
