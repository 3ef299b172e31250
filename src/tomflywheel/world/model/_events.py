"""The event model: agents, rooms, containers and objects, and the events a story is made of.

Events are frozen, slotted dataclasses (hot inner data); a :class:`Story` is a tuple of events
with the printed line number of each. Every event converts to and from a plain JSON dict
(``{"type": "move", "agent": ..., ...}``), so a story round-trips exactly through
``meta.trace``.

Facts. A belief is about a *fact*, keyed ``(subject, attribute)``: the location of an object is
``(obj, "location")`` (its value a container), and a container's contents are
``(container, "contents")`` (used by the Kosinski-style unexpected-contents stories).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeAlias

LOCATION = "location"
"""The attribute of an object's location fact."""
CONTENTS = "contents"
"""The attribute of a container's contents fact."""

Fact: TypeAlias = tuple[str, str]
"""A fact key: ``(subject, attribute)``."""


@dataclass(frozen=True, slots=True)
class Enter:
    """Agents enter a room (together); they see what is in it, and those present see them."""

    agents: tuple[str, ...]
    room: str
    type: ClassVar[str] = "enter"


@dataclass(frozen=True, slots=True)
class Exit:
    """An agent leaves a room."""

    agent: str
    room: str
    type: ClassVar[str] = "exit"


@dataclass(frozen=True, slots=True)
class Place:
    """An object is (or is put) in a container of a room: "The apple is in the green_box"."""

    obj: str
    container: str
    room: str
    agent: str | None = None
    """Who put it there, when the story says so ("Maria put the bananas in the red_drawer")."""
    type: ClassVar[str] = "place"


@dataclass(frozen=True, slots=True)
class Move:
    """An agent moves an object to another container of the same room, maybe with a motive."""

    agent: str
    obj: str
    container: str
    help: str | None = None
    """The agent the move is meant to help find the object later."""
    hide: str | None = None
    """The agent the object is hidden from (who, present or not, does not see the move)."""
    type: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class Stay:
    """An agent stays in a room without doing anything (changes nothing)."""

    agent: str
    room: str
    type: ClassVar[str] = "stay"


@dataclass(frozen=True, slots=True)
class Claim:
    """A public claim (``listener`` None: everyone else hears it) or a private tell, true or not."""

    speaker: str
    subject: str
    value: str
    listener: str | None = None
    attribute: str = LOCATION
    type: ClassVar[str] = "claim"

    @property
    def public(self) -> bool:
        """True for a public claim, False for a private tell."""
        return self.listener is None


@dataclass(frozen=True, slots=True)
class Witness:
    """An agent secretly sees the next action (place, move or state change), present or not.

    Nobody else knows: others' models of this agent are unchanged.
    """

    agent: str
    type: ClassVar[str] = "witness"


@dataclass(frozen=True, slots=True)
class Distract:
    """A present agent misses the next action; the others still think it saw it."""

    agent: str
    type: ClassVar[str] = "distract"


@dataclass(frozen=True, slots=True)
class SetState:
    """A fact other than a location changes ("The bag is full of popcorn"); those present see it."""

    subject: str
    attribute: str
    value: str
    room: str
    agent: str | None = None
    type: ClassVar[str] = "state"


@dataclass(frozen=True, slots=True)
class Look:
    """An agent looks at a fact directly (opens a container, sees through it): first-hand."""

    agent: str
    subject: str
    attribute: str = CONTENTS
    transparent: bool = False
    """It sees through the container instead of opening it."""
    type: ClassVar[str] = "look"


@dataclass(frozen=True, slots=True)
class Read:
    """An agent reads a label or note about a fact; believed only without first-hand knowledge."""

    agent: str
    subject: str
    value: str
    attribute: str = CONTENTS
    type: ClassVar[str] = "read"


@dataclass(frozen=True, slots=True)
class Noise:
    """A distractor sentence that changes nothing ("Isla dislikes the hall")."""

    text: str
    agent: str | None = None
    mentions: tuple[str, ...] = ()
    """Containers (or objects) the sentence names, for diagnosing distractor answers."""
    type: ClassVar[str] = "noise"


Event: TypeAlias = (
    Enter | Exit | Place | Move | Stay | Claim | Witness | Distract | SetState | Look | Read | Noise
)
"""Any story event."""

EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Enter,
        Exit,
        Place,
        Move,
        Stay,
        Claim,
        Witness,
        Distract,
        SetState,
        Look,
        Read,
        Noise,
    )
}
"""Event classes by their ``type`` tag."""

