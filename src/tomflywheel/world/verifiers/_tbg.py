"""Verifier 2, the temporal belief graph: belief nodes per (agent, step), edges per interaction.

Nodes hold each agent's own belief after every step (a step is a percept: something seen or
heard); edges record interactions: ``(speaker, listener, line, trusted | untrusted)`` for each
hearer of a claim, ``(mover, target, line, cooperative | deceptive)`` for a move's help and hide
targets. Unlike the forward tracker, the graph keeps no models of other minds: a nested belief
"A thinks B thinks ... Z thinks" is answered by searching the steps backwards for the last one
that reaches every member of the chain (A saw it and could see the others see it, or all of them
heard and trust the claim, each judged on what the chain before it has seen).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tomflywheel.world.model import Fact, Move, Story
from tomflywheel.world.physics import (
    Hearing,
    Observation,
    Percept,
    Profile,
    WorldState,
    get_profile,
    percepts,
    tomi_pair_override,
)

Relation = Literal["trusted", "untrusted", "cooperative", "deceptive"]
"""Edge labels."""


@dataclass(frozen=True, slots=True)
class BeliefEdge:
    """An interaction between two agents at a story line."""

    source: str
    target: str
    line: int
    relation: Relation


@dataclass(slots=True)
class TemporalBeliefGraph:
    """Belief nodes and interaction edges of one story under one rule profile."""

    story: Story
    profile: Profile
    world: WorldState
    steps: list[Percept]
    """Step ``t`` (1-based) is ``steps[t - 1]``."""
    by_fact: dict[Fact, list[int]] = field(default_factory=dict)
    """Fact -> indices of the steps about it."""
    _nodes: dict[Fact, list[tuple[str | None, ...]]] = field(default_factory=dict)
    _final: dict[Fact, tuple[str | None, ...]] = field(default_factory=dict)
    _edges: list[BeliefEdge] | None = None
    _positions: dict[str, int] | None = None

    @property
    def edges(self) -> list[BeliefEdge]:
        """Interaction edges, ordered by line (built on first use)."""
        if self._edges is None:
            self._edges = _edges(self)
        return self._edges

    def _agent_positions(self) -> dict[str, int]:
        """Agent -> its index in the story's agents (built on first use)."""
        if self._positions is None:
            self._positions = {agent: i for i, agent in enumerate(self.story.agents)}
        return self._positions

    def nodes(self, fact: Fact) -> list[tuple[str | None, ...]]:
        """Every agent's own belief after each step ``t`` = 0..T (propagated forward, cached)."""
        if fact not in self._nodes:
            self._nodes[fact] = self._propagate(fact)
        return self._nodes[fact]

    def final(self, fact: Fact) -> tuple[str | None, ...]:
        """Every agent's own belief after the last step (the last node row)."""
        if fact in self._nodes:
            return self._nodes[fact][-1]
        final = self._final.get(fact)
        if final is None:
            # Only the steps about the fact change the row: the others need no visit.
            row: list[str | None] = [None] * len(self.story.agents)
            for step in self.by_fact.get(fact, ()):
                self._adopt(row, step, fact)
            final = self._final[fact] = tuple(row)
        return final

    def _propagate(self, fact: Fact) -> list[tuple[str | None, ...]]:
        row: list[str | None] = [None] * len(self.story.agents)
        rows = [tuple(row)]
        wanted = self.by_fact.get(fact, ())
        position = 0
        for step in range(len(self.steps)):
            if position < len(wanted) and wanted[position] == step:
                position += 1
                self._adopt(row, step, fact)
            rows.append(tuple(row))
        return rows

    def _adopt(self, row: list[str | None], step: int, fact: Fact) -> None:
        """Set the beliefs of every agent the step (about the fact) reaches first-hand."""
        item = self.steps[step]
        mask = item.actual if type(item) is Observation else self.trusting(step)
        value = _value(item, fact)
        while mask:
            low = mask & -mask
            row[low.bit_length() - 1] = value
            mask ^= low

    def trusting(self, step: int) -> int:
        """Mask of the hearers of a claim (step index) who adopt it."""
        item = self.steps[step]
        if not isinstance(item, Hearing):
            return 0
        if self.profile.hitom_claims or not self.profile.trust_without_firsthand:
            return self._trusting_each(step, item)
        seen = 0  # who saw the fact first-hand before the claim
        for earlier in self.by_fact.get(item.fact, ()):
            if earlier >= step:
                break
            before = self.steps[earlier]
            if isinstance(before, Observation):
                seen |= before.actual
        ends = item.presence_end
        speaker_end = ends[item.speaker] if item.speaker >= 0 else None
        mask = 0
        for agent in range(len(self.story.agents)):
            if not item.hearers >> agent & 1 or agent == item.speaker:
                continue
            if not seen >> agent & 1 or (speaker_end is not None and speaker_end > ends[agent]):
                mask |= 1 << agent
        return mask

    def _trusting_each(self, step: int, item: Hearing) -> int:
        mask = 0
        for agent in range(len(self.story.agents)):
            if item.hearers >> agent & 1 and self._reaches(step, [agent]):
                mask |= 1 << agent
        return mask

    def _reaches(self, step: int, members: list[int]) -> bool:
        """Does step ``step`` (0-based) update the chain ``members``?"""
        item = self.steps[step]
        if isinstance(item, Observation):
            rest = _mask(members[1:])
            return item.actual >> members[0] & 1 == 1 and item.common & rest == rest
        if self.profile.hitom_claims:
            return self._reaches_hitom(step, item, members)
        for depth, agent in enumerate(members):
            if not item.hearers >> agent & 1 or agent == item.speaker:
                return False
            if not self._trusts(item, step, members[: depth + 1]):
                return False
        return True

    def _reaches_hitom(self, step: int, item: Hearing, members: list[int]) -> bool:
        if len(members) == 1:
            return item.hearers >> members[0] & 1 == 1 and self._trusts(item, step, members)
        if len(members) != 2:
            return False
        first, second = members
        if first == item.speaker and item.hearers >> second & 1:
            return True
        return (
            second == item.speaker
            and item.hearers >> first & 1 == 1
            and self._trusts(item, step, [first])
        )

    def _trusts(self, item: Hearing, step: int, prefix: list[int]) -> bool:
        agent = prefix[-1]
        if self.profile.trust_without_firsthand and not self._firsthand(item, step, prefix):
            return True
        if item.speaker < 0:
            return False
        return item.presence_end[item.speaker] > item.presence_end[agent]

    def _firsthand(self, item: Hearing, step: int, prefix: list[int]) -> bool:
        """Had the chain ``prefix`` seen the fact itself before this claim?"""
        first, rest = prefix[0], _mask(prefix[1:])
        steps = self.steps
        for earlier in reversed(self.by_fact.get(item.fact, ())):
            if earlier >= step:
                continue
            seen = steps[earlier]
            if (
                type(seen) is Observation
                and seen.actual >> first & 1
                and seen.common & rest == rest
            ):
                return True
        return False

    def anchor(self, chain: tuple[str, ...], fact: Fact) -> int | None:
        """The 0-based index of the last step that set the chain's belief, or None."""
        positions = self._agent_positions()
        members = [positions[name] for name in chain]
        first, rest = members[0], _mask(members[1:])
        steps = self.steps
        for step in reversed(self.by_fact.get(fact, ())):
            item = steps[step]
            if type(item) is Observation:
                # A shortcut of _reaches for the common case.
                if item.actual >> first & 1 and item.common & rest == rest:
                    return step
            elif self._reaches(step, members):
                return step
        return None

    def belief(self, chain: tuple[str, ...], fact: Fact) -> str | None:
        """What the chain believes about the fact at the end (None: no belief)."""
        if len(chain) == 1:
            value = self.final(fact)[self._agent_positions()[chain[0]]]
        else:
            step = self.anchor(chain, fact)
            value = None if step is None else _value(self.steps[step], fact)
        if self.profile.tomi_third_party_entry and len(chain) == 2:
            return tomi_pair_override(self.story, chain, fact, value)
        return value

    def trajectory(self, fact: Fact) -> list[dict[str, str | None]]:
        """Each agent's belief after every step, step 0 (no beliefs) first."""
        return [dict(zip(self.story.agents, row, strict=True)) for row in self.nodes(fact)]


