"""Shortcuts: the percepts of an edited story from the original's, when an edit allows it.

Counterfactual questions re-derive beliefs on edited stories; walking each edited story again
is the slow part of checking them. A claim changes nothing in the world, a motive only who sees
one move, and a dropped move nothing else when nothing later shows where it put the object, so
for those edits the original percepts are patched instead. A property test checks every
shortcut against walking the edited story.
"""

from __future__ import annotations

from dataclasses import replace

from tomflywheel.world.model import (
    INTENT,
    LOCATION,
    Distract,
    DropMove,
    Edit,
    Enter,
    Look,
    Move,
    Place,
    ReplaceClaim,
    SetMotive,
    SetState,
    Story,
    Witness,
    intent_subject,
    intent_value,
)
from tomflywheel.world.physics._percepts import Hearing, Observation, Percept, WorldState
from tomflywheel.world.physics._profiles import Profile


def edit_percepts(
    found: tuple[list[Percept], WorldState],
    original: Story,
    edit: Edit,
    profile: Profile,
) -> tuple[list[Percept], WorldState] | None:
    """The percepts of ``edit.apply(original)`` from the original's, when the edit allows it.

    A claim changes nothing in the world, so replacing its value only changes its hearing; a
    motive changes only who sees that move and its intent; a dropped move changes nothing else
    when nothing later shows where it put the object. Other cases return None: the edited
    story must be walked again.
    """
    steps, world = found
    if isinstance(edit, ReplaceClaim):
        out = list(steps)
        for i, item in enumerate(steps):
            if isinstance(item, Hearing) and item.line == edit.line and item.speaker >= 0:
                out[i] = Hearing(
                    item.step,
                    item.line,
                    item.fact,
                    edit.value,
                    item.speaker,
                    item.hearers,
                    item.public,
                    item.presence_end,
                )
        return out, world
    if isinstance(edit, SetMotive):
        index = {agent: i for i, agent in enumerate(original.agents)}
        out = []
        for item in steps:
            event = original.events[item.step]
            if isinstance(item, Observation) and item.line == edit.line and isinstance(event, Move):
                common = item.present
                if profile.hide_target_blind and edit.hide in index:
                    common &= ~(1 << index[edit.hide])
                motive = intent_value(edit.help, edit.hide)
                facts = tuple(
                    (fact, motive if fact[1] == INTENT else value) for fact, value in item.facts
                )
                actual = (common & ~item.missed) | item.secret
                item = replace(item, facts=facts, actual=actual, common=common)
            out.append(item)
        return out, world
    if isinstance(edit, DropMove):
        return _drop_move(found, original, edit)
    return None  # moved exits change presence everywhere: walking again is as fast


def _shifted(item: Percept) -> Percept:
    """The percept one event earlier (an event before it was dropped)."""
    if isinstance(item, Observation):
        return Observation(
            item.step - 1,
            item.line,
            item.facts,
            item.actual,
            item.common,
            item.present,
            item.secret,
            item.missed,
        )
    return Hearing(
        item.step - 1,
        item.line,
        item.fact,
        item.value,
        item.speaker,
        item.hearers,
        item.public,
        item.presence_end,
    )


def _drop_move(
    found: tuple[list[Percept], WorldState], original: Story, edit: DropMove
) -> tuple[list[Percept], WorldState] | None:
    """Drop one move's observation when nothing later depends on where it put the object.

    Safe when exactly one move is dropped, it had no secret witness or distraction pending,
    the object had a value before it, both containers were placed in the story's one room
    before it, and no later entry or look shows that object; later
    event indices shift by one and the mover's later moves are renumbered.
    """
    steps, world = found
    events = original.events
    dropped = [
        i for i, e in enumerate(events) if isinstance(e, Move) and original.lines[i] == edit.line
    ]
    if len(dropped) != 1:
        return None
    event_index = dropped[0]
    move = events[event_index]
    assert isinstance(move, Move)
    placed = {e.container for e in events[:event_index] if isinstance(e, Place)}
    if move.container not in placed:
        return None  # the usual reason, so tested first (the test below repeats it)
    for earlier in range(event_index - 1, -1, -1):
        if isinstance(events[earlier], Place | Move | SetState):
            break
        if isinstance(events[earlier], Witness | Distract):
            return None  # it would apply to the next action instead
    if len({e.room for e in events if isinstance(e, Place | SetState)}) != 1:
        return None  # a move could change the object's room
    fact = (move.obj, LOCATION)
    position = next(i for i, item in enumerate(steps) if item.step == event_index)
    setters = [
        i
        for i, item in enumerate(steps)
        if isinstance(item, Observation)
        and isinstance(events[item.step], Place | Move | SetState)
        and item.facts[0][0] == fact
    ]
    if setters[0] == position:
        return None  # the first value would change
    previous = steps[max(i for i in setters if i < position)].facts[0][1]  # type: ignore[union-attr]
    if not {move.container, previous} <= placed:
        return None  # a move fixes an unplaced container's room, which other objects may share
    for item in steps[position + 1 :]:
        if (
            isinstance(item, Observation)
            and isinstance(events[item.step], Enter | Look)
            and any(seen == fact for seen, _ in item.facts)
        ):
            return None  # an entry or a look shows the object later
    out: list[Percept] = []
    for i, item in enumerate(steps):
        if i == position:
            continue
        if i > position:
            later = events[item.step]
            if isinstance(later, Move) and later.agent == move.agent:
                assert isinstance(item, Observation)
                (key, value), (motive_key, motive) = item.facts
                count = int(motive_key[0].rpartition("#")[2]) - 1
                renumbered = ((intent_subject(move.agent, count), INTENT), motive)
                item = replace(item, facts=((key, value), renumbered))
            item = _shifted(item)
        out.append(item)
    last = max(i for i in setters if i != position)
    final = steps[last].facts[0][1]  # type: ignore[union-attr]
    return out, replace(world, facts={**world.facts, fact: final})
