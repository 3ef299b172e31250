"""Text in and out: the phrase table, story parser and renderer, question wording and parser.

One phrase table serves both directions, so whatever the renderer writes parses back to the
same events.

May import: ``model``, ``physics``, ``verifiers`` (it needs only ``model``).
"""

from tomflywheel.world.language._phrases import name_list
from tomflywheel.world.language._question_parser import parse_question
from tomflywheel.world.language._question_text import (
    ANSWER_FORMATS,
    answer_format,
    answer_text,
    question_text,
)
from tomflywheel.world.language._story_parser import Grammar, parse_story
from tomflywheel.world.language._story_render import render_event, render_story

__all__ = [
    "ANSWER_FORMATS",
    "Grammar",
    "answer_format",
    "answer_text",
    "name_list",
    "parse_question",
    "parse_story",
    "question_text",
    "render_event",
    "render_story",
]
