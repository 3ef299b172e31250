"""Renderers: events to sentences, with seeded surface diversity; the parser reads them back.

With ``diversity=0`` every sentence uses the benchmark wording (the first template); with
``diversity=p`` each sentence takes another phrasing with probability ``p``. Choices come from
``rng_for("render", key)``, so the same key gives the same text.
"""

from __future__ import annotations

import random
import re

from tomflywheel._rng import rng_for
from tomflywheel.world.language._phrases import MOTIVES, PARSE_ONLY, PHRASES, name_list
from tomflywheel.world.language._question_text import Style
from tomflywheel.world.language._story_parser import _State
from tomflywheel.world.model import (
    CONTENTS,
    LOCATION,
    Claim,
    Enter,
    Event,
    Exit,
    Look,
    Move,
    Noise,
    Place,
    SetState,
    Story,
)


def _pick(key: str, rng: random.Random | None, diversity: float, style: Style) -> tuple[str, int]:
    templates = PHRASES[key]
    if style == "hitom" and key == "claim_public":
        templates = (PARSE_ONLY[key][0], *templates[1:])
    if rng is not None and diversity > 0 and rng.random() < diversity and len(templates) > 1:
        index = rng.randrange(1, len(templates))
        return templates[index], index
    return templates[0], 0


_FIELDS = ("agent", "room", "obj", "container", "speaker", "listener", "subject", "value")
"""The event fields a sentence template may name."""


def _key(event: Event, state: _State) -> str:
    if isinstance(event, Place):
        if event.agent is not None:
            return "place_by" if state.room_of.get(event.agent) == event.room else "place_by_room"
        return "place" if state.busiest_room() == event.room else "place_room"
    if isinstance(event, SetState):
        if event.agent is not None:
            return "state_by" if state.room_of.get(event.agent) == event.room else "state_by_room"
        return "state" if state.busiest_room() == event.room else "state_room"
    if isinstance(event, Look):
        if event.attribute == LOCATION:  # ToMi's peek names the container the object is in
            return "look_in" if event.subject in state.container_of else "look_for"
        return "look_through" if event.transparent else "look"
    if isinstance(event, Claim):
        kind = "claim_public" if event.listener is None else "claim_private"
        return kind + ("_contents" if event.attribute == CONTENTS else "")
    return event.type


def render_event(
    event: Event,
    *,
    rng: random.Random | None = None,
    diversity: float = 0.0,
    style: Style = "tgtom",
    state: _State | None = None,
) -> str:
    """One event as one sentence.

    Args:
        event: The event.
        rng: Source of phrasing choices (None: always the first template).
        diversity: Probability of a non-benchmark phrasing.
        style: Benchmark wording for claims (Hi-ToM drops "the" in public claims).
        state: Who is where so far (tells whether a placement must name its room); updated.
    """
    state = state if state is not None else _State()
    if isinstance(event, Noise):
        return event.text
    key = _key(event, state)
    template, family = _pick(key, rng, diversity, style)
    values = {name: value for name in _FIELDS if (value := getattr(event, name, None)) is not None}
    if isinstance(event, Enter):
        values["agents"] = name_list(event.agents)
        for agent in event.agents:
            state.room_of[agent] = event.room
        state.last_room = event.room
    elif isinstance(event, Exit):
        state.room_of[event.agent] = None
    elif isinstance(event, Place | Move):
        state.container_of[event.obj] = event.container
    elif key == "look_in":
        values["container"] = state.container_of[event.subject]  # type: ignore[union-attr]
    text = template.format(**values)
    if isinstance(event, Move):
        help_only, hide_only, both = MOTIVES[min(family, len(MOTIVES) - 1)]
        if event.help and event.hide:
            text += both.format(help=event.help, hide=event.hide)
        elif event.help:
            text += help_only.format(help=event.help)
        elif event.hide:
            text += hide_only.format(hide=event.hide)
        text += "."
    return text


_NUMBERED_LINE = re.compile(r"^\d+ \S")


def is_numbered(story: str) -> bool:
    """Whether most of a story's lines start with a line number (``3 Aria moved ...``)."""
    lines = [line for line in story.splitlines() if line.strip()]
    return bool(lines) and 2 * sum(bool(_NUMBERED_LINE.match(line)) for line in lines) > len(lines)


def render_story(
    story: Story,
    *,
    key: object = None,
    diversity: float = 0.0,
    style: Style = "tgtom",
    numbered: bool = True,
) -> str:
    """The story as text, one numbered line per event (its printed line number).

    Args:
        story: The story.
        key: Seeds the phrasing choices (``rng_for("render", key)``); None: no diversity.
        diversity: Probability of a non-benchmark phrasing per sentence.
        style: Benchmark wording.
        numbered: Prefix each line with its number (all three benchmarks do).
    """
    rng = rng_for("render", key) if key is not None else None
    state = _State()
    out = []
    for event, line in zip(story.events, story.lines, strict=True):
        text = render_event(event, rng=rng, diversity=diversity, style=style, state=state)
        out.append(f"{line} {text}" if numbered else text)
    return "\n".join(out)
