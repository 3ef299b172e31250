"""Verifier 1, the forward tracker: each agent's mind, and its models of other minds, stepped.

A mind holds beliefs (fact -> value, and whether it ever saw the fact first-hand), and models of
other agents' minds (its children). The tracker builds the tree of minds the queried chains need
and walks the story once: an observation reaches a mind when its agent really saw it (top level)
or, one level down, when the parent mind could see that agent see it; a claim reaches a mind whose
agent heard it and trusts the speaker, as judged by the parent mind. The answer for a chain is
what the deepest mind on its path believes at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tomflywheel.world.model import Fact, Story
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

Chain = tuple[str, ...]


@dataclass(slots=True)
class _Mind:
    agent: int
    beliefs: dict[Fact, tuple[str, int, bool]] = field(default_factory=dict)
    """Fact -> (believed value, index of the event that set it, ever seen first-hand)."""
    children: dict[int, _Mind] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TrackerResult:
    """Beliefs at the end of a story, for the chains that were tracked."""

    story: Story
    profile: Profile
    world: WorldState
    """The true final state."""
    minds: dict[Chain, _Mind]
    """Chain (A, B, ...: "A thinks B thinks ...") -> the deepest mind on its path."""

    def belief(self, chain: Chain, fact: Fact) -> str | None:
        """What the chain believes about the fact (None: no belief).

        Raises:
            KeyError: The chain was not tracked.
        """
        held = self.minds[chain].beliefs.get(fact)
        value = held[0] if held is not None else None
        if self.profile.tomi_third_party_entry and len(chain) == 2:
            return tomi_pair_override(self.story, chain, fact, value)
        return value

    def updated(self, chain: Chain, fact: Fact) -> int | None:
        """Index of the event that last set the chain's belief about the fact (None: none)."""
        held = self.minds[chain].beliefs.get(fact)
        return held[1] if held is not None else None

    def beliefs(self, chain: Chain) -> dict[Fact, str]:
        """Everything the chain believes, fact -> value."""
        return {fact: held[0] for fact, held in self.minds[chain].beliefs.items()}


def _trusts(mind: _Mind, hearing: Hearing, agent: int, profile: Profile) -> bool:
    held = mind.beliefs.get(hearing.fact)
    if (held is None or not held[2]) and profile.trust_without_firsthand:
        return True
    if hearing.speaker < 0:
        return False
    return hearing.presence_end[hearing.speaker] > hearing.presence_end[agent]


def _told(mind: _Mind, hearing: Hearing) -> None:
    """Adopt what was heard (a fact seen first-hand before stays marked so)."""
    held = mind.beliefs.get(hearing.fact)
    seen = held is not None and held[2]
    mind.beliefs[hearing.fact] = (hearing.value, hearing.step, seen)


def _observe(mind: _Mind, updates: dict[Fact, tuple[str, int, bool]], common: int) -> None:
    stack = [mind]
    while stack:
        node = stack.pop()
        node.beliefs.update(updates)
        for child in node.children.values():
            if common >> child.agent & 1:
                stack.append(child)


def _hear(mind: _Mind, hearing: Hearing, profile: Profile) -> None:
    _told(mind, hearing)
    for child in mind.children.values():
        if (
            hearing.hearers >> child.agent & 1
            and child.agent != hearing.speaker
            and _trusts(child, hearing, child.agent, profile)
        ):
            _hear(child, hearing, profile)


def _hear_hitom(root: dict[int, _Mind], hearing: Hearing, profile: Profile) -> None:
    """Hi-ToM's oracle: first- and second-order updates only (see ``_profiles``)."""
    speaker = hearing.speaker
    believers = {
        agent
        for agent, mind in root.items()
        if hearing.hearers >> agent & 1 and _trusts(mind, hearing, agent, profile)
    }
    for agent, mind in root.items():
        if agent in believers:
            _told(mind, hearing)
        for other, child in mind.children.items():
            # The speaker thinks its listeners believe it; a believer thinks the speaker does.
            if (agent == speaker and hearing.hearers >> other & 1) or (
                agent in believers and other == speaker
            ):
                _told(child, hearing)


def track(
    story: Story,
    chains: Iterable[Chain],
    profile: str | Profile = "default",
    *,
    found: tuple[list[Percept], WorldState] | None = None,
) -> TrackerResult:
    """Walk the story once and return the final beliefs of every chain asked for.

    Args:
        story: The story.
        chains: Belief chains, ``("A",)`` for A's own belief, ``("A", "B")`` for what A thinks
            B believes, and so on; consecutive names should differ.
        profile: Rule profile name or object.
        found: The story's percepts, when already computed (they only depend on the story).

    Raises:
        KeyError: A chain names an agent the story does not have.
    """
    rules = get_profile(profile)
    index = {agent: i for i, agent in enumerate(story.agents)}
    root: dict[int, _Mind] = {}
    wanted = sorted(set(map(tuple, chains)))
    if rules.hitom_claims:
        for agent in range(len(story.agents)):
            root[agent] = _Mind(agent)  # who believes a claim decides second-order updates
    minds: dict[Chain, _Mind] = {}
    for chain in wanted:
        level, mind = root, None
        for name in chain:
            agent = index[name]
            mind = level.get(agent)
            if mind is None:
                mind = level[agent] = _Mind(agent)
            level = mind.children
        if mind is not None:
            minds[chain] = mind
    steps, world = found if found is not None else percepts(story, rules)
    roots = list(root.values())
    hitom = rules.hitom_claims
    for item in steps:
        if type(item) is Observation:
            actual = item.actual
            updates: dict[Fact, tuple[str, int, bool]] | None = None
            for mind in roots:
                if not actual >> mind.agent & 1:
                    continue
                if updates is None:
                    step = item.step
                    updates = {fact: (value, step, True) for fact, value in item.facts}
                if mind.children:
                    _observe(mind, updates, item.common)
                else:  # a first-order mind: no models of others to update
                    mind.beliefs.update(updates)
        elif hitom:
            _hear_hitom(root, item, rules)  # type: ignore[arg-type]
        else:
            for mind in roots:
                if item.hearers >> mind.agent & 1 and _trusts(  # type: ignore[union-attr]
                    mind,
                    item,  # type: ignore[arg-type]
                    mind.agent,
                    rules,
                ):
                    _hear(mind, item, rules)  # type: ignore[arg-type]
    return TrackerResult(story, rules, world, minds)
