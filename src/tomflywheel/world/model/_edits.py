"""Counterfactual edits of a story: drop a move, change a claim, flip a motive, move exits.

Line numbers stay as printed: an edit never renumbers the story, so questions can keep
referring to "line 13". An exit moved to a line that holds another event happens first (an
agent exiting at line n is absent for the event of line n).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from tomflywheel.world.model._events import Claim, Event, Exit, Move, Story


@dataclass(frozen=True, slots=True)
class DropMove:
    """The move at ``line`` did not happen (tgtom Q5)."""

    line: int
    type: ClassVar[str] = "drop_move"

    def apply(self, story: Story) -> Story:
        """The story without that move."""
        drop = {i for i in _at(story, self.line) if isinstance(story.events[i], Move)}
        if not drop:
            return story
        events = tuple(e for i, e in enumerate(story.events) if i not in drop)
        lines = tuple(n for i, n in enumerate(story.lines) if i not in drop)
        return Story(events, lines, story.agents)


@dataclass(frozen=True, slots=True)
class ReplaceClaim:
    """The claim at ``line`` named ``value`` instead (tgtom Q6, Q13); trust is unchanged."""

    line: int
    value: str
    type: ClassVar[str] = "replace_claim"

    def apply(self, story: Story) -> Story:
        """The story with that claim's value replaced."""
        return _swap(
            story,
            self.line,
            Claim,
            lambda e: Claim(e.speaker, e.subject, self.value, e.listener, e.attribute),
        )


@dataclass(frozen=True, slots=True)
class SetMotive:
    """The move at ``line`` had this motive instead (tgtom Q7)."""

    line: int
    help: str | None
    hide: str | None
    type: ClassVar[str] = "set_motive"

    def apply(self, story: Story) -> Story:
        """The story with that move's motive replaced."""
        return _swap(
            story,
            self.line,
            Move,
            lambda e: Move(e.agent, e.obj, e.container, self.help, self.hide),
        )


@dataclass(frozen=True, slots=True)
class SetExits:
    """Agents exit at other lines (tgtom Q10 swaps two, Q11 moves one).

    ``exits`` holds ``(agent, new line)`` pairs.
    """

    exits: tuple[tuple[str, int], ...]
    type: ClassVar[str] = "set_exits"

    def lines(self, story: Story) -> list[int]:
        """Every event's line after the edit (in the original order)."""
        new_line = dict(self.exits)
        return [
            new_line.get(event.agent, line) if isinstance(event, Exit) else line
            for event, line in zip(story.events, story.lines, strict=True)
        ]

    def order(self, story: Story) -> list[int]:
        """The original indices of the events in their edited order."""
        return [i for _, _, i in self._keys(story)]

    def apply(self, story: Story) -> Story:
        """The story with those exit events moved to their new lines."""
        keys = self._keys(story)
        events = story.events
        return Story(
            tuple([events[i] for _, _, i in keys]), tuple([k[0] for k in keys]), story.agents
        )

    def _keys(self, story: Story) -> list[tuple[int, int, int]]:
        """``(edited line, 0 for an exit else 1, original index)`` of every event, sorted."""
        new_line = dict(self.exits)
        return sorted(
            [
                (new_line.get(event.agent, line), 0, i) if isinstance(event, Exit) else (line, 1, i)
                for i, (event, line) in enumerate(zip(story.events, story.lines, strict=True))
            ]
        )


Edit: TypeAlias = DropMove | ReplaceClaim | SetMotive | SetExits
"""Any counterfactual edit."""

_EDITS: dict[str, type[Edit]] = {
    cls.type: cls for cls in (DropMove, ReplaceClaim, SetMotive, SetExits)
}


def describe_edit(edit: Edit) -> str:
    """The edit in words ("the move at line 13 did not happen")."""
    if isinstance(edit, DropMove):
        return f"the move at line {edit.line} did not happen"
    if isinstance(edit, ReplaceClaim):
        return f"the claim at line {edit.line} named the {edit.value} instead"
    if isinstance(edit, SetMotive):
        parts = [f"to help {edit.help}"] if edit.help else []
        parts += [f"to hide it from {edit.hide}"] if edit.hide else []
        return f"the move at line {edit.line} was made {' and '.join(parts) or 'without motive'}"
    moved = ", ".join(f"{agent} exits at line {line}" for agent, line in edit.exits)
    return moved


def edit_to_dict(edit: Edit) -> dict[str, Any]:
    """The edit as plain JSON (``type`` first)."""
    if isinstance(edit, SetExits):
        return {"type": edit.type, "exits": [[agent, line] for agent, line in edit.exits]}
    out: dict[str, Any] = {"type": edit.type}
    for name in edit.__dataclass_fields__:
        out[name] = getattr(edit, name)
    return out


def edit_from_dict(data: Mapping[str, Any]) -> Edit:
    """Rebuild an edit from :func:`edit_to_dict` output.

    Raises:
        ValueError: Unknown type or bad fields.
    """
    cls = _EDITS.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"unknown edit type {data.get('type')!r}")
    if cls is SetExits:
        return SetExits(tuple((str(agent), int(line)) for agent, line in data["exits"]))
    kwargs = {key: value for key, value in data.items() if key != "type"}
    try:
        return cls(**kwargs)
    except TypeError as err:
        raise ValueError(f"{cls.type} edit: {err}") from err


def _at(story: Story, line: int) -> list[int]:
    """Indices of the events printed at ``line``."""
    return [i for i, at in enumerate(story.lines) if at == line]


def _swap(story: Story, line: int, kind: type, change: Callable[[Any], Event]) -> Story:
    events = list(story.events)
    for i in _at(story, line):
        if isinstance(events[i], kind):
            events[i] = change(events[i])
    return Story(tuple(events), story.lines, story.agents)
