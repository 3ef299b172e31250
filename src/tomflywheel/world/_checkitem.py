"""One benchmark question with its parsed story, spec and gold answer."""

from __future__ import annotations

from dataclasses import dataclass

from tomflywheel.world._events import Story
from tomflywheel.world._spec import Answer, QuestionSpec


@dataclass(frozen=True, slots=True)
class CheckItem:
    """A benchmark question ready to be re-derived."""

    story_id: str
    """The benchmark's own key (``test-00012``, ``sample 42``, ``17``)."""
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