ACTIONS = (Place, Move, SetState)
"""Events that change a fact (what a :class:`Witness` or :class:`Distract` applies to)."""


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(item.name for item in fields(cls))
    return names


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as a plain JSON dict: ``type`` first, then its fields (tuples become lists)."""
    out: dict[str, Any] = {"type": event.type}
    for name in _field_names(type(event)):
        value = getattr(event, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


_TUPLE_FIELDS = frozenset({"agents", "mentions"})


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Rebuild an event from :func:`event_to_dict` output.

    Raises:
        ValueError: Unknown type, missing or unexpected field.
    """
    kind = data.get("type")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    kwargs = dict(data)
    del kwargs["type"]
    for name in _TUPLE_FIELDS.intersection(kwargs):
        value = kwargs[name]
        if isinstance(value, list):
            kwargs[name] = tuple(value)
    try:
        return cls(**kwargs)
    except TypeError as err:
        extra = sorted(set(kwargs) - set(_field_names(cls)))
        if extra:
            raise ValueError(f"{kind} event: unexpected field(s) {extra}") from err
        raise ValueError(f"{kind} event: {err}") from err


@dataclass(frozen=True, slots=True)
class Story:
    """A story: its events in order, each with the printed line number of its sentence.

    Args:
        events: The events, in story order.
        lines: The 1-based line number of each event (same length as ``events``); several
            events may share a line only after a counterfactual edit.
        agents: The agents, in the order the story introduces them.
    """

    events: tuple[Event, ...]
    lines: tuple[int, ...] = ()
    agents: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.lines:
            object.__setattr__(self, "lines", tuple(range(1, len(self.events) + 1)))
        if len(self.lines) != len(self.events):
            raise ValueError("a story needs one line number per event")
        if not self.agents:
            object.__setattr__(self, "agents", agents_of(self.events))

    def objects(self) -> tuple[str, ...]:
        """Objects whose location the story tracks, in order of first placement."""
        seen: dict[str, None] = {}
        for event in self.events:
            if isinstance(event, Place | Move):
                seen.setdefault(event.obj, None)
        return tuple(seen)

    def containers(self) -> tuple[str, ...]:
        """Containers that hold (or are claimed to hold) an object, in order of appearance."""
        seen: dict[str, None] = {}
        for event in self.events:
            if isinstance(event, Place | Move):
                seen.setdefault(event.container, None)
            elif isinstance(event, Claim) and event.attribute == LOCATION:
                seen.setdefault(event.value, None)
        return tuple(seen)

    def rooms(self) -> tuple[str, ...]:
        """Rooms named by the story, in order of appearance."""
        seen: dict[str, None] = {}
        for event in self.events:
            room = getattr(event, "room", None)
            if room is not None:
                seen.setdefault(room, None)
        return tuple(seen)

    def to_dict(self) -> dict[str, Any]:
        """The story as plain JSON: ``{"agents": [...], "events": [...], "lines": [...]}``."""
        return {
            "agents": list(self.agents),
            "events": [event_to_dict(event) for event in self.events],
            "lines": list(self.lines),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Story:
        """Rebuild a story from :meth:`to_dict` output.

        Raises:
            ValueError: A malformed event or mismatched lines.
        """
        events = tuple(event_from_dict(item) for item in data.get("events", []))
        return cls(events, tuple(data.get("lines", ())), tuple(data.get("agents", ())))


def agents_of(events: Iterable[Event]) -> tuple[str, ...]:
    """Every agent an event names as actor, in order of first appearance."""
    seen: dict[str, None] = {}
    for event in events:
        if isinstance(event, Enter):
            for agent in event.agents:
                seen.setdefault(agent, None)
        elif isinstance(event, Claim):
            seen.setdefault(event.speaker, None)
            if event.listener is not None:
                seen.setdefault(event.listener, None)
        elif isinstance(event, Move):
            for name in (event.agent, event.help, event.hide):
                if name is not None:
                    seen.setdefault(name, None)
        else:
            actor: str | None = getattr(event, "agent", None)
            if actor is not None and not isinstance(event, Noise):
                seen.setdefault(actor, None)
    return tuple(seen)


def fact_of(event: Event) -> Fact | None:
    """The fact an action or claim is about, or None for other events."""
    if isinstance(event, Place | Move):
        return (event.obj, LOCATION)
    if isinstance(event, SetState):
        return (event.subject, event.attribute)
    if isinstance(event, Claim | Look | Read):
        return (event.subject, event.attribute)
    return None
