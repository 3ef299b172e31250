"""The world state after each step, and what each event lets each agent perceive.

Both verifiers read these percepts; each propagates beliefs its own way. Agent sets are bit
masks over the story's agents (bit ``i`` = ``story.agents[i]``), which keeps the inner loops of
both verifiers cheap.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tomflywheel.world.model import (
    INTENT,
    LOCATION,
    Claim,
    Distract,
    Enter,
    Exit,
    Fact,
    Look,
    Move,
    Place,
    Read,
    SetState,
    Story,
    Witness,
    intent_subject,
    intent_value,
)
from tomflywheel.world.physics._profiles import Profile


# Percepts are the hottest records (tens per walk, many walks per story): plain slotted
# dataclasses are built five times faster than frozen ones. Treat them as immutable.
@dataclass(slots=True)
class Observation:
    """Facts seen at one step: by ``actual`` agents, and by ``common`` as all present believe."""

    step: int
    """Index of the event in the story."""
    line: int
    """Printed line of the event."""
    facts: tuple[tuple[Fact, str], ...]
    """Each fact seen and its value."""
    actual: int
    """Mask of the agents who really see it."""
    common: int
    """Mask of the agents everyone present thinks see it (a secret witness is not in it, a
    distracted agent is)."""
    present: int = 0
    """Of a move: who could see it before the hide target looked away (for motive edits)."""
    secret: int = 0
    """Of a move: its secret witnesses."""
    missed: int = 0
    """Of a move: its distracted agents."""


@dataclass(slots=True)
class Hearing:
    """A claim, a tell, or a label read: who hears it and how long each stayed in its room."""

    step: int
    """Index of the event in the story."""
    line: int
    """Printed line of the event."""
    fact: Fact
    """The fact claimed."""
    value: str
    """The value claimed."""
    speaker: int
    """Index of the speaking agent, or -1 for a label or note."""
    hearers: int
    """Mask of the agents who hear it."""
    public: bool
    """A public claim (everyone but the speaker hears it)."""
    presence_end: tuple[float, ...]
    """Per agent: ``inf`` if in the fact's room now, else the line it last left it (``-inf``
    if never there). A listener with first-hand knowledge trusts a speaker who stayed later."""


Percept = Observation | Hearing


@dataclass(slots=True)
class WorldState:
    """The true state while stepping through a story."""

    room_of: dict[str, str | None] = field(default_factory=dict)
    """Where each agent is (None: nowhere in particular)."""
    left_at: dict[tuple[str, str], int] = field(default_factory=dict)
    """(agent, room) -> line the agent last left the room."""
    container_room: dict[str, str] = field(default_factory=dict)
    """Container -> its room."""
    facts: dict[Fact, str] = field(default_factory=dict)
    """Fact -> true value."""
    first: dict[Fact, str] = field(default_factory=dict)
    """Fact -> its first value (for memory questions)."""
    moves_by: dict[str, int] = field(default_factory=dict)
    """Agent -> how many moves it made so far."""
    room_mask: dict[str, int] = field(default_factory=dict)
    """Room -> mask of the (known) agents in it."""


def fact_room(state: WorldState, fact: Fact) -> str | None:
    """The room a fact lives in: its object's container's room, or its container's room."""
    subject, attribute = fact
    if attribute == LOCATION:
        container = state.facts.get(fact)
        return state.container_room.get(container) if container else None
    return state.container_room.get(subject)


