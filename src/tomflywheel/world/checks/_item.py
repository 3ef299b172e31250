"""One benchmark question with its parsed story, spec and gold, read from an imported sample.

A question the engine cannot read (a sentence or question wording no parser knows) is not an
error that stops the check: it becomes an :class:`Unparsed` record with its line and reason,
counted and listed beside the agreements.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.world.language import Grammar, parse_story
from tomflywheel.world.model import Answer, QuestionSpec, Story


@dataclass(frozen=True, slots=True)
class CheckItem:
    """A benchmark question ready to be re-derived."""

    story_id: str
    """The benchmark's own key (Hi-ToM's ``sample_id``, tgtom's story id), else the sample id."""
    qtype: str
    """Question type label."""
    question: str
    """The question as the benchmark words it."""
    story: Story
    """The parsed story."""
    spec: QuestionSpec
    """The parsed question."""
    gold: Answer
    """The benchmark's gold answer."""
    twin_gold: Answer = None
    """Hi-ToM: the gold of the same question in the other prompting style (VP)."""


@dataclass(frozen=True, slots=True)
class Unparsed:
    """A benchmark question the engine could not read: counted and explained, never fatal."""

    story_id: str
    """The benchmark's own key, as in :class:`CheckItem`."""
    sample_id: str
    """The imported sample's id."""
    qtype: str
    """Question type label."""
    question: str
    """The question as the benchmark words it."""
    line: int | None
    """The story line that does not parse (its printed number); None: the question."""
    reason: str
    """Why, quoting the text (``tomi: cannot parse 'Ava juggled.'``)."""
    source_line: int | None = None
    """That line's number in the benchmark file, when the importer kept where the sample was."""


def meta_field(sample: Sample, name: str) -> Any:
    """``sample.meta[name]``, which the benchmark's importer always writes.

    Raises:
        DataError: The field is missing (the sample was not made by the benchmark's importer).
    """
    if name not in sample.meta:
        raise DataError(sample.id, None, f"meta.{name}", "missing (import the benchmark first)")
    return sample.meta[name]


_PARSES_KEPT = 4096
"""Distinct stories whose parse ``with_stories`` remembers."""


def with_stories(
    samples: Iterable[Sample], grammar: Grammar
) -> Iterator[tuple[Sample, Story | DataError]]:
    """Each sample with its parsed story, or the parse error (with the sentence and its line).

    Samples of one story share one parse (and one error), consecutive or not: an importer may
    list a story's questions apart (Hi-ToM lists them by order, a story's five far apart).
    The last ``_PARSES_KEPT`` distinct stories are remembered.
    """
    parsed: dict[str, Story | DataError] = {}
    for sample in samples:
        story = parsed.get(sample.story)
        if story is None:
            try:
                story = parse_story(sample.story, grammar, source=sample.id)
            except DataError as err:
                story = err
            if len(parsed) >= _PARSES_KEPT:
                del parsed[next(iter(parsed))]
            parsed[sample.story] = story
        yield sample, story


def unparsed(
    sample: Sample, story_id: str, qtype: str, error: DataError, *, source_line: int | None = None
) -> Unparsed:
    """The record of a sample whose story (``error.line`` set) or question does not parse."""
    line = error.line if error.field != "question" else None
    return Unparsed(story_id, sample.id, qtype, sample.question, line, error.reason, source_line)
