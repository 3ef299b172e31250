"""A bit-mask model of tgtom-style stories, to search perturbations fast.

The targeted search of the counterfactual question types tries many edits; re-walking the story
for each is slow. This model keeps, per placement, move and claim, the mask of agents it reaches
(tgtom's rules 1-6, under the default profile) and recomputes only what an edit changes. It is
a search heuristic only: every candidate it proposes is confirmed by the engine before a
question is marked ``targeted``, and every answer comes from the engine.
"""

from __future__ import annotations

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


class FastModel:
    """Reach masks of a tgtom-style story's placements, moves and claims, edit by edit."""

    def __init__(self, story: Story) -> None:
        self.agents = story.agents
        self.index = index = {agent: i for i, agent in enumerate(story.agents)}
        self._last: tuple[object, tuple[list[int], dict[int, str], int | None]] | None = None
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
        self.base = self.masks(self.exits)
        self._base_ck: dict[tuple[str, ...], object] = {}
        self.last_of = self._last_records()

    def _last_records(self) -> dict[int, int]:
        """Agent -> index of the last record reaching it (its first-order anchor)."""
        last: dict[int, int] = {}
        for i in range(len(self.records) - 1, -1, -1):
            mask = self.base[i]
            for agent in range(len(self.agents)):
                if agent not in last and mask >> agent & 1:
                    last[agent] = i
        return last

    def claim_can_matter(self, group: tuple[str, ...], line: int) -> bool:
        """Can a new value for the claim of ``line`` change the group's common knowledge?

        Only if the claim is some member's last news, or reaches every member (it may then be
        the group's anchor).
        """
        members = [self.index[name] for name in group]
        for i, record in enumerate(self.records):
            if record.kind == "claim" and record.line == line:
                if any(self.last_of.get(m) == i for m in members):
                    return True
                return all(self.base[i] >> m & 1 for m in members)
        return False

    def masks(self, exits: dict[int, int]) -> list[int]:
        """The reach mask of every record for these exit lines."""
        out = []
        count = len(self.agents)
        for record in self.records:
            if record.kind == "claim":
                speaker_exit = exits[record.actor]
                mask = 0
                for agent in range(count):
                    if record.hearers >> agent & 1 and speaker_exit > exits[agent]:
                        mask |= 1 << agent
            else:
                mask = 0
                for agent in range(count):
                    if exits[agent] > record.line:
                        mask |= 1 << agent
                if record.actor >= 0:
                    mask |= 1 << record.actor
                mask &= ~record.hide
            out.append(mask)
        return out

    def _view(self, edit: Edit | None) -> tuple[list[int], dict[int, str], int | None]:
        if edit is None:
            return self.base, {}, None
        if self._last is not None and self._last[0] == edit:
            return self._last[1]
        view = self._compute(edit)
        self._last = (edit, view)
        return view

    def _compute(self, edit: Edit) -> tuple[list[int], dict[int, str], int | None]:
        masks, values, dropped = self.base, {}, None
        if isinstance(edit, DropMove):
            dropped = next(
                (i for i, r in enumerate(self.records) if r.kind == "move" and r.line == edit.line),
                None,
            )
        elif isinstance(edit, ReplaceClaim):
            for i, record in enumerate(self.records):
                if record.kind == "claim" and record.line == edit.line:
                    values[i] = edit.value
        elif isinstance(edit, SetExits):
            changes = {self.index[a]: line for a, line in edit.exits if a in self.index}
            masks = self._moved_exits(changes)
        return masks, values, dropped

    def _moved_exits(self, changes: dict[int, int]) -> list[int]:
        """The masks after some exits move: only the moved agents' bits can change."""
        exits = {**self.exits, **changes}
        moved = 0
        for agent in changes:
            moved |= 1 << agent
        masks = list(self.base)
        count = len(self.agents)
        for i, record in enumerate(self.records):
            if record.kind == "claim":
                if record.actor in changes or record.hearers & moved:
                    speaker_exit = exits[record.actor]
                    mask = 0
                    for agent in range(count):
                        if record.hearers >> agent & 1 and speaker_exit > exits[agent]:
                            mask |= 1 << agent
                    masks[i] = mask
                continue
            mask = masks[i]
            for agent in changes:
                bit = 1 << agent
                if (exits[agent] > record.line or agent == record.actor) and not record.hide & bit:
                    mask |= bit
                else:
                    mask &= ~bit
            masks[i] = mask
        return masks

    def belief(self, chain: tuple[str, ...], edit: Edit | None = None) -> str | None:
        """The chain's belief: the value of the last record reaching all its members."""
        masks, values, dropped = self._view(edit)
        wanted = 0
        for name in chain:
            wanted |= 1 << self.index[name]
        for i in range(len(self.records) - 1, -1, -1):
            if i != dropped and masks[i] & wanted == wanted:
                return values.get(i, self.records[i].value)
        return None

    def all_but_one(self, edit: Edit | None = None) -> dict[str, str | None]:
        """For each agent X, the belief of a chain of every agent but X (one pass)."""
        masks, values, dropped = self._view(edit)
        everyone = (1 << len(self.agents)) - 1
        out: dict[str, str | None] = dict.fromkeys(self.agents)
        open_ = set(range(len(self.agents)))
        for i in range(len(self.records) - 1, -1, -1):
            if i == dropped or not open_:
                continue
            missing = everyone & ~masks[i]
            if missing == 0:
                hits = list(open_)
            elif missing & (missing - 1) == 0:
                hits = [missing.bit_length() - 1] if missing.bit_length() - 1 in open_ else []
            else:
                continue
            value = values.get(i, self.records[i].value)
            for agent in hits:
                out[self.agents[agent]] = value
                open_.discard(agent)
        return out

    def common_knowledge(self, group: tuple[str, ...], edit: Edit | None = None) -> object:
        """Rule 8 of tgtom: all believe L, and the last record reaching them all carried L."""
        if edit is None:
            if group not in self._base_ck:
                self._base_ck[group] = self._common_knowledge(group, None)
            return self._base_ck[group]
        return self._common_knowledge(group, edit)

    def _common_knowledge(self, group: tuple[str, ...], edit: Edit | None) -> object:
        masks, values, dropped = self._view(edit)
        wanted = 0
        for name in group:
            wanted |= 1 << self.index[name]
        if wanted.bit_count() != len(group):  # a name twice: never all of "them" agree
            return {"common_knowledge": False, "shared_location": None}
        records = self.records
        unknown = wanted  # members whose last reaching record is not found yet
        beliefs: set[str | None] = set()
        shared = None
        for i in range(len(records) - 1, -1, -1):
            if i == dropped:
                continue
            mask = masks[i]
            first = mask & unknown
            everyone = shared is None and mask & wanted == wanted
            if not (first or everyone):
                continue
            value = values.get(i, records[i].value)
            if everyone:
                shared = value
            if first:
                beliefs.add(value)
                unknown &= ~first
            if not unknown and shared is not None:
                break
        if unknown:
            beliefs.add(None)
        if len(beliefs) == 1 and shared is not None and shared in beliefs:
            return {"common_knowledge": True, "shared_location": shared}
        return {"common_knowledge": False, "shared_location": None}
