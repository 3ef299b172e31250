"""tgtom-style stories: 6-8 agents, moves with help/hide motives, exits, claims, distractors.

The design follows the temporal-belief-graph benchmark's generator: everyone enters one room,
the object is placed, then each agent's moves (with a motive), stays and single exit are
interleaved at random (each agent keeps its own order; nobody moves alone), then 1-3 public or
private claims (true or false), then everyone reconvenes in a second room. Soft and hard
distractors (the latter naming a container the object really visited) are mixed in.
"""

from __future__ import annotations

import random

from pydantic import Field

from tomflywheel._rng import rng_for
from tomflywheel.world.generators._registry import GeneratorParams
from tomflywheel.world.generators._vocab import (
    CONTAINERS,
    GATHERING_ROOMS,
    HARD_DISTRACTORS,
    NAMES,
    OBJECTS,
    ROOMS,
    SOFT_DISTRACTORS,
)
from tomflywheel.world.model import Claim, Enter, Event, Exit, Move, Noise, Place, Stay, Story


class TgtomStoryParams(GeneratorParams):
    """Story knobs of the tgtom-style generator (the benchmark's defaults)."""

    min_agents: int = Field(default=6, ge=3, le=12)
    max_agents: int = Field(default=8, ge=3, le=12)
    p_mover: float = Field(default=0.6, ge=0.0, le=1.0)
    """Per-agent probability of moving the object (once, or twice with odds 1 in 4)."""
    min_distractors: int = Field(default=4, ge=0)
    max_distractors: int = Field(default=8, ge=0)
    min_claims: int = Field(default=1, ge=0)
    max_claims: int = Field(default=3, ge=0)
    p_public: float = Field(default=0.5, ge=0.0, le=1.0)
    """Probability that a claim is public (else a private tell)."""
    p_truthful: float = Field(default=0.5, ge=0.0, le=1.0)
    """Probability that a claim names the true location."""


def _plans(rng: random.Random, agents: list[str], params: TgtomStoryParams) -> dict[str, list[str]]:
    plans: dict[str, list[str]] = {}
    for agent in agents:
        if rng.random() < params.p_mover:
            plans[agent] = ["move"] * rng.choices((1, 2), weights=(3, 1))[0]
        else:
            plans[agent] = ["stay"] if rng.random() < 0.95 else []
        plans[agent].append("exit")
    return plans


def _move(rng: random.Random, agent: str, agents: list[str], obj: str, target: str) -> Move:
    others = [other for other in agents if other != agent]
    composition = rng.choice(("help", "hide", "both"))
    helped = rng.choice(others) if composition in ("help", "both") else None
    hidden = None
    if composition in ("hide", "both"):
        hidden = rng.choice([other for other in others if other != helped])
    return Move(agent, obj, target, helped, hidden)


def tgtom_story(params: TgtomStoryParams, index: int) -> Story:
    """Story ``index`` for these parameters (``rng_for("tgtom-story", "<seed>:<index>")``)."""
    rng = rng_for("tgtom-story", f"{params.seed}:{index}")
    low, high = sorted((params.min_agents, params.max_agents))
    agents = rng.sample(NAMES, rng.randint(low, high))
    room = rng.choice(ROOMS)
    obj = rng.choice(OBJECTS)
    pool = rng.sample(CONTAINERS, 8)
    where = pool[0]
    visited = [where]
    events: list[Event] = [Enter(tuple(agents), room), Place(obj, where, room)]
    plans = _plans(rng, agents, params)
    present = set(agents)
    while any(plans.values()):
        ready = [a for a in agents if plans[a] and (plans[a][0] != "move" or len(present) > 1)]
        if not ready:  # only the last agent's moves are left: nobody would see them
            plans = {a: [step for step in plan if step != "move"] for a, plan in plans.items()}
            continue
        agent = rng.choice(ready)
        step = plans[agent].pop(0)
        if step == "move":
            where = rng.choice([c for c in pool if c != where])
            visited.append(where)
            events.append(_move(rng, agent, agents, obj, where))
        elif step == "stay":
            events.append(Stay(agent, room))
        else:
            events.append(Exit(agent, room))
            present.discard(agent)
    used = sorted(set(visited))
    for _ in range(rng.randint(*sorted((params.min_claims, params.max_claims)))):
        speaker = rng.choice(agents)
        public = rng.random() < params.p_public
        listener = None if public else rng.choice([a for a in agents if a != speaker])
        lies = [c for c in used if c != where]
        value = where if rng.random() < params.p_truthful or not lies else rng.choice(lies)
        events.append(Claim(speaker, obj, value, listener))
    for _ in range(rng.randint(*sorted((params.min_distractors, params.max_distractors)))):
        who = rng.choice(agents)
        if rng.random() < 0.5:
            noise = Noise(f"{who} {rng.choice(SOFT_DISTRACTORS)}.", who)
        else:
            container = rng.choice(used)
            text = rng.choice(HARD_DISTRACTORS).format(c=container)
            noise = Noise(f"{who} {text}.", who, (container,))
        events.insert(rng.randint(2, len(events)), noise)
    events.append(Enter(tuple(agents), rng.choice(GATHERING_ROOMS)))
    return Story(tuple(events), agents=tuple(agents))
