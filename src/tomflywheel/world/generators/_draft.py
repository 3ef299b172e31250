"""Sample drafts: what a generator knows about one sample, turned into a traced sample."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tomflywheel.schema import Answer as AnswerModel
from tomflywheel.schema import Sample
from tomflywheel.world.generators._registry import Generator, GeneratorParams
from tomflywheel.world.language import answer_text
from tomflywheel.world.model import (
    LOCATION,
    Answer,
    Move,
    Place,
    QuestionSpec,
    Read,
    SetState,
    Story,
)
from tomflywheel.world.samples import make_trace


# Not frozen: one is built per sample, and a frozen dataclass sets each field through
# ``object.__setattr__``. Treat it as immutable.
@dataclass(slots=True)
class SampleDraft:
    """What a generator knows about one sample before it becomes a :class:`Sample`."""

    sample_id: str
    story: Story
    story_text: str
    spec: QuestionSpec
    question: str
    answer: Answer
    meta: dict[str, Any]
    wrong: tuple[str, ...] = ()
    extra_gold: tuple[str, ...] = ()
    """Other spellings of the gold (``red drawer`` for ``red_drawer``)."""
    render: dict[str, Any] | None = None
    """How ``story_text`` was rendered (default: key ``"<seed>:<story>"``, numbered lines)."""


_LAST_STORY: list[tuple[Story, dict[str, Any]]] = []


def _story_dict(story: Story) -> dict[str, Any]:
    """``story.to_dict()``, reused across the consecutive samples of one story (read-only)."""
    if _LAST_STORY and _LAST_STORY[0][0] is story:
        return _LAST_STORY[0][1]
    data = story.to_dict()
    _LAST_STORY[:] = [(story, data)]
    return data


_LAST_CANDIDATES: list[tuple[Story, dict[tuple[str, str], list[str]]]] = []


def answer_candidates(story: Story, spec: QuestionSpec) -> list[str]:
    """Values a location or contents question could sensibly have (for log-prob scoring).

    Every container the object was put in, or every contents value seen or read, in order.
    """
    # A story's many questions ask about few (attribute, subject) pairs: walk its events once each.
    if not _LAST_CANDIDATES or _LAST_CANDIDATES[0][0] is not story:
        _LAST_CANDIDATES[:] = [(story, {})]
    known = _LAST_CANDIDATES[0][1]
    key = (spec.attribute, spec.subject)
    if key not in known:
        known[key] = _candidates(story, spec)
    return list(known[key])


def _candidates(story: Story, spec: QuestionSpec) -> list[str]:
    found: dict[str, None] = {}
    for event in story.events:
        if spec.attribute == LOCATION and isinstance(event, Place | Move):
            if event.obj == spec.subject:
                found.setdefault(event.container, None)
        elif (
            isinstance(event, SetState | Read)
            and event.subject == spec.subject
            and event.attribute == spec.attribute
        ):
            found.setdefault(event.value, None)
    return list(found)


def build_sample(
    generator: Generator,
    params: GeneratorParams,
    story_index: int,
    draft: SampleDraft,
    *,
    profile: str = "default",
) -> Sample:
    """Turn a draft into a normalized sample with its trace.

    The samples of one story share its (read-only) event list in their traces; ``profile`` is
    the rule profile that derived the answer (verification derives it again under the same).
    """
    render = draft.render or {"key": f"{params.seed}:{story_index}", "diversity": params.diversity}
    trace = make_trace(
        generator=generator.name,
        version=generator.version,
        seed=params.seed,
        story_index=story_index,
        story=draft.story,
        story_dict=_story_dict(draft.story),
        spec=draft.spec,
        answer=draft.answer,
        render=render,
        profile=profile,
    )
    gold = answer_text(draft.answer)
    meta = {"dataset": generator.dataset, "split": "synthetic", **draft.meta}
    candidates = answer_candidates(draft.story, draft.spec)
    if len(candidates) >= 2 and gold in candidates:
        meta["candidates"] = candidates
    meta["trace"] = trace
    return Sample(
        id=draft.sample_id,
        story=draft.story_text,
        question=draft.question,
        answer=AnswerModel(
            correct_answers=[gold, *(g for g in draft.extra_gold if g != gold)],
            wrong_answers=list(draft.wrong),
        ),
        meta=meta,
    )
