"""ToMi-style generator: true-belief, false-belief and second-order false-belief stories.

Two main agents enter a room, an object is placed, the first (the mover) moves it; who leaves
and who comes back decides the story type, as in ToMi. A third agent may wander in or out and
distractor sentences ("Isla dislikes the hall") are mixed in. Questions carry ToMi's names:
``memory``, ``reality``, ``first_order_0_tom`` ... where ``_0`` asks about the mover, ``_1``
about the other agent, and ``_tom`` marks a belief that differs from reality. Orders above two
use alternating chains (``third_order_0_no_tom``: mover thinks other thinks mover ...).
Answers follow the principled default profile, or ToMi's own labelling convention with
``profile="tomi"`` (the plan's ``answer_profile: benchmark``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field

from tomflywheel._rng import rng_for
from tomflywheel.schema import ErrorCategory, Sample
from tomflywheel.world.generators._controls import control_twin, is_false_belief
from tomflywheel.world.generators._draft import SampleDraft, build_sample
from tomflywheel.world.generators._registry import Generator, GeneratorParams, asked_order, register
from tomflywheel.world.generators._vocab import CONTAINERS, LIKES, NAMES, OBJECTS, ROOMS
from tomflywheel.world.language import question_text, render_story
from tomflywheel.world.model import Enter, Event, Exit, Move, Noise, Place, QuestionSpec, Story
from tomflywheel.world.verifiers import answer_many

C = ErrorCategory

TomiStoryType = Literal["true_belief", "false_belief", "second_order_false_belief"]
ORDINALS = ("first", "second", "third", "fourth", "fifth")


class TomiParams(GeneratorParams):
    """Parameters of the ToMi-style generator."""

    story_types: tuple[TomiStoryType, ...] = (
        "true_belief",
        "false_belief",
        "second_order_false_belief",
    )
    """Story types, used in turn (story ``i`` gets ``story_types[i % len]``)."""
    orders: tuple[int, ...] = (0, 1, 2)
    """Question orders: 0 memory and reality, k >= 1 the k-th order belief of each agent."""
    max_distractors: int = Field(default=2, ge=0, le=10)
    """Up to this many distractor sentences per story."""
    third_agent: bool = True
    """Let a third agent enter (and maybe leave) the room or another one, as ToMi does."""
    profile: Literal["default", "tomi"] = "default"
    """Answer rules: the engine's principled ``default``, or ``tomi`` (the benchmark's
    generator convention, which differs on second-order no-ToM items)."""
    numbered: bool = False
    """Prefix each story line with its bAbI line number. ToMi's files number their lines, but
    its importer drops the numbers, so the sets a model is measured on have none."""


def _story(params: TomiParams, index: int) -> tuple[Story, str, tuple[str, str], str]:
    rng = rng_for("tomi-story", f"{params.seed}:{index}")
    story_type = params.story_types[index % len(params.story_types)]
    mover, other, third = rng.sample(NAMES, 3)
    room, elsewhere = rng.sample(ROOMS, 2)
    obj = rng.choice(OBJECTS)
    first, second = rng.sample(CONTAINERS, 2)
    order = [mover, other]
    rng.shuffle(order)
    events: list[Event] = [Enter((order[0],), room), Enter((order[1],), room)]
    events.append(Place(obj, first, room))
    move = Move(mover, obj, second)
    if story_type == "true_belief":
        events += [move, Exit(other, room)]
    elif story_type == "false_belief":
        events += [Exit(other, room), move]
        if rng.random() < 0.5:
            events.append(Enter((other,), elsewhere))
    else:
        events += [Exit(other, room), move, Exit(mover, room), Enter((other,), room)]
    if params.third_agent and rng.random() < 0.75:
        _add_third(rng, events, third, rng.choice((room, elsewhere)))
    for _ in range(rng.randint(0, params.max_distractors)):
        who = rng.choice((mover, other, third))
        thing = rng.choice((rng.choice(OBJECTS), rng.choice(ROOMS), rng.choice(CONTAINERS)))
        text = f"{who} {rng.choice(LIKES)} the {thing}"
        events.insert(rng.randint(0, len(events)), Noise(text, who, (thing,)))
    return Story(tuple(events)), story_type, (mover, other), obj


def _add_third(rng: random.Random, events: list[Event], agent: str, room: str) -> None:
    start = rng.randint(0, len(events))
    events.insert(start, Enter((agent,), room))
    if rng.random() < 0.5:
        events.insert(rng.randint(start + 1, len(events)), Exit(agent, room))


def _specs(orders: tuple[int, ...], pair: tuple[str, str], obj: str) -> list[QuestionSpec]:
    specs: list[QuestionSpec] = []
    for order in orders:
        if order == 0:
            specs += [QuestionSpec("memory", obj), QuestionSpec("reality", obj)]
            continue
        for index, head in enumerate(pair):
            tail = pair[1 - index]
            chain = tuple(head if step % 2 == 0 else tail for step in range(order))
            specs.append(QuestionSpec("belief", obj, chain=chain, qtype=str(index)))
    return specs


def _qtype(spec: QuestionSpec, story: Story, tom: bool) -> str:
    if spec.kind != "belief":
        return spec.kind
    ordinal = ORDINALS[len(spec.chain) - 1] if len(spec.chain) <= len(ORDINALS) else "higher"
    return f"{ordinal}_order_{spec.qtype}_{'tom' if tom else 'no_tom'}"


def _samples(params: TomiParams) -> Iterator[Sample]:
    for index in range(params.start, params.start + params.n):
        story, story_type, pair, obj = _story(params, index)
        specs = _specs(params.orders, pair, obj)
        beliefs: list[QuestionSpec] = []
        twin = None
        if params.controls:
            beliefs = [spec for spec in specs if is_false_belief(story, spec, params.profile)]
            twin = control_twin(story, beliefs, params.profile) if beliefs else None
        twinned = beliefs if twin is not None else []
        yield from _drafts(params, index, story, story_type, specs, twinned, control=False)
        if twin is not None:
            yield from _drafts(params, index, twin, story_type, beliefs, twinned, control=True)


def _drafts(
    params: TomiParams,
    index: int,
    story: Story,
    story_type: str,
    specs: list[QuestionSpec],
    twinned: list[QuestionSpec],
    *,
    control: bool,
) -> Iterator[Sample]:
    """The samples of one story.

    A story and its control twin share ``story_id``; a twinned question and its twin, ``twin``.
    """
    reality = answer_many(story, [QuestionSpec("reality", specs[0].subject)], params.profile)[0]
    answers = answer_many(story, specs, params.profile)
    key = f"{params.seed}:{index}"
    render = {"key": key, "diversity": params.diversity, "numbered": params.numbered}
    text = render_story(
        story, key=key, diversity=params.diversity, style="tomi", numbered=params.numbered
    )
    story_id = f"{params.seed}-{index:05d}"
    for spec, answer in zip(specs, answers, strict=True):
        qtype = _qtype(spec, story, answer != reality)
        suffix = "-control" if control else ""
        meta: dict[str, Any] = {
            "question_type": qtype,
            "order": len(spec.chain),
            "story_type": story_type,
            "control": control,
            "tom": spec.kind == "belief" and answer != reality,
            "story_id": story_id,
        }
        if spec in twinned:
            meta["twin"] = f"{story_id}:{'>'.join(spec.chain)}"
        draft = SampleDraft(
            sample_id=f"tomi-synth-{story_id}-{qtype}{suffix}",
            story=story,
            story_text=text,
            spec=QuestionSpec(spec.kind, spec.subject, chain=spec.chain, qtype=qtype),
            question=question_text(spec, "tomi"),
            answer=answer,
            meta=meta,
            render=render,
        )
        yield build_sample(TOMI, params, index, draft, profile=params.profile)


def _aim(
    category: ErrorCategory, question_type: str | None, order: int | None
) -> tuple[dict[str, Any], str]:
    """ToMi-style questions of the asked order (at most 2), on the stories the error needs."""
    k = asked_order(question_type, order)
    orders = (min(k, 2),) if k is not None else (1, 2)
    params: dict[str, Any] = {"orders": orders}
    why = f"ToMi-style questions of order {orders}"
    if category is C.REALITY_BIAS:
        params["story_types"] = ("false_belief", "second_order_false_belief")
        why += " on false-belief stories"
    elif category is C.STALE_MEMORY:
        params["orders"] = tuple(sorted({0, *orders}))
        why += " with memory and reality questions beside them"
    elif category is C.ORDER_CONFUSION:
        params["orders"] = (1, 2)
        why = "first- and second-order questions on the same stories"
    elif category is C.DISTRACTOR:
        params["max_distractors"] = 6
        why += " with up to 6 distractors"
    return params, why


TOMI = register(
    Generator(
        name="tomi",
        dataset="tomi_synth",
        version="2",
        params=TomiParams,
        run=_samples,
        description="ToMi-style stories: memory, reality and belief questions of any order.",
        aim=_aim,
        family=("orders",),
        benchmark_profile="tomi",
        serves=("tomi",),
        default=True,
    )
)
