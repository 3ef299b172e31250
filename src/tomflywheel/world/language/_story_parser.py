"""Story parsers: ToMi, Hi-ToM and tgtom sentences (and everything the renderer writes) to events.

A story is numbered lines (``"3 Aria moved the grapefruit to the blue_container."``, as in all
three benchmarks) or plain sentences (numbered 1, 2, ... here). Lines before the first numbered
one (Hi-ToM's instruction line) and ``***`` separators are skipped. A sentence that matches no
template raises :class:`~tomflywheel.errors.DataError` naming it.

The room of an unattributed placement ("The apple is in the box.") is not written: it is the
room where most agents are at that point (ties: the room entered last). Two ToMi sentences
leave a value implicit too, read from where the story has put each object so far: "A looked in
the box." is a look at every object in the box (nothing in it: a sentence that changes no
fact, as ToMi's oracle has it), and "A told B where the apple is." is a private tell of the
apple's true container.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from tomflywheel.errors import DataError
from tomflywheel.world.language._phrases import MOTIVES, NOISE_PATTERNS, PARSE_ONLY, PHRASES
from tomflywheel.world.model import (
    CONTENTS,
    LOCATION,
    Claim,
    Distract,
    Enter,
    Event,
    Exit,
    Look,
    Move,
    Noise,
    Place,
    Read,
    SetState,
    Stay,
    Story,
    Witness,
)

Grammar = Literal["tomi", "hitom", "tgtom"]
"""The benchmark sentence grammars (each parser also reads the renderer's phrasings)."""

NAME = r"[A-Z][A-Za-z'\-]*"
TOKEN = r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*"
"""An object, container or room name: ``green_bucket``, ``TV_room``, ToMi's ``t-shirt``."""
_FIELDS = {
    "agent": NAME,
    "speaker": NAME,
    "listener": NAME,
    "help": NAME,
    "hide": NAME,
    "agents": rf"{NAME}(?:, {NAME})*(?:,? and {NAME})?",
    "room": TOKEN,
    "obj": TOKEN,
    "container": TOKEN,
    "subject": TOKEN,
    "value": TOKEN,
    "mention": TOKEN,
}
_NUMBERED = re.compile(r"^\s*(\d+)\s+(.*?)\s*$")


def _compile(template: str, tail: str = "") -> re.Pattern[str]:
    pattern = re.escape(template)
    for name, regex in _FIELDS.items():
        pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>{regex})")
    return re.compile(pattern + tail)


def _motive_tail() -> str:
    options: list[str] = []
    for help_only, hide_only, both in MOTIVES:
        for clause in (both, help_only, hide_only):
            body = re.escape(clause)
            body = body.replace(re.escape("{help}"), f"(?P<help{len(options)}>{NAME})")
            body = body.replace(re.escape("{hide}"), f"(?P<hide{len(options)}>{NAME})")
            options.append(body)
    return "(?:" + "|".join(options) + r")?(?: later)?\."


@dataclass(slots=True)
class _State:
    room_of: dict[str, str | None] = field(default_factory=dict)
    last_room: str | None = None
    container_of: dict[str, str] = field(default_factory=dict)
    """Object -> the container the story last put it in."""

    def busiest_room(self) -> str | None:
        counts: dict[str, int] = {}
        for room in self.room_of.values():
            if room is not None:
                counts[room] = counts.get(room, 0) + 1
        if not counts:
            return self.last_room
        best = max(counts.values())
        rooms = [room for room, count in counts.items() if count == best]
        return self.last_room if self.last_room in rooms else sorted(rooms)[0]


Built = Event | tuple[Event, ...]
Builder = Callable[[dict[str, str | None], _State], Built]


class _Unmapped(ValueError):
    """A sentence matched a template but the story so far cannot fill in what it implies."""


def _names(text: str) -> tuple[str, ...]:
    parts = re.split(r",? and |, ", text)
    return tuple(part for part in parts if part)


def _enter(g: dict[str, str | None], state: _State) -> Event:
    # "{agent} is in the {room}." (ToMi) is an agent there from the start: an entry.
    agents = _names(g.get("agents") or g.get("agent") or "")
    for agent in agents:
        state.room_of[agent] = g["room"]
    state.last_room = g["room"]
    return Enter(agents, g["room"] or "")


def _exit(g: dict[str, str | None], state: _State) -> Event:
    state.room_of[g["agent"] or ""] = None
    return Exit(g["agent"] or "", g["room"] or "")


def _place(g: dict[str, str | None], state: _State) -> Event:
    agent = g.get("agent")
    room = g.get("room") or (state.room_of.get(agent) if agent else state.busiest_room())
    state.container_of[g["obj"] or ""] = g["container"] or ""
    return Place(g["obj"] or "", g["container"] or "", room or "", agent)


def _state(g: dict[str, str | None], state: _State) -> Event:
    agent = g.get("agent")
    room = g.get("room") or (state.room_of.get(agent) if agent else state.busiest_room())
    return SetState(g["subject"] or "", CONTENTS, g["value"] or "", room or "", agent)


def _claim(attribute: str) -> Builder:
    def build(g: dict[str, str | None], state: _State) -> Event:
        return Claim(
            g["speaker"] or "", g["subject"] or "", g["value"] or "", g.get("listener"), attribute
        )

    return build


def _move(g: dict[str, str | None], state: _State) -> Event:
    helps = [value for key, value in g.items() if key.startswith("help") and value]
    hides = [value for key, value in g.items() if key.startswith("hide") and value]
    state.container_of[g["obj"] or ""] = g["container"] or ""
    return Move(
        g["agent"] or "",
        g["obj"] or "",
        g["container"] or "",
        helps[0] if helps else None,
        hides[0] if hides else None,
    )


