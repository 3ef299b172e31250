"""Imported Hi-ToM samples as check items (with the twin's gold), and causes of residuals."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.world.checks._item import CheckItem, Unparsed, meta_field, unparsed, with_stories
from tomflywheel.world.language import parse_question
from tomflywheel.world.model import Claim, Enter, Move, Place, Story
from tomflywheel.world.physics import Observation, Profile
from tomflywheel.world.verifiers import build_graph, describe_event


def hitom_items(samples: Iterable[Sample]) -> Iterator[CheckItem | Unparsed]:
    """The check items of imported Hi-ToM samples, each with its twin's gold (``meta.twin_gold``).

    The CoTP and VP golds of one question disagree on 138 pairs; the imported style is the
    benchmark, the twin's gold only helps explain a mismatch. A story or question that does not
    parse gives an :class:`Unparsed` record.

    Raises:
        DataError: A meta field is missing.
    """
    for sample, story in with_stories(samples, "hitom"):
        deception = "deception" if meta_field(sample, "deception") else "no_deception"
        qtype = f"order_{meta_field(sample, 'order')}_{deception}"
        story_id = str(meta_field(sample, "source_id"))
        try:
            if isinstance(story, DataError):
                raise story
            spec = parse_question(sample.question, "hitom", story, source=sample.id)
        except DataError as err:
            yield unparsed(sample, story_id, qtype, err)
            continue
        yield CheckItem(
            story_id,
            qtype,
            sample.question,
            story,
            spec,
            sample.answer.correct_answers[0],
            meta_field(sample, "twin_gold"),
        )


def _setters(story: Story, obj: str, value: str) -> list[tuple[int, str]]:
    """(line, sentence) of every event that put or claimed ``obj`` in ``value``."""
    found = []
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Place | Move | Claim):
            found.append((line, describe_event(event))) if _sets(event, obj, value) else None
    return found


def _sets(event: Place | Move | Claim, obj: str, value: str) -> bool:
    if isinstance(event, Claim):
        return event.subject == obj and event.value == value
    return event.obj == obj and event.container == value


def hitom_cause(item: CheckItem, derived: object, profile: Profile) -> str:
    """Explain why a Hi-ToM gold differs from the derived answer, from the story itself."""
    story, spec, gold = item.story, item.spec, str(item.gold)
    obj = spec.subject
    parts: list[str] = []
    if item.twin_gold is not None and item.twin_gold != item.gold:
        agree = " (the engine's answer)" if item.twin_gold == derived else ""
        parts.append(f"CoTP and VP golds contradict each other: VP says {item.twin_gold}{agree}")
    setters = _setters(story, obj, gold)
    if not setters:
        other = next(
            (
                event.obj
                for event in story.events
                if isinstance(event, Place | Move) and event.container == gold
            ),
            None,
        )
        what = f"a container of the {other}" if other else "a container never used"
        parts.append(f"gold names {what}, not a place the {obj} ever was")
        return "; ".join(parts)
    reentry = _reentry(story, obj, spec.chain)
    graph = build_graph(story, profile)
    anchor = graph.anchor(spec.chain, spec.fact)
    if reentry:
        parts.append(reentry)
    elif anchor is not None:
        step = graph.steps[anchor]
        event = story.events[step.step]
        seen = "saw it" if isinstance(step, Observation) else "heard and trust it"
        earlier = [line for line, _ in setters if line < step.line]
        if earlier:
            parts.append(
                f"gold is where the {obj} was before line {step.line} ({describe_event(event)}), "
                f"though every agent of the chain {seen}"
            )
        else:
            later = ", ".join(f"line {line} ({text})" for line, text in setters)
            parts.append(f"gold comes from {later}, which not every agent of the chain saw")
    return "; ".join(parts)


def _reentry(story: Story, obj: str, chain: tuple[str, ...]) -> str:
    room = None
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Place) and event.obj == obj:
            if room == event.room:
                return ""
            room = event.room
        elif isinstance(event, Enter) and event.room == room and set(chain) <= set(event.agents):
            return (
                f"the chain re-entered the {room} at line {line} and saw the {obj} there; "
                "the gold ignores that"
            )
    return ""