class _Sim:
    """One pass over a story; ``run`` returns the percepts."""

    def __init__(self, story: Story, profile: Profile) -> None:
        self.agents = story.agents
        self.index = {agent: i for i, agent in enumerate(self.agents)}
        self.bits = {agent: 1 << i for i, agent in enumerate(self.agents)}
        self.everyone = (1 << len(self.agents)) - 1
        self.profile = profile
        self.state = WorldState()
        self.out: list[Percept] = []
        self.witness = 0
        self.distracted = 0

    def bit(self, agent: str | None) -> int:
        return self.bits.get(agent, 0) if agent is not None else 0

    def move_to(self, agent: str, room: str | None, line: int) -> None:
        state = self.state
        where = state.room_of.get(agent)
        if where == room:
            return
        bit = self.bit(agent)
        if where is not None:
            state.left_at[(agent, where)] = line
            state.room_mask[where] = state.room_mask.get(where, 0) & ~bit
        state.room_of[agent] = room
        if room is not None:
            state.room_mask[room] = state.room_mask.get(room, 0) | bit

    def run(self, story: Story) -> list[Percept]:
        handlers: dict[str, Callable[[Any, int, int], None]] = {
            "enter": self.enter,
            "exit": self.exit,
            "witness": self.witnessed,
            "distract": self.distract,
            "place": self.action,
            "move": self.action,
            "state": self.action,
            "claim": self.claim,
            "read": self.read,
            "look": self.look,
        }
        for step, (event, line) in enumerate(zip(story.events, story.lines, strict=True)):
            handler = handlers.get(event.type)
            if handler is not None:
                handler(event, step, line)
        return self.out

    def enter(self, event: Enter, step: int, line: int) -> None:
        state = self.state
        for agent in event.agents:
            self.move_to(agent, event.room, line)
        if not self.profile.entry_observes:
            return
        seen = tuple(
            (fact, value)
            for fact, value in state.facts.items()
            if fact[1] == LOCATION and state.container_room.get(value) == event.room
        )
        if seen:
            present = state.room_mask.get(event.room, 0)
            self.out.append(Observation(step, line, seen, present, present))

    def exit(self, event: Exit, step: int, line: int) -> None:
        if self.state.room_of.get(event.agent) == event.room:
            self.move_to(event.agent, None, line)

    def witnessed(self, event: Witness, step: int, line: int) -> None:
        self.witness |= self.bit(event.agent)

    def distract(self, event: Distract, step: int, line: int) -> None:
        self.distracted |= self.bit(event.agent)

    def action(self, event: Place | Move | SetState, step: int, line: int) -> None:
        state = self.state
        if event.type == "move":
            fact = (event.obj, LOCATION)  # type: ignore[union-attr]
            room = fact_room(state, fact) or state.room_of.get(event.agent)  # type: ignore[arg-type]
            if room is not None:
                state.container_room.setdefault(event.container, room)  # type: ignore[union-attr]
            value = event.container  # type: ignore[union-attr]
        elif event.type == "place":
            fact = (event.obj, LOCATION)  # type: ignore[union-attr]
            room = event.room  # type: ignore[union-attr]
            state.container_room[event.container] = room  # type: ignore[union-attr]
            value = event.container  # type: ignore[union-attr]
        else:
            fact = (event.subject, event.attribute)  # type: ignore[union-attr]
            room = event.room  # type: ignore[union-attr]
            state.container_room.setdefault(event.subject, room)  # type: ignore[union-attr]
            value = event.value  # type: ignore[union-attr]
        state.facts[fact] = value
        if fact not in state.first:
            state.first[fact] = value
        seen: tuple[tuple[Fact, str], ...] = ((fact, value),)
        common = state.room_mask.get(room, 0) if room is not None else 0
        if self.profile.mover_always_witnesses:
            common |= self.bit(event.agent)
        present = common
        if isinstance(event, Move):
            occurrence = state.moves_by.get(event.agent, 0)
            state.moves_by[event.agent] = occurrence + 1
            motive = intent_value(event.help, event.hide)
            seen = (*seen, ((intent_subject(event.agent, occurrence), INTENT), motive))
            if self.profile.hide_target_blind:
                common &= ~self.bit(event.hide)
        actual = (common & ~self.distracted) | self.witness
        self.out.append(
            Observation(step, line, seen, actual, common, present, self.witness, self.distracted)
        )
        self.witness = self.distracted = 0

    def claim(self, event: Claim, step: int, line: int) -> None:
        fact = (event.subject, event.attribute)
        speaker = self.index.get(event.speaker, -1)
        own = 1 << speaker if speaker >= 0 else 0
        if event.listener is None:
            hearers = self.everyone & ~own
        else:
            hearers = self.bit(event.listener) & ~own  # no one tells oneself
        ends = self.presence_end(fact_room(self.state, fact))
        self.out.append(
            Hearing(step, line, fact, event.value, speaker, hearers, event.listener is None, ends)
        )

    def read(self, event: Read, step: int, line: int) -> None:
        fact = (event.subject, event.attribute)
        ends = self.presence_end(fact_room(self.state, fact))
        hearing = Hearing(step, line, fact, event.value, -1, self.bit(event.agent), False, ends)
        self.out.append(hearing)

    def look(self, event: Look, step: int, line: int) -> None:
        fact = (event.subject, event.attribute)
        bit = self.bit(event.agent)
        if fact in self.state.facts and bit:
            value = self.state.facts[fact]
            self.out.append(Observation(step, line, ((fact, value),), bit, bit))

    def presence_end(self, room: str | None) -> tuple[float, ...]:
        if room is None:
            return (-math.inf,) * len(self.agents)
        state = self.state
        inside = state.room_mask.get(room, 0)
        left = state.left_at
        return tuple(
            math.inf if inside >> i & 1 else float(left.get((agent, room), -math.inf))
            for i, agent in enumerate(self.agents)
        )


def percepts(story: Story, profile: Profile) -> tuple[list[Percept], WorldState]:
    """Step through the story; return every percept in order and the final world state."""
    sim = _Sim(story, profile)
    return sim.run(story), sim.state
