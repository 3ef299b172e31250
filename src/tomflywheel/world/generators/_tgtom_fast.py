"""A bit-mask model of tgtom-style stories, to search perturbations fast.

The targeted search of the counterfactual question types tries many edits; re-walking the story
for each is slow. This model keeps, per agent, the mask of placements, moves and claims that reach
it (tgtom's rules 1-6, under the default profile; bit ``i`` is the story's ``i``-th such record),
so a chain's belief is the value of the highest bit of its members' masks ANDed, and an edit
recomputes only the masks it changes. It is a search heuristic only: every candidate it proposes
is confirmed by the engine before a question is marked ``targeted``, and every answer comes from
the engine.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

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


@dataclass(slots=True)
class _Record:
    kind: str
    line: int
    value: str
    actor: int = -1
    hide: int = 0
    hearers: int = 0


@dataclass(frozen=True, slots=True)
class _View:
    """The story under one edit: each agent's reach mask over records, each record's value."""

    reach: list[int]
    values: list[str]
    present: int
    """Every record the edit leaves in the story (the belief of an empty chain)."""
    moved: int = 0
    """Of an exit edit, the agents whose reach it changes (other edits change the records'
    values or presence instead, and leave this 0)."""


class FastModel:
    """Reach masks of a tgtom-style story's placements, moves and claims, edit by edit."""

    def __init__(self, story: Story) -> None:
        self.agents = story.agents
        self.index = index = {agent: i for i, agent in enumerate(story.agents)}
        everyone = (1 << len(story.agents)) - 1
        self.exits = dict.fromkeys(range(len(story.agents)), _NEVER)
        self.records: list[_Record] = []
        for event, line in zip(story.events, story.lines, strict=True):
            if isinstance(event, Exit) and event.agent in index:
                self.exits[index[event.agent]] = line
            elif isinstance(event, Place):
                self.records.append(_Record("place", line, event.container))
            elif isinstance(event, Move):
                hide = 1 << index[event.hide] if event.hide in index else 0
                actor = index.get(event.agent, -1)
                self.records.append(_Record("move", line, event.container, actor, hide))
            elif isinstance(event, Claim) and event.speaker in index:
                speaker = index[event.speaker]
                if event.listener is None:
                    hearers = everyone & ~(1 << speaker)
                else:
                    hearers = (1 << index[event.listener]) & ~(1 << speaker)
                self.records.append(_Record("claim", line, event.value, speaker, 0, hearers))
        self._index_records(len(story.agents))
        self._views: dict[Edit, _View] = {}
        self._base = _View(
            [self._agent_reach(agent, self.exits) for agent in range(len(self.agents))],
            [record.value for record in self.records],
            (1 << len(self.records)) - 1,
        )
        self._base_ck: dict[int, object] = {}
        self.base = self.masks()
        self.last_of = {
            agent: reach.bit_length() - 1 for agent, reach in enumerate(self._base.reach) if reach
        }
        """Agent -> index of the last record reaching it (its first-order anchor)."""
        self._last_of_mask = [0] * len(self.records)
        """Record index -> the agents whose last record it is."""
        for agent, i in self.last_of.items():
            self._last_of_mask[i] |= 1 << agent

    def _index_records(self, count: int) -> None:
        """Per agent, the records it sees wherever it is, never sees, or hears; claims by line."""
        self._lines = [record.line for record in self.records]
        self._seen = 0  # records reached by whoever is present (placements and moves)
        self._own = [0] * count  # agent -> the moves it made (it sees those wherever it is)
        self._hidden = [0] * count  # agent -> the moves hidden from it
        self._heard: list[list[tuple[int, int]]] = [[] for _ in range(count)]
        """Agent -> (record index, speaker) of each claim it hears."""
        self._spoken: dict[int, list[int]] = {}  # speaker -> its claims' record indexes
        for i, record in enumerate(self.records):
            if record.kind == "claim":
                self._spoken.setdefault(record.actor, []).append(i)
                for agent in range(count):
                    if record.hearers >> agent & 1:
                        self._heard[agent].append((i, record.actor))
                continue
            self._seen |= 1 << i
            if record.actor >= 0:
                self._own[record.actor] |= 1 << i
            for agent in range(count):
                if record.hide >> agent & 1:
                    self._hidden[agent] |= 1 << i
        self.claim_at = {
            r.line: i for i, r in reversed(list(enumerate(self.records))) if r.kind == "claim"
        }
        """Line -> index of the (first) claim record told on it."""

    def _agent_reach(self, agent: int, exits: dict[int, int]) -> int:
        """The records reaching one agent when agents exit at these lines."""
        exit_line = exits[agent]
        present = self._seen & ((1 << bisect_left(self._lines, exit_line)) - 1)
        reach = (present | self._own[agent]) & ~self._hidden[agent]
        for i, speaker in self._heard[agent]:
            if exits[speaker] > exit_line:
                reach |= 1 << i
        return reach

    def masks(self) -> list[int]:
        """The agents each record reaches (bit ``a``: agent ``a``), without edits."""
        reach = self._base.reach
        return [
            sum(1 << agent for agent, mask in enumerate(reach) if mask >> i & 1)
            for i in range(len(self.records))
        ]

    def claim_can_matter(self, group: tuple[str, ...], line: int) -> bool:
        """Can a new value for the claim of ``line`` change the group's common knowledge?

        Only if the claim is some member's last news, or reaches every member (it may then be
        the group's anchor).
        """
        i = self.claim_at.get(line)
        if i is None:
            return False
        members = self.mask_of(group)
        return bool(self._last_of_mask[i] & members) or self.base[i] & members == members

    def mask_of(self, group: tuple[str, ...]) -> int:
        """The bit mask of the agents named."""
        index = self.index
        mask = 0
        for name in group:
            mask |= 1 << index[name]
        return mask

    def _view(self, edit: Edit | None) -> _View:
        if edit is None:
            return self._base
        view = self._views.get(edit)
        if view is None:
            view = self._views[edit] = self._compute(edit)
        return view

    def _compute(self, edit: Edit) -> _View:
        base = self._base
        if isinstance(edit, DropMove):
            for i, record in enumerate(self.records):
                if record.kind == "move" and record.line == edit.line:
                    keep = ~(1 << i)
                    reach = [mask & keep for mask in base.reach]
                    return _View(reach, base.values, base.present & keep)
        elif isinstance(edit, ReplaceClaim):
            values = list(base.values)
            for i, record in enumerate(self.records):
                if record.kind == "claim" and record.line == edit.line:
                    values[i] = edit.value
            return _View(base.reach, values, base.present)
        elif isinstance(edit, SetExits):
            changes = {self.index[a]: line for a, line in edit.exits if a in self.index}
            reach = self._moved_exits(changes)
            moved = 0
            for agent, (after, before) in enumerate(zip(reach, base.reach, strict=True)):
                if after != before:
                    moved |= 1 << agent
            return _View(reach, base.values, base.present, moved)
        return base

    def _moved_exits(self, changes: dict[int, int]) -> list[int]:
        """Each agent's reach after some exits move.

        A moved agent's reach is computed again; another's changes only through the claims a
        moved agent spoke (whether the speaker stayed longer than the listener).
        """
        exits = {**self.exits, **changes}
        reach = list(self._base.reach)
        spoken = [i for speaker in changes for i in self._spoken.get(speaker, ())]
        for agent in range(len(reach)):
            if agent in changes:
                reach[agent] = self._agent_reach(agent, exits)
                continue
            bit, exit_line = 1 << agent, exits[agent]
            for i in spoken:
                record = self.records[i]
                if record.hearers & bit and exits[record.actor] > exit_line:
                    reach[agent] |= 1 << i
                else:
                    reach[agent] &= ~(1 << i)
        return reach

    def belief(self, chain: tuple[str, ...], edit: Edit | None = None) -> str | None:
        """The chain's belief: the value of the last record reaching all its members."""
        view = self._view(edit)
        shared = view.present
        for name in chain:
            shared &= view.reach[self.index[name]]
        return view.values[shared.bit_length() - 1] if shared else None

    def first_order(self, edit: Edit | None = None) -> list[str | None]:
        """Each agent's own belief (in story order): ``belief((agent,), edit)`` for all."""
        view = self._view(edit)
        present, values = view.present, view.values
        out: list[str | None] = []
        for reach in view.reach:
            shared = present & reach
            out.append(values[shared.bit_length() - 1] if shared else None)
        return out

    def all_but_one(self, edit: Edit | None = None) -> list[str | None]:
        """For each agent X (in story order), the belief of a chain of every agent but X."""
        view = self._view(edit)
        return self._all_but_one(view.reach, view.values, view.present)

    def all_but_one_swapped(self, a: str, b: str) -> list[str | None]:
        """``all_but_one`` with the exits of ``a`` and ``b`` swapped (no view kept).

        Tgtom's Q10 scores every pair once.
        """
        i, j = self.index[a], self.index[b]
        reach = self._moved_exits({i: self.exits[j], j: self.exits[i]})
        return self._all_but_one(reach, self._base.values, self._base.present)

    @staticmethod
    def _all_but_one(reach: list[int], values: list[str], present: int) -> list[str | None]:
        count = len(reach)
        before = [present] * (count + 1)  # before[k]: AND of the first k agents' masks
        for k in range(count):
            before[k + 1] = before[k] & reach[k]
        out: list[str | None] = [None] * count
        after = present  # AND of the masks of the agents after agent k
        for k in range(count - 1, -1, -1):
            shared = before[k] & after
            if shared:
                out[k] = values[shared.bit_length() - 1]
            after &= reach[k]
        return out

    def common_knowledge(self, group: tuple[str, ...], edit: Edit | None = None) -> object:
        """Rule 8 of tgtom: all believe L, and the last record reaching them all carried L."""
        members = [self.index[name] for name in group]
        if edit is None:
            return self._base_common_knowledge(members)
        return self._common_knowledge(members, self._view(edit))

    def ck_changes(self, group: tuple[str, ...], edit: Edit) -> bool:
        """Whether the edit changes the group's common-knowledge answer."""
        view, base = self._view(edit), self._base
        if (
            view.values is base.values
            and view.present == base.present
            and not view.moved & self.mask_of(group)
        ):
            return False  # the members hear and see what they did: the same answer
        members = [self.index[name] for name in group]
        return self._common_knowledge(members, view) != self._base_common_knowledge(members)

    def _base_common_knowledge(self, members: list[int]) -> object:
        key = sum(1 << m for m in members)
        if key not in self._base_ck:
            self._base_ck[key] = self._common_knowledge(members, self._base)
        return self._base_ck[key]

    @staticmethod
    def _common_knowledge(members: list[int], view: _View) -> object:
        if len(set(members)) != len(members):  # a name twice: never all of "them" agree
            return {"common_knowledge": False, "shared_location": None}
        reach, values = view.reach, view.values
        shared = view.present
        beliefs: set[str | None] = set()
        for member in members:
            mask = reach[member]
            shared &= mask
            beliefs.add(values[mask.bit_length() - 1] if mask else None)
        if len(beliefs) == 1 and shared:
            location = values[shared.bit_length() - 1]
            if location in beliefs:
                return {"common_knowledge": True, "shared_location": location}
        return {"common_knowledge": False, "shared_location": None}
