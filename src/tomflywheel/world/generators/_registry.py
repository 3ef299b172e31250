"""The generator registry: deterministic synthetic-sample generators with typed parameters.

Each generator is registered under a name (``tomi``, ``hitom``, ``kosinski``, ``tgtom``) with a
pydantic parameter model; calling it yields normalized samples whose ``meta.trace`` lets any
stage re-derive the answer. Every random choice comes from ``rng_for(purpose, key)`` with keys
built from the seed and the story index (and question type), so the same parameters always
give the same bytes, and adding a question type never changes another's samples.

Each generator also declares what the feedback stage's plan needs: which tasks it imitates,
which error categories it is the fallback for, and how it aims its parameters at a weakness.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tomflywheel._io import validation_error_field
from tomflywheel._registry import Registry
from tomflywheel.errors import ConfigError
from tomflywheel.schema import ErrorCategory, Sample

Aim = Callable[[ErrorCategory, str | None, int | None], tuple[dict[str, Any], str]]
"""How a generator answers a weakness: (error category, question type, order) -> (generator
parameters, the choice in words)."""


class GeneratorParams(BaseModel):
    """Knobs every generator shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    """Seeds every random choice (with the story index and question type)."""
    n: int = Field(default=100, ge=0)
    """Number of stories (each yields several samples)."""
    start: int = Field(default=0, ge=0)
    """Index of the first story: ``start=k, n=m`` gives stories k..k+m-1 of the same seed, so a
    long run can be cut into blocks that each give the bytes a single run would."""
    diversity: float = Field(default=0.0, ge=0.0, le=1.0)
    """Probability that a sentence takes a non-benchmark phrasing (0: benchmark wording)."""
    controls: bool = False
    """Also emit matched control items (true-belief twins; Kosinski's control variants)."""


@dataclass(frozen=True, slots=True)
class Generator:
    """A registered generator: its parameters, its samples, and what the synthesis plan asks."""

    name: str
    dataset: str
    """``meta.dataset`` of its samples (``tomi_synth``, ...)."""
    version: str
    """Stored in every trace; bump it when the same seed would give other stories."""
    params: type[GeneratorParams]
    run: Callable[[Any], Iterator[Sample]]
    description: str
    aim: Aim
    """Its parameters for a weakness, and why (see :data:`Aim`)."""
    serves: tuple[str, ...] = ()
    """Task-name prefixes of the datasets it imitates (``tomi`` serves ``tomi_2cand`` too)."""
    fallback_for: tuple[ErrorCategory, ...] = ()
    """Error categories it answers when no generator serves the failing task."""
    default: bool = False
    """It answers every weakness no other declaration claims (one generator at most)."""
    family: tuple[str, ...] = ()
    """Parameters whose defaults give every story its complete question family (ToMi's six
    types, Hi-ToM's orders 0-4, tgtom's twelve types): a plan asking for whole families drops
    them from the aimed parameters."""
    benchmark_profile: str | None = None
    """The rule profile that reproduces the imitated benchmark's own labels (its ``profile``
    parameter), for plans that ask for the benchmark's convention instead of the principled one."""

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
    """Add a generator to the registry (each generator module calls this at import time).

    Raises:
        ValueError: The name, a served task prefix, a fallback category or the default role is
            already taken by another generator.
    """
    for other in (GENERATORS.get(name) for name in GENERATORS.names()):
        taken = [
            *(f"task prefix {p!r}" for p in generator.serves if p in other.serves),
            *(f"fallback for {c.value}" for c in generator.fallback_for if c in other.fallback_for),
            *(["the default role"] if generator.default and other.default else []),
        ]
        if taken:
            raise ValueError(
                f"generator {generator.name!r}: {taken[0]} already belongs to {other.name!r}"
            )
    GENERATORS.register(generator.name)(generator)
    return generator


def generator_for(task: str, category: ErrorCategory) -> Generator:
    """The generator for a weakness of ``task``: the one serving the task, else a fallback.

    The generator whose served prefix is the longest one ``task`` starts with wins; for a task
    no generator serves, the generator that is the fallback for ``category``, else the default.

    Raises:
        ConfigError: Nothing serves the task and no generator is the fallback or the default.
    """
    generators = [GENERATORS.get(name) for name in GENERATORS.names()]
    served = [(len(p), g) for g in generators for p in g.serves if task.startswith(p)]
    if served:
        return max(served, key=lambda pair: pair[0])[1]
    fallback = [g for g in generators if category in g.fallback_for]
    fallback = fallback or [g for g in generators if g.default]
    if fallback:
        return fallback[0]
    raise ConfigError(f"no generator serves task {task!r} or error category {category.value}")


def asked_order(question_type: str | None, order: int | None) -> int | None:
    """The ToM order a weakness asks: its order, else the one its ToMi-style type names."""
    if order is not None:
        return order
    if question_type is None:
        return None
    if question_type in ("memory", "reality"):
        return 0
    match = re.match(r"(first|second|third|fourth)_order", question_type)
    return ("first", "second", "third", "fourth").index(match.group(1)) + 1 if match else None


def generate(kind: str, **params: Any) -> Iterator[Sample]:
    """Yield the samples of the generator ``kind`` with these parameters.

    Raises:
        ConfigError: Unknown generator, or bad parameters.
    """
    return GENERATORS.get(kind)(**params)
