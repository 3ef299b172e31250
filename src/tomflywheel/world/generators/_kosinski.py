"""Kosinski-style generator: unexpected contents and unexpected transfer, with their controls.

Unexpected contents: a closed container holds one thing and its label names another; the
protagonist reads the label. Variants: ``false_belief`` (wrong label), ``correct_label``,
``informed`` (a friend tells the truth after the label), ``open_container`` (it looks
inside), ``transparent`` (it sees through the container).

Unexpected transfer: the protagonist puts an object away and leaves; someone moves it; the
protagonist will come back (the question asks where it will look first). Variants:
``false_belief``, ``no_transfer`` (nothing is moved: the true-belief control), ``informed``
(the mover tells it), ``present`` (it watches the move).

Each story can also be *reversed* (the two contents, or the two places, swapped). Every story
gets two sentence-completion prompts, as Kosinski's: ``reality`` and ``belief``; both share
``meta.pair_id``. Answers follow the principled default profile.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from tomflywheel._rng import rng_for
from tomflywheel.schema import ErrorCategory, Sample
from tomflywheel.world.generators._draft import SampleDraft, build_sample
from tomflywheel.world.generators._registry import Generator, GeneratorParams, register
from tomflywheel.world.generators._vocab import (
    KOSINSKI_CONTENTS,
    KOSINSKI_PLACES,
    KOSINSKI_TRANSFER,
    NAMES,
)
from tomflywheel.world.language import render_story
from tomflywheel.world.model import (
    CONTENTS,
    LOCATION,
    Claim,
    Enter,
    Event,
    Exit,
    Look,
    Move,
    Place,
    QuestionSpec,
    Read,
    SetState,
    Story,
)
from tomflywheel.world.verifiers import answer_many

C = ErrorCategory

Task = Literal["unexpected_contents", "unexpected_transfer"]
Variant = Literal[
    "false_belief",
    "correct_label",
    "informed",
    "open_container",
    "transparent",
    "no_transfer",
    "present",
]
CONTENTS_VARIANTS: tuple[Variant, ...] = (
    "false_belief",
    "correct_label",
    "informed",
    "open_container",
    "transparent",
)
TRANSFER_VARIANTS: tuple[Variant, ...] = ("false_belief", "no_transfer", "informed", "present")


class KosinskiParams(GeneratorParams):
    """Parameters of the Kosinski-style generator (``controls`` adds the control variants)."""

    tasks: tuple[Task, ...] = ("unexpected_contents", "unexpected_transfer")
    """Task types, used in turn."""
    reversals: bool = True
    """Also emit each story with its two objects (or places) swapped."""
    variants: tuple[Variant, ...] = ()
    """Only these variants (those that apply to each task); empty: ``false_belief``, plus every
    control variant when ``controls`` is set."""


def _contents(index: int, seed: int, variant: Variant, reverse: bool) -> tuple[Story, dict]:
    rng = rng_for("kosinski-story", f"{seed}:{index}")
    inside, label, container = rng.choice(KOSINSKI_CONTENTS)
    if reverse:
        inside, label = label, inside
    hero, friend = rng.sample(NAMES, 2)
    room = "room"
    events: list[Event] = [SetState(container, CONTENTS, inside, room), Enter((hero,), room)]
    if variant == "transparent":
        events.append(Look(hero, container, transparent=True))
    events.append(Read(hero, container, inside if variant == "correct_label" else label))
    if variant == "informed":
        events.append(Claim(friend, container, inside, hero, CONTENTS))
    elif variant == "open_container":
        events.append(Look(hero, container))
    story = Story(tuple(events), agents=(hero, friend))
    prompts = {
        "reality": f"{hero} opens the {container} and looks inside. {hero} can clearly see that "
        "it is full of",
        "belief": f"{hero} believes that the {container} is full of",
    }
    return story, {"subject": container, "attribute": CONTENTS, "hero": hero, "prompts": prompts}


def _transfer(index: int, seed: int, variant: Variant, reverse: bool) -> tuple[Story, dict]:
    rng = rng_for("kosinski-story", f"{seed}:{index}")
    obj, room = rng.choice(KOSINSKI_TRANSFER)
    first, second = rng.choice(KOSINSKI_PLACES)
    if reverse:
        first, second = second, first
    hero, mover = rng.sample(NAMES, 2)
    events: list[Event] = [Enter((hero, mover), room), Place(obj, first, room, hero)]
    if variant != "present":
        events.append(Exit(hero, room))
    if variant != "no_transfer":
        events.append(Move(mover, obj, second))
    if variant == "present":
        events.append(Exit(hero, room))
    if variant == "informed":
        events.append(Claim(mover, obj, second, hero))
    events.append(Exit(mover, room))
    story = Story(tuple(events), agents=(hero, mover))
    prompts = {
        "reality": f"The {obj} is in the",
        "belief": f"When {hero} comes back, {hero} will first look for the {obj} in the",
    }
    return story, {"subject": obj, "attribute": LOCATION, "hero": hero, "prompts": prompts}


def _samples(params: KosinskiParams) -> Iterator[Sample]:
    for index in range(params.start, params.start + params.n):
        task = params.tasks[index % len(params.tasks)]
        variants = CONTENTS_VARIANTS if task == "unexpected_contents" else TRANSFER_VARIANTS
        if params.variants:
            chosen = tuple(v for v in variants if v in params.variants)
        else:
            chosen = variants if params.controls else variants[:1]
        for variant in chosen:
            for reverse in (False, True) if params.reversals else (False,):
                yield from _pair(params, index, task, variant, reverse)


def _pair(
    params: KosinskiParams, index: int, task: Task, variant: Variant, reverse: bool
) -> Iterator[Sample]:
    build = _contents if task == "unexpected_contents" else _transfer
    story, info = build(index, params.seed, variant, reverse)
    tag = f"{task}-{variant}" + ("-reversed" if reverse else "")
    pair_id = f"kosinski-synth-{params.seed}-{index:05d}-{tag}"
    specs = [
        QuestionSpec("reality", info["subject"], info["attribute"], qtype="reality"),
        QuestionSpec(
            "belief", info["subject"], info["attribute"], chain=(info["hero"],), qtype="belief"
        ),
    ]
    text = render_story(
        story, key=f"{params.seed}:{index}:{tag}", diversity=params.diversity, numbered=False
    )
    for spec, answer in zip(specs, answer_many(story, specs), strict=True):
        gold = str(answer)
        draft = SampleDraft(
            sample_id=f"{pair_id}-{spec.qtype}",
            story=story,
            story_text=text.replace("\n", " "),
            spec=spec,
            question=info["prompts"][spec.qtype],
            answer=answer,
            meta={
                "question_type": spec.qtype,
                "order": len(spec.chain),
                "story_type": task,
                "variant": variant,
                "reversed": reverse,
                "control": variant != "false_belief",
                "pair_id": pair_id,
            },
            extra_gold=(gold.replace("_", " "),),
            render={
                "key": f"{params.seed}:{index}:{tag}",
                "diversity": params.diversity,
                "numbered": False,
            },
        )
        yield build_sample(KOSINSKI, params, index, draft)


def _aim(
    category: ErrorCategory, question_type: str | None, order: int | None
) -> tuple[dict[str, Any], str]:
    """Every Kosinski task, whatever the weakness (its controls do the teaching)."""
    return {}, "Kosinski-style unexpected contents and transfer tasks"


KOSINSKI = register(
    Generator(
        name="kosinski",
        dataset="kosinski_synth",
        version="1",
        params=KosinskiParams,
        run=_samples,
        description="Kosinski-style unexpected contents / transfer with controls and reversals.",
        aim=_aim,
        family=("variants",),
        serves=("kosinski", "adv_csfb"),
    )
)
