"""One benchmark question with its parsed story, spec and gold, read from an imported sample."""

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


def meta_field(sample: Sample, name: str) -> Any:
    """``sample.meta[name]``, which the benchmark's importer always writes.

    Raises:
        DataError: The field is missing (the sample was not made by the benchmark's importer).
    """
    if name not in sample.meta:
        raise DataError(sample.id, None, f"meta.{name}", "missing (import the benchmark first)")
    return sample.meta[name]


def with_stories(samples: Iterable[Sample], grammar: Grammar) -> Iterator[tuple[Sample, Story]]:
    """Each sample with its parsed story; consecutive samples of one story share one parse.

    Raises:
        DataError: A sentence does not parse (named with the sample id and its line).
    """
    text: str | None = None
    story: Story | None = None
    for sample in samples:
        if story is None or sample.story != text:
            text, story = sample.story, parse_story(sample.story, grammar, source=sample.id)
        yield sample, story
