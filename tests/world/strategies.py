"""Hypothesis strategies: random stories over every event type, and belief chains."""

from __future__ import annotations

from hypothesis import strategies as st

from tomflywheel.world.model import (
    CONTENTS,
    Claim,
    Distract,
    Enter,
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

NAMES = ("Ava", "Ben", "Cleo", "Dan", "Eve")
ROOMS = ("kitchen", "garden")
CONTAINERS = ("red_box", "blue_box", "green_jar", "old_trunk")
OBJECTS = ("apple", "key")
STUFF = ("beans", "rice", "coins")
NOISES = (
    "{a} likes the {c}",
    "{a} dislikes the {c}.",
    "{a} saw a cat.",
    "{a} hummed a tune.",
    "{a} wondered who picked the {c}.",
)


@st.composite
def stories(draw: st.DrawFn, max_events: int = 14) -> Story:
    """A random story: any order of events, all kinds, a few agents, rooms and containers."""
    agents = tuple(draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True)))
    agent = st.sampled_from(agents)
    room = st.sampled_from(ROOMS)
    container = st.sampled_from(CONTAINERS)
    maybe = st.none() | agent
    events = [Enter(agents, draw(room))]
    for _ in range(draw(st.integers(2, max_events))):
        kind = draw(st.integers(0, 12))
        if kind == 0:
            group = draw(st.lists(agent, min_size=1, max_size=3, unique=True))
            events.append(Enter(tuple(group), draw(room)))
        elif kind == 1:
            events.append(Exit(draw(agent), draw(room)))
        elif kind == 2:
            events.append(
                Place(draw(st.sampled_from(OBJECTS)), draw(container), draw(room), draw(maybe))
            )
        elif kind in (3, 4):
            events.append(
                Move(
                    draw(agent),
                    draw(st.sampled_from(OBJECTS)),
                    draw(container),
                    draw(maybe),
                    draw(maybe),
                )
            )
        elif kind == 5:
            events.append(Stay(draw(agent), draw(room)))
        elif kind == 6:
            events.append(
                Claim(draw(agent), draw(st.sampled_from(OBJECTS)), draw(container), draw(maybe))
            )
        elif kind == 7:
            events.append(Witness(draw(agent)))
        elif kind == 8:
            events.append(Distract(draw(agent)))
        elif kind == 9:
            stuff = draw(st.sampled_from(STUFF))
            events.append(SetState(draw(container), CONTENTS, stuff, draw(room), draw(maybe)))
        elif kind == 10:
            events.append(Look(draw(agent), draw(container), transparent=draw(st.booleans())))
        elif kind == 11:
            who = draw(agent)
            if draw(st.booleans()):
                events.append(Read(who, draw(container), draw(st.sampled_from(STUFF))))
            else:
                events.append(
                    Claim(who, draw(container), draw(st.sampled_from(STUFF)), draw(maybe), CONTENTS)
                )
        else:
            who = draw(agent)
            thing = draw(container)
            text = draw(st.sampled_from(NOISES)).format(a=who, c=thing)
            events.append(Noise(text, who, (thing,) if "{c}" in text or thing in text else ()))
    return Story(tuple(events), agents=agents)


def chains(agents: tuple[str, ...], max_depth: int = 4) -> st.SearchStrategy[tuple[str, ...]]:
    """A belief chain over ``agents``: consecutive names differ, repeats allowed."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[str, ...]:
        depth = draw(st.integers(1, max_depth))
        chain = [draw(st.sampled_from(agents))]
        for _ in range(depth - 1):
            chain.append(draw(st.sampled_from([a for a in agents if a != chain[-1]])))
        return tuple(chain)

    return build()
