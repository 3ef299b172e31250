"""The tgtom search's bit-mask model against a plain re-reading of its rules, edit by edit."""

from __future__ import annotations

import itertools

import pytest

from tomflywheel._rng import rng_for
from tomflywheel.world.generators._tgtom_fast import FastModel
from tomflywheel.world.generators._tgtom_story import TgtomStoryParams, tgtom_story
from tomflywheel.world.model import (
    Claim,
    DropMove,
    Edit,
    Exit,
    Move,
    Place,
    ReplaceClaim,
    SetExits,
    Story,
)

_NEVER = 10**9


def _records(story: Story, edit: Edit | None) -> list[tuple[str, set[str]]]:
    """Each placement, move and claim left by the edit: (its value, the agents it reaches).

    Rules 1-6 of tgtom under the default profile, read literally: whoever is still in the room
    sees a placement or move (the mover always, the one it hides from never); a claim reaches a
    hearer who left before the speaker.
    """
    pairs = zip(story.events, story.lines, strict=True)
    exits = {event.agent: line for event, line in pairs if isinstance(event, Exit)}
    if isinstance(edit, SetExits):
        exits.update(dict(edit.exits))
    out = []
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Place | Move):
            if isinstance(edit, DropMove) and isinstance(event, Move) and line == edit.line:
                continue
            seen = {a for a in story.agents if exits.get(a, _NEVER) > line}
            if isinstance(event, Move):
                seen = (seen | {event.agent}) - {event.hide}
            out.append((event.container, seen))
        elif isinstance(event, Claim):
            value = event.value
            if isinstance(edit, ReplaceClaim) and line == edit.line:
                value = edit.value
            hearers = [event.listener] if event.listener else story.agents
            speaker_left = exits.get(event.speaker, _NEVER)
            heard = {
                a for a in hearers if a != event.speaker and speaker_left > exits.get(a, _NEVER)
            }
            out.append((value, heard))
    return out


def _belief(records: list[tuple[str, set[str]]], chain: tuple[str, ...]) -> str | None:
    for value, reached in reversed(records):
        if set(chain) <= reached:
            return value
    return None


def _common_knowledge(records: list[tuple[str, set[str]]], group: tuple[str, ...]) -> object:
    own = {_belief(records, (agent,)) for agent in group}
    shared = _belief(records, group)
    if len(own) == 1 and shared is not None and shared in own:
        return {"common_knowledge": True, "shared_location": shared}
    return {"common_knowledge": False, "shared_location": None}


def _edits(story: Story) -> list[Edit | None]:
    pairs = list(zip(story.events, story.lines, strict=True))
    moves = [line for event, line in pairs if isinstance(event, Move)]
    claims = [line for event, line in pairs if isinstance(event, Claim)]
    exits = {event.agent: line for event, line in pairs if isinstance(event, Exit)}
    edits: list[Edit | None] = [None, *(DropMove(line) for line in moves)]
    edits += [ReplaceClaim(line, "red_box") for line in claims]
    for a, b in itertools.combinations(sorted(exits), 2):
        edits.append(SetExits(((a, exits[b]), (b, exits[a]))))
    for agent, line in itertools.product(sorted(exits), (3, 9, story.lines[-1] - 1)):
        edits.append(SetExits(((agent, line),)))
    return edits


@pytest.mark.parametrize("index", range(12))
def test_fast_model_answers_as_the_rules_read_plainly(index: int):
    story = tgtom_story(TgtomStoryParams(seed=5), index)
    fast = FastModel(story)
    rng = rng_for("test-fast-model", index)
    agents = list(story.agents)
    for edit in _edits(story):
        records = _records(story, edit)
        chains = [(a,) for a in agents] + [tuple(rng.sample(agents, k)) for k in (2, 3, 5) * 3]
        for chain in chains:
            assert fast.belief(chain, edit) == _belief(records, chain), (edit, chain)
        assert fast.first_order(edit) == [_belief(records, (a,)) for a in agents], edit
        expected = [_belief(records, tuple(a for a in agents if a != out)) for out in agents]
        assert fast.all_but_one(edit) == expected, edit
        if isinstance(edit, SetExits) and len(edit.exits) == 2:  # a swap, as Q10 scores it
            (a, _), (b, _) = edit.exits
            assert fast.all_but_one_swapped(a, b) == expected, edit
        for group in (tuple(rng.sample(agents, k)) for k in (3, 4, 4, 5)):
            assert fast.common_knowledge(group, edit) == _common_knowledge(records, group)
            if edit is not None:
                changed = _common_knowledge(records, group) != _common_knowledge(
                    _records(story, None), group
                )
                assert fast.ck_changes(group, edit) == changed, (edit, group)