def _look_in(g: dict[str, str | None], state: _State) -> Built:
    """ToMi's peek: the agent alone sees where each object in the container is."""
    agent, container = g["agent"] or "", g["container"] or ""
    inside = [obj for obj, where in state.container_of.items() if where == container]
    if not inside:  # ToMi's oracle then changes no belief
        return Noise(f"{agent} looked in the {container}.", agent, (container,))
    return tuple(Look(agent, obj, LOCATION) for obj in inside)


def _tell_where(g: dict[str, str | None], state: _State) -> Event:
    """ToMi's tell: the listener is told the object's true container (a private claim)."""
    obj = g["subject"] or ""
    if obj not in state.container_of:
        raise _Unmapped(f"the story has not said where the {obj} is before this tell")
    return Claim(g["speaker"] or "", obj, state.container_of[obj], g["listener"], LOCATION)


_BUILDERS: dict[str, Builder] = {
    "enter": _enter,
    "exit": _exit,
    "place": _place,
    "place_room": _place,
    "place_by": _place,
    "place_by_room": _place,
    "stay": lambda g, s: Stay(g["agent"] or "", g["room"] or ""),
    "claim_public": _claim("location"),
    "claim_private": _claim("location"),
    "claim_public_contents": _claim(CONTENTS),
    "claim_private_contents": _claim(CONTENTS),
    "witness": lambda g, s: Witness(g["agent"] or ""),
    "distract": lambda g, s: Distract(g["agent"] or ""),
    "state": _state,
    "state_room": _state,
    "state_by": _state,
    "state_by_room": _state,
    "look": lambda g, s: Look(g["agent"] or "", g["subject"] or ""),
    "look_through": lambda g, s: Look(g["agent"] or "", g["subject"] or "", transparent=True),
    "read": lambda g, s: Read(g["agent"] or "", g["subject"] or "", g["value"] or ""),
    "look_in": _look_in,
    "look_for": lambda g, s: Look(g["agent"] or "", g["subject"] or "", LOCATION),
    "located": _enter,
    "tell_where": _tell_where,
}


@functools.cache  # compiled on first parse: generating stories never parses one
def _rules() -> list[tuple[re.Pattern[str], Builder | None]]:
    rules: list[tuple[re.Pattern[str], Builder | None]] = []
    tail = _motive_tail()
    # The benchmarks' and renderer's wordings first, then the parse-only ones of other keys.
    keys = [*PHRASES, *(key for key in PARSE_ONLY if key not in PHRASES)]
    for key in keys:
        for template in (*PHRASES.get(key, ()), *PARSE_ONLY.get(key, ())):
            if key == "move":
                rules.append((_compile(template, tail), _move))
            else:
                rules.append((_compile(template), _BUILDERS[key]))
    for pattern in NOISE_PATTERNS:
        filled = pattern.replace("{agent}", f"(?P<agent>{NAME})")
        rules.append((re.compile(filled.replace("{mention}", f"(?P<mention>{TOKEN})")), None))
    return rules


def _sentence(text: str, pos: int, state: _State) -> tuple[tuple[Event, ...], int] | None:
    for pattern, build in _rules():
        match = pattern.match(text, pos)
        if match is None:
            continue
        end = match.end()
        if end < len(text) and not text[end].isspace():
            continue
        groups = match.groupdict()
        if build is None:
            mention = groups.get("mention")
            noise = Noise(match.group(0), groups.get("agent"), (mention,) if mention else ())
            return (noise,), end
        built = build(groups, state)
        return (built if isinstance(built, tuple) else (built,)), end
    return None


def _units(text: str) -> list[tuple[int | None, str]]:
    lines = [line for line in text.splitlines() if line.strip()]
    numbered = [line for line in lines if _NUMBERED.match(line)]
    if not numbered or len(numbered) * 2 < len(lines):
        return [(None, text)]
    units: list[tuple[int | None, str]] = []
    for line in lines:
        match = _NUMBERED.match(line)
        if match:
            units.append((int(match.group(1)), match.group(2)))
        elif line.strip() == "***" or not units:
            continue  # Hi-ToM separators and leading instruction lines
        else:
            units.append((None, line.strip()))
    return units


def parse_story(text: str, grammar: Grammar = "tomi", *, source: str = "<story>") -> Story:
    """Parse a story into events.

    Args:
        text: Numbered lines or plain sentences.
        grammar: Which benchmark wrote it (all share one set of templates; kept for error
            messages and future grammar-specific rules).
        source: Where the text came from, for error messages.

    Raises:
        DataError: A sentence matches no template (the message quotes it and its line), or
            a ToMi tell names an object the story has not placed yet.
    """
    state = _State()
    events: list[Event] = []
    lines: list[int] = []
    counter = 0
    for number, body in _units(text):
        pos = 0
        while True:
            while pos < len(body) and body[pos].isspace():
                pos += 1
            if pos >= len(body):
                break
            line = number or counter + 1
            try:
                found = _sentence(body, pos, state)
            except _Unmapped as err:
                raise DataError(source, line, None, f"{grammar}: {err}") from err
            if found is None:
                snippet = body[pos:].splitlines()[0].split(". ")[0][:120]
                raise DataError(source, line, None, f"{grammar}: cannot parse {snippet!r}")
            built, pos = found
            counter += 1
            events.extend(built)
            lines.extend([number if number is not None else counter] * len(built))
    return Story(tuple(events), tuple(lines))
