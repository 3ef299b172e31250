"""The judge interface, its registry, and the runtime context LLM-based judges need."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from tomflywheel._registry import Registry
from tomflywheel.config import JudgeSettings
from tomflywheel.llm import StructureClient
from tomflywheel.schema import Judgment, MethodRef, Prediction, Sample


class Judge(Protocol):
    """Turns one prediction into a judgment."""

    ref: MethodRef
    """Name and arguments, written into every judgment."""
    uses_llm: bool
    """Whether it may send requests (LLM judges run concurrently; rules run inline)."""

    async def __call__(self, sample: Sample, prediction: Prediction) -> Judgment: ...


@dataclass(frozen=True)
class JudgeContext:
    """What judges may use at run time (not part of their identity)."""

    structure: StructureClient | None = None
    """Structured-output client for LLM judges (``None``: LLM judges are unavailable)."""
    settings: JudgeSettings = field(default_factory=JudgeSettings)
    """Judge prompt limits."""


JudgeFactory = Callable[..., Judge]
JUDGES: Registry[JudgeFactory] = Registry("judge method")
"""Judging methods by name; factories take ``(context, **args)``."""


def error_judgment(prediction: Prediction, ref: MethodRef) -> Judgment:
    """The judgment of a prediction that has no output (its request failed)."""
    from tomflywheel.schema import Verdict

    return Judgment(
        sample_id=prediction.sample_id,
        trial=prediction.trial,
        verdict=Verdict.ERROR,
        method=ref,
        failure=prediction.error,
    )
