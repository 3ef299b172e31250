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
        # No None key, so that ``bits.get(name, 0)`` is 0 for "no agent" (a JSON null).
        self.bits = {agent: 1 << i for agent, i in self.index.items() if agent is not None}
        self.everyone = (1 << len(self.agents)) - 1
        self.profile = profile
        self.state = WorldState()
        self.out: list[Percept] = []
        self.witness = 0
        self.distracted = 0

    def run(self, story: Story) -> list[Percept]:
        handlers: dict[str, Callable[[Any, int, int], None]] = {
            "enter": self.enter,
            "exit": self.exit,
            "witness": self.witnessed,
            "distract": self.distract,
            "place": self.place,
            "move": self.move,
            "state": self.set_state,
            "claim": self.claim,
            "read": self.read,
            "look": self.look,
        }
        get = handlers.get
        for step, (event, line) in enumerate(zip(story.events, story.lines, strict=True)):
            handler = get(event.type)
            if handler is not None:
                handler(event, step, line)
        return self.out

    def enter(self, event: Enter, step: int, line: int) -> None:
        state = self.state
        room = event.room
        room_of, room_mask, bits = state.room_of, state.room_mask, self.bits
        for agent in event.agents:
            where = room_of.get(agent)
            if where == room:
                continue
            bit = bits.get(agent, 0)
            if where is not None:
                state.left_at[(agent, where)] = line
                room_mask[where] = room_mask.get(where, 0) & ~bit
            room_of[agent] = room
            if room is not None:
                room_mask[room] = room_mask.get(room, 0) | bit
        if not self.profile.entry_observes:
            return
        container_room = state.container_room
        seen = tuple(
            (fact, value)
            for fact, value in state.facts.items()
            if fact[1] == LOCATION and container_room.get(value) == room
        )
        if seen:
            present = state.room_mask.get(room, 0)
            self.out.append(Observation(step, line, seen, present, present))

    def exit(self, event: Exit, step: int, line: int) -> None:
        state = self.state
        agent = event.agent
        where = state.room_of.get(agent)
        if where is None or where != event.room:
            return
        room_mask = state.room_mask
        state.left_at[(agent, where)] = line
        room_mask[where] = room_mask.get(where, 0) & ~self.bits.get(agent, 0)
        state.room_of[agent] = None

    def witnessed(self, event: Witness, step: int, line: int) -> None:
        self.witness |= self.bits.get(event.agent, 0)

    def distract(self, event: Distract, step: int, line: int) -> None:
        self.distracted |= self.bits.get(event.agent, 0)

    def place(self, event: Place, step: int, line: int) -> None:
        self.state.container_room[event.container] = event.room
        fact = (event.obj, LOCATION)
        self.changed(step, line, event.agent, fact, event.container, event.room)

    def set_state(self, event: SetState, step: int, line: int) -> None:
        self.state.container_room.setdefault(event.subject, event.room)
        fact = (event.subject, event.attribute)
        self.changed(step, line, event.agent, fact, event.value, event.room)

    def move(self, event: Move, step: int, line: int) -> None:
        state = self.state
        fact = (event.obj, LOCATION)
        room = fact_room(state, fact) or state.room_of.get(event.agent)
        if room is not None:
            state.container_room.setdefault(event.container, room)
        occurrence = state.moves_by.get(event.agent, 0)
        state.moves_by[event.agent] = occurrence + 1
        motive = (
            (intent_subject(event.agent, occurrence), INTENT),
            intent_value(event.help, event.hide),
        )
        blind = self.bits.get(event.hide, 0) if self.profile.hide_target_blind else 0
        self.changed(step, line, event.agent, fact, event.container, room, motive, blind)

    def changed(
        self,
        step: int,
        line: int,
        agent: str | None,
        fact: Fact,
        value: str,
        room: str | None,
        motive: tuple[Fact, str] | None = None,
        blind: int = 0,
    ) -> None:
        """A fact set by a place, move or state change; a move also shows its motive."""
        state = self.state
        state.facts[fact] = value
        if fact not in state.first:
            state.first[fact] = value
        common = state.room_mask.get(room, 0) if room is not None else 0
        if self.profile.mover_always_witnesses:
            common |= self.bits.get(agent, 0)
        present = common
        if motive is None:
            seen: tuple[tuple[Fact, str], ...] = ((fact, value),)
        else:
            seen = ((fact, value), motive)
            common &= ~blind
        witness, distracted = self.witness, self.distracted
        actual = (common & ~distracted) | witness
        self.out.append(Observation(step, line, seen, actual, common, present, witness, distracted))
        self.witness = self.distracted = 0

    def claim(self, event: Claim, step: int, line: int) -> None:
        fact = (event.subject, event.attribute)
        speaker = self.index.get(event.speaker, -1)
        own = 1 << speaker if speaker >= 0 else 0
        if event.listener is None:
            hearers = self.everyone & ~own
        else:
            hearers = self.bits.get(event.listener, 0) & ~own  # no one tells oneself
        ends = self.presence_end(fact_room(self.state, fact))
        self.out.append(
            Hearing(step, line, fact, event.value, speaker, hearers, event.listener is None, ends)
        )

    def read(self, event: Read, step: int, line: int) -> None:
        fact = (event.subject, event.attribute)
        ends = self.presence_end(fact_room(self.state, fact))
        hearing = Hearing(
            step, line, fact, event.value, -1, self.bits.get(event.agent, 0), False, ends
        )
        self.out.append(hearing)

    def look(self, event: Look, step: int, line: int) -> None:
        fact = (event.subject, event.attribute)
        bit = self.bits.get(event.agent, 0)
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
            [
                math.inf if inside >> i & 1 else float(left.get((agent, room), -math.inf))
                for i, agent in enumerate(self.agents)
            ]
        )


def percepts(story: Story, profile: Profile) -> tuple[list[Percept], WorldState]:
    """Step through the story; return every percept in order and the final world state."""
    sim = _Sim(story, profile)
    return sim.run(story), sim.state
