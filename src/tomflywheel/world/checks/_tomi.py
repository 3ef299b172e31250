"""Imported ToMi samples as check items, and the ToMi conventions behind their gaps."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.world.checks._item import CheckItem, Unparsed, meta_field, unparsed, with_stories
from tomflywheel.world.language import parse_question
from tomflywheel.world.model import Answer, Claim, Enter, Exit, Place
from tomflywheel.world.physics import Profile


def tomi_items(samples: Iterable[Sample]) -> Iterator[CheckItem | Unparsed]:
    """The check items of imported ToMi samples (question types from ``meta.question_type``).

    A story or question that does not parse gives an :class:`Unparsed` record (with the file
    line of the sentence, from ``meta.source_line``).

    Raises:
        DataError: ``meta.question_type`` is missing.
    """
    for sample, story in with_stories(samples, "tomi"):
        qtype = str(meta_field(sample, "question_type"))
        try:
            if isinstance(story, DataError):
                raise story
            spec = parse_question(sample.question, "tomi", story, source=sample.id)
        except DataError as err:
            yield unparsed(sample, sample.id, qtype, err, source_line=_file_line(sample, err))
            continue
        gold = sample.answer.correct_answers[0]
        yield CheckItem(sample.id, qtype, sample.question, story, spec, gold)


def _file_line(sample: Sample, error: DataError) -> int | None:
    """The file line of the story line that failed: the question line minus the lines between."""
    question_line = sample.meta.get("source_line")
    if not isinstance(question_line, int):
        return None
    if error.field == "question":
        return question_line
    if error.line is None:
        return None
    return question_line - len(sample.story.splitlines()) - 1 + error.line


def tomi_cause(item: CheckItem, derived: Answer, profile: Profile) -> str:
    """Name the ToMi convention behind a gap between its gold and the principled default.

    ``derived`` and ``profile`` are unused: the story alone shows the convention.
    """
    story, chain = item.story, item.spec.chain
    places = [event for event in story.events if isinstance(event, Place)]
    if len(chain) != 2 or not places:
        return "unexplained"
    for event, line in zip(story.events, story.lines, strict=True):
        if (
            isinstance(event, Claim)
            and (event.listener, event.speaker) == chain
            and event.value == item.gold
        ):
            return (
                f"tell: {event.speaker} told {event.listener} where the {event.subject} is "
                f"(line {line}); ToMi's oracle also has {event.listener} think {event.speaker} "
                "believes it, the engine's claim rules do not"
            )
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
