"""tgtom-style generator: 6-8-agent stories with all 12 question types of the benchmark.

Stories come from :func:`~tomflywheel.world.generators._tgtom_story.tgtom_story`, questions
from :func:`~tomflywheel.world.generators._tgtom_questions.tgtom_questions`; answers follow the
principled default profile. Every sample records ``targeted`` and ``chain_depth`` in ``meta``. With
``controls``, each false first- or higher-order belief (Q1, Q2) also comes with a twin story
minus the event that created it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tomflywheel.schema import ErrorCategory, Sample
from tomflywheel.world.generators._controls import control_twin, is_false_belief
from tomflywheel.world.generators._draft import SampleDraft, build_sample
from tomflywheel.world.generators._registry import Generator, register
from tomflywheel.world.generators._tgtom_questions import (
    TGTOM_QUESTION_TYPES,
    TgtomQuestion,
    TgtomType,
    tgtom_questions,
)
from tomflywheel.world.generators._tgtom_story import TgtomStoryParams, tgtom_story
from tomflywheel.world.language import answer_format, question_text, render_story
from tomflywheel.world.model import Story
from tomflywheel.world.verifiers import Answerer

C = ErrorCategory

SUBTYPES = {
    "Q0": "reality",
    "Q1": "first_order",
    "Q2": "higher_order_location",
    "Q3": "higher_order_intent",
    "Q5": "drop_move_first_order",
    "Q6": "comm_swap_higher_order",
    "Q7": "motive_flip_higher_order",
    "Q8": "belief_inertia",
    "Q9": "common_ground",
    "Q10": "exit_swap_higher_order",
    "Q11": "ck_counterfactual_exit",
    "Q13": "ck_counterfactual_comm",
}
"""The benchmark's subtype name of each question type."""


class TgtomParams(TgtomStoryParams):
    """Parameters of the tgtom-style generator."""

    question_types: tuple[TgtomType, ...] = TGTOM_QUESTION_TYPES
    """Which of the 12 question types to ask."""


def _samples(params: TgtomParams) -> Iterator[Sample]:
    for index in range(params.start, params.start + params.n):
        story = tgtom_story(params, index)
        answerer = Answerer(story, "default", "graph")
        questions = tgtom_questions(
            story, seed=params.seed, index=index, types=params.question_types, answerer=answerer
        )
        answers = answerer.answer_all([q.spec for q in questions])
        text = render_story(story, key=f"{params.seed}:{index}", diversity=params.diversity)
        for question, answer in zip(questions, answers, strict=True):
            yield _sample(params, index, story, text, question, answer, control=False)
            if (
                params.controls
                and question.qtype in ("Q1", "Q2")
                and is_false_belief(story, question.spec)
            ):
                twin = control_twin(story, [question.spec])
                if twin is not None:
                    twin_answer = Answerer(twin).answer(question.spec)
                    twin_text = render_story(twin, key=f"{params.seed}:{index}:control")
                    yield _sample(
                        params, index, twin, twin_text, question, twin_answer, control=True
                    )


def _sample(
    params: TgtomParams,
    index: int,
    story: Story,
    text: str,
    question: TgtomQuestion,
    answer: object,
    *,
    control: bool,
) -> Sample:
    spec = question.spec
    name = question.qtype + (f"-{spec.chain[0]}" if question.qtype == "Q1" else "")
    draft = SampleDraft(
        sample_id=f"tgtom-synth-{params.seed}-{index:05d}-{name}" + ("-control" if control else ""),
        story=story,
        story_text=text,
        spec=spec,
        question=f"{question_text(spec, 'tgtom')}\n{answer_format(spec)}",
        answer=answer,  # type: ignore[arg-type]
        meta={
            "question_type": question.qtype,
            "subtype": SUBTYPES[question.qtype],
            "order": spec.order,
            "story_type": "tgtom",
            "control": control,
            "targeted": question.targeted,
            "chain_depth": question.chain_depth,
            "n_agents": len(story.agents),
        },
        render=({"key": f"{params.seed}:{index}:control", "diversity": 0.0} if control else None),
    )
    return build_sample(TGTOM, params, index, draft)


def _aim(
    category: ErrorCategory, question_type: str | None, order: int | None
) -> tuple[dict[str, Any], str]:
    """The failing tgtom question type, intent questions, or all twelve types."""
    if question_type in TGTOM_QUESTION_TYPES:
        return {"question_types": (question_type,)}, f"tgtom-style {question_type} questions"
    if category is C.INTENT_OR_EMOTION:
        return {"question_types": ("Q3", "Q7")}, "tgtom-style intent questions"
    return {}, "tgtom-style stories with all 12 question types"


TGTOM = register(
    Generator(
        name="tgtom",
        dataset="tgtom_synth",
        version="1",
        params=TgtomParams,
        run=_samples,
        description="Temporal-belief-graph stories: 6-8 agents, all 12 question types.",
        aim=_aim,
        family=("question_types",),
        serves=("tgtom",),
        fallback_for=(C.INTENT_OR_EMOTION,),
    )
)
