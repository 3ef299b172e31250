"""Hi-ToM-style generator: chapters of five agents, orders 0-4, optional deception, 15 options.

Each chapter, some agents enter a room together, an object is (re)stated in a container, then
each agent in entry order moves it or stays, and leaves; everyone meets in the waiting room.
With deception, agents then make public claims and private tells (true or false); a listener
believes a speaker who stayed in the room longer. One question per order about the first
chapter's object, answered under the principled default; the 15 options are every container of
the story's three rooms (gold + 14 wrong), as in Hi-ToM.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from pydantic import Field

from tomflywheel._rng import rng_for
from tomflywheel.schema import ErrorCategory, Sample
from tomflywheel.world.generators._controls import control_twin, is_false_belief
from tomflywheel.world.generators._draft import SampleDraft, build_sample
from tomflywheel.world.generators._registry import Generator, GeneratorParams, asked_order, register
from tomflywheel.world.generators._vocab import (
    CONTAINERS,
    HITOM_ANIMALS,
    HITOM_ITEMS,
    NAMES,
    OBJECTS,
    ROOMS,
)
from tomflywheel.world.language import question_text, render_story
from tomflywheel.world.model import (
    Claim,
    Enter,
    Event,
    Exit,
    Move,
    Noise,
    Place,
    QuestionSpec,
    Stay,
    Story,
)
from tomflywheel.world.verifiers import answer_many

C = ErrorCategory

_ROOMS_PER_STORY = 3
_CONTAINERS_PER_ROOM = 5


class HitomParams(GeneratorParams):
    """Parameters of the Hi-ToM-style generator."""

    orders: tuple[int, ...] = (0, 1, 2, 3, 4)
    """Question orders (0: reality; k: a chain of k distinct agents)."""
    chapters: tuple[int, ...] = (1, 2, 3)
    """Story lengths in chapters, used in turn."""
    deception: bool | None = None
    """Claims and tells after each chapter: True, False, or None for alternating stories."""
    n_agents: int = Field(default=5, ge=2, le=8)
    """Agents in the story."""
    max_distractors: int = Field(default=2, ge=0, le=10)
    """Up to this many distractor sentences per chapter."""


def _noise(rng: random.Random, agents: list[str], things: list[str]) -> Noise:
    who = rng.choice(agents)
    kind = rng.randrange(4)
    if kind == 0:
        return Noise(f"{who} saw a {rng.choice(HITOM_ANIMALS)}.", who)
    if kind == 1:
        return Noise(f"{who} lost his {rng.choice(HITOM_ITEMS)}.", who)
    thing = rng.choice(things)
    verb = "likes" if kind == 2 else "dislikes"
    return Noise(f"{who} {verb} the {thing}.", who, (thing,))


def _chapter(
    rng: random.Random,
    world: dict[str, object],
    agents: list[str],
    deception: bool,
    max_distractors: int,
) -> list[Event]:
    rooms: list[str] = world["rooms"]  # type: ignore[assignment]
    where: dict[str, str] = world["where"]  # type: ignore[assignment]
    room = rng.choice(rooms)
    slots = world["containers"][room]  # type: ignore[index]
    obj = world["objects"][room]  # type: ignore[index]
    size = len(agents) if not world["chapters"] else rng.randint(3, len(agents))
    cast = rng.sample(agents, size)
    events: list[Event] = [Enter(tuple(cast), room)]
    events.append(Place(obj, where.get(obj) or rng.choice(slots), room))
    where[obj] = events[-1].container  # type: ignore[union-attr]
    for agent in cast:
        if rng.random() < 0.5:
            target = rng.choice([slot for slot in slots if slot != where[obj]])
            events.append(Move(agent, obj, target))
            where[obj] = target
        else:
            events.append(Stay(agent, room))
        events.append(Exit(agent, room))
    things = [*slots, *world["objects"].values()]  # type: ignore[attr-defined]
    for _ in range(rng.randint(0, max_distractors)):
        events.insert(rng.randint(1, len(events)), _noise(rng, agents, things))
    events.append(Enter(tuple(cast), "waiting_room"))
    if deception:
        speaker = rng.choice(cast)
        events.append(Claim(speaker, obj, rng.choice(slots)))
        teller = rng.choice([agent for agent in cast if agent != speaker] or cast)
        told = rng.choice([agent for agent in agents if agent != teller])
        truthful = rng.random() < 0.5
        events.append(Claim(teller, obj, where[obj] if truthful else rng.choice(slots), told))
    world["chapters"] = int(world["chapters"]) + 1  # type: ignore[call-overload]
    world.setdefault("first", obj)
    return events


def _story(params: HitomParams, index: int) -> tuple[Story, list[str], bool, int]:
    rng = rng_for("hitom-story", f"{params.seed}:{index}")
    length = params.chapters[index % len(params.chapters)]
    deception = params.deception if params.deception is not None else index % 2 == 1
    agents = rng.sample(NAMES, params.n_agents)
    rooms = rng.sample(ROOMS, _ROOMS_PER_STORY)
    pool = rng.sample(CONTAINERS, _ROOMS_PER_STORY * _CONTAINERS_PER_ROOM)
    objects = rng.sample(OBJECTS, _ROOMS_PER_STORY)
    world: dict[str, object] = {
        "rooms": rooms,
        "containers": {
            room: pool[i * _CONTAINERS_PER_ROOM : (i + 1) * _CONTAINERS_PER_ROOM]
            for i, room in enumerate(rooms)
        },
        "objects": dict(zip(rooms, objects, strict=True)),
        "where": {},
        "chapters": 0,
    }
    events: list[Event] = []
    for _ in range(length):
        events += _chapter(rng, world, agents, deception, params.max_distractors)
    story = Story(tuple(events), agents=tuple(agents))
    return story, pool, deception, length


def _samples(params: HitomParams) -> Iterator[Sample]:
    for index in range(params.start, params.start + params.n):
        story, options, deception, length = _story(params, index)
        obj = next(event.obj for event in story.events if isinstance(event, Place))
        for order in params.orders:
            rng = rng_for("hitom-question", f"{params.seed}:{index}:order_{order}")
            chain = tuple(rng.sample(list(story.agents), order)) if order else ()
            spec = QuestionSpec("belief" if order else "reality", obj, chain=chain)
            meta: dict[str, object] = {"deception": deception, "story_length": length}
            yield _sample(params, index, story, spec, options, rng, meta, control=False)
            if params.controls and order and is_false_belief(story, spec):
                twin = control_twin(story, [spec])
                if twin is not None:
                    yield _sample(params, index, twin, spec, options, rng, meta, control=True)


def _sample(
    params: HitomParams,
    index: int,
    story: Story,
    spec: QuestionSpec,
    options: list[str],
    rng: random.Random,
    meta: dict[str, object],
    *,
    control: bool,
) -> Sample:
    answer = answer_many(story, [spec])[0]
    qtype = f"order_{len(spec.chain)}"
    wrong = [option for option in options if option != answer]
    rng.shuffle(wrong)
    draft = SampleDraft(
        sample_id=f"hitom-synth-{params.seed}-{index:05d}-{qtype}"
        + ("-control" if control else ""),
        story=story,
        story_text=render_story(
            story, key=f"{params.seed}:{index}", diversity=params.diversity, style="hitom"
        ),
        spec=QuestionSpec(spec.kind, spec.subject, chain=spec.chain, qtype=qtype),
        question=question_text(spec, "hitom"),
        answer=answer,
        meta={
            "question_type": qtype,
            "order": len(spec.chain),
            "story_type": "deception" if meta["deception"] else "no_deception",
            "control": control,
            **meta,
        },
        wrong=tuple(wrong[: len(options) - 1]),
    )
    return build_sample(HITOM, params, index, draft)


def _aim(
    category: ErrorCategory, question_type: str | None, order: int | None
) -> tuple[dict[str, Any], str]:
    """Hi-ToM-style questions of the asked order (default 2), aimed at the error."""
    base = asked_order(question_type, order)
    base = base if base is not None else 2
    params: dict[str, Any] = {"orders": (min(base, 4),)}
    why = f"Hi-ToM-style order-{min(base, 4)} questions"
    if category is C.ORDER_CONFUSION:
        params["orders"] = tuple(sorted({max(0, base - 1), min(base, 4), min(base + 1, 4)}))
        why = f"Hi-ToM-style questions of neighbouring orders {params['orders']}"
    elif category is C.PERSPECTIVE_CONFUSION:
        params["n_agents"] = 7
        why += " with 7 agents"
    elif category is C.KNOWLEDGE_ACCESS:
        params["deception"] = True
        why += " with claims and private tells"
    elif category is C.DISTRACTOR:
        params["max_distractors"] = 5
        why += " with up to 5 distractors per chapter"
    return params, why


HITOM = register(
    Generator(
        name="hitom",
        dataset="hitom_synth",
        version="1",
        params=HitomParams,
        run=_samples,
        description="Hi-ToM-style chapters: orders 0-4, with or without deception, 15 options.",
        aim=_aim,
        family=("orders",),
        serves=("hitom",),
        fallback_for=(C.ORDER_CONFUSION, C.PERSPECTIVE_CONFUSION, C.KNOWLEDGE_ACCESS),
    )
)
