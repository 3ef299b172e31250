"""The generator registry: deterministic synthetic-sample generators with typed parameters.

Each generator is registered under a name (``tomi``, ``hitom``, ``kosinski``, ``tgtom``) with a
pydantic parameter model; calling it yields normalized samples whose ``meta.trace`` lets any
stage re-derive the answer. Every random choice comes from ``rng_for(purpose, key)`` with keys
built from the seed and the story index (and question type), so the same parameters always
give the same bytes, and adding a question type never changes another's samples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tomflywheel._io import validation_error_field, write_jsonl_atomic
from tomflywheel._registry import Registry
from tomflywheel.errors import ConfigError
from tomflywheel.schema import Answer as AnswerModel
from tomflywheel.schema import Sample
from tomflywheel.world._events import Story
from tomflywheel.world._qtext import answer_text
from tomflywheel.world._spec import Answer, QuestionSpec
from tomflywheel.world._trace import make_trace


class GeneratorParams(BaseModel):
    """Knobs every generator shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    """Seeds every random choice (with the story index and question type)."""
    n: int = Field(default=100, ge=0)
    """Number of stories (each yields several samples)."""
    diversity: float = Field(default=0.0, ge=0.0, le=1.0)
    """Probability that a sentence takes a non-benchmark phrasing (0: benchmark wording)."""
    controls: bool = False
    """Also emit matched control items (true-belief twins; Kosinski's control variants)."""


@dataclass(frozen=True, slots=True)
class Generator:
    """A registered generator: its parameter model and the function that yields samples."""

    name: str
    dataset: str
    """``meta.dataset`` of its samples (``tomi_synth``, ...)."""
    version: str
    """Stored in every trace; bump it when the same seed would give other stories."""
    params: type[GeneratorParams]
    run: Callable[[Any], Iterator[Sample]]
    description: str

    def __call__(
        self, params: GeneratorParams | Mapping[str, Any] | None = None, /, **overrides: Any
    ) -> Iterator[Sample]:
        """Yield samples for ``params`` (a model or a dict) updated by ``overrides``.

        Raises:
            ConfigError: A parameter is unknown or out of range.
        """
        base = params.model_dump() if isinstance(params, BaseModel) else dict(params or {})
        try:
            checked = self.params.model_validate({**base, **overrides})
        except ValidationError as err:
            field, reason = validation_error_field(err)
            raise ConfigError(f"{self.name} generator: {field}: {reason}") from err
        return self.run(checked)


GENERATORS: Registry[Generator] = Registry("generator")
"""Generators by name; ``GENERATORS.get("tgtom")(n=10, seed=1)`` yields samples."""


def register(generator: Generator) -> Generator:
    """Add a generator to the registry (each generator module calls this at import time)."""
    GENERATORS.register(generator.name)(generator)
    return generator


@dataclass(frozen=True, slots=True)
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


def answer_candidates(story: Story, spec: QuestionSpec) -> list[str]:
    """Values a location or contents question could sensibly have (for log-prob scoring).

    Every container the object was put in, or every contents value seen or read, in order.
    """
    from tomflywheel.world._events import LOCATION, Move, Place, Read, SetState

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
    generator: Generator, params: GeneratorParams, story_index: int, draft: SampleDraft
) -> Sample:
    """Turn a draft into a normalized sample with its trace.

    The samples of one story share its (read-only) event list in their traces.
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


def generate(kind: str, **params: Any) -> Iterator[Sample]:
    """Yield the samples of the generator ``kind`` with these parameters.

    Raises:
        ConfigError: Unknown generator, or bad parameters.
    """
    return GENERATORS.get(kind)(**params)


def write_generated(kind: str, out: Path, **params: Any) -> int:
    """Generate samples and write them as JSONL to ``out`` (atomically); return the count."""
    return write_jsonl_atomic(Path(out), generate(kind, **params))
