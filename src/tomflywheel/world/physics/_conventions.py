"""Benchmark labelling conventions that are not witness or trust rules (see ``_profiles``)."""

from __future__ import annotations

from tomflywheel.world.model import LOCATION, Enter, Fact, Move, Place, Story


def tomi_pair_override(
    story: Story, chain: tuple[str, ...], fact: Fact, value: str | None
) -> str | None:
    """ToMi's second-order convention: a later entry into the room syncs the pair.

    ToMi's oracle keeps the two main agents on its list of room occupants even after they
    leave, runs the third agent's entry after the whole story, and on every entry into the
    object's room sets both main agents' beliefs about each other to where the object is. So
    if a third agent ever enters that room, or one of the pair re-enters it, each of the pair
    thinks the other believes the object's final location. Returns the overridden value, or
    ``value`` unchanged.
    """
    obj, attribute = fact
    if attribute != LOCATION or len(chain) != 2:
        return value
    room = None
    final = None
    for event in story.events:
        if isinstance(event, Place) and event.obj == obj:
            room, final = event.room, event.container
        elif isinstance(event, Move) and event.obj == obj:
            final = event.container
    if room is None or final is None:
        return value
    entered: set[str] = set()
    for event in story.events:
        if isinstance(event, Enter) and event.room == room:
            for agent in event.agents:
                if agent not in chain or agent in entered:
                    return final
                entered.add(agent)
    return value
