"""Imported ToMi samples as check items, and the ToMi conventions behind their gaps."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tomflywheel.schema import Sample
from tomflywheel.world.checks._item import CheckItem, meta_field, with_stories
from tomflywheel.world.language import parse_question
from tomflywheel.world.model import Answer, Enter, Exit, Place
from tomflywheel.world.physics import Profile


def tomi_items(samples: Iterable[Sample]) -> Iterator[CheckItem]:
    """The check items of imported ToMi samples (question types from ``meta.question_type``).

    Raises:
        DataError: A sentence or question does not parse, or ``meta.question_type`` is missing.
    """
    for sample, story in with_stories(samples, "tomi"):
        spec = parse_question(sample.question, "tomi", story, source=sample.id)
        qtype = str(meta_field(sample, "question_type"))
        gold = sample.answer.correct_answers[0]
        yield CheckItem(sample.id, qtype, sample.question, story, spec, gold)


def tomi_cause(item: CheckItem, derived: Answer, profile: Profile) -> str:
    """Name the ToMi convention behind a gap between its gold and the principled default.

    ``derived`` and ``profile`` are unused: the story alone shows the convention.
    """
    story, chain = item.story, item.spec.chain
    places = [event for event in story.events if isinstance(event, Place)]
    if len(chain) != 2 or not places:
        return "unexplained"
    room = places[0].room
    entered: set[str] = set()
    left: set[str] = set()
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Exit) and event.room == room:
            left.add(event.agent)
        if not isinstance(event, Enter) or event.room != room:
            continue
        for agent in event.agents:
            if agent not in chain:
                return (
                    f"third-party entry: {agent} entered the {room} (line {line}); ToMi's oracle "
                    f"applies that entry after the story and counts {chain[0]} and {chain[1]} as "
                    "seeing each other learn the final location"
                )
            if agent in entered:
                other = chain[1] if agent == chain[0] else chain[0]
                absent = " after " + other + " had left" if other in left else ""
                return (
                    f"re-entry: {agent} re-entered the {room} (line {line}){absent}; ToMi's "
                    f"oracle counts {other} as knowing {agent} saw the object there"
                )
            entered.add(agent)
    return "unexplained"