def _mask(agents: list[int]) -> int:
    mask = 0
    for agent in agents:
        mask |= 1 << agent
    return mask


def _value(item: Percept, fact: Fact) -> str | None:
    if type(item) is Hearing:
        return item.value
    for seen, value in item.facts:
        if seen == fact:
            return value
    return None


def build_graph(
    story: Story,
    profile: str | Profile = "default",
    *,
    found: tuple[list[Percept], WorldState] | None = None,
) -> TemporalBeliefGraph:
    """Build the temporal belief graph of a story: steps indexed by fact.

    Nodes are propagated step by step on first use (:meth:`TemporalBeliefGraph.nodes`), edges
    are built on first use too.

    Args:
        story: The story.
        profile: Rule profile name or object.
        found: The story's percepts, when already computed (they only depend on the story).
    """
    rules = get_profile(profile)
    steps, world = found if found is not None else percepts(story, rules)
    by_fact: dict[Fact, list[int]] = {}
    add = by_fact.setdefault
    for step, item in enumerate(steps):
        if type(item) is Observation:
            for fact, _ in item.facts:
                add(fact, []).append(step)
        else:
            add(item.fact, []).append(step)  # type: ignore[union-attr]
    return TemporalBeliefGraph(story, rules, world, steps, by_fact)


def _edges(graph: TemporalBeliefGraph) -> list[BeliefEdge]:
    edges: list[BeliefEdge] = []
    agents = graph.story.agents
    for step, item in enumerate(graph.steps):
        if isinstance(item, Hearing) and item.speaker >= 0:
            mask = graph.trusting(step)
            for agent, name in enumerate(agents):
                if item.hearers >> agent & 1:
                    relation: Relation = "trusted" if mask >> agent & 1 else "untrusted"
                    edges.append(BeliefEdge(agents[item.speaker], name, item.line, relation))
    for event, line in zip(graph.story.events, graph.story.lines, strict=True):
        if isinstance(event, Move):
            if event.help is not None:
                edges.append(BeliefEdge(event.agent, event.help, line, "cooperative"))
            if event.hide is not None:
                edges.append(BeliefEdge(event.agent, event.hide, line, "deceptive"))
    edges.sort(key=lambda edge: (edge.line, edge.source, edge.target, edge.relation))
    return edges
