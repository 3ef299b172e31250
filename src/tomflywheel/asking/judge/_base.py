"""The judge interface, its registry, and the runtime context LLM-based judges need.

A judging method is a factory registered with :func:`judge`: its typed keyword options are its
identity (written into every judgment), and it declares itself how those options come from the
evaluation settings and the task, so adding a method is one new module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tomflywheel._registry import Registry
from tomflywheel.config import EvalSettings, JudgeSettings
from tomflywheel.schema import Judgment, MethodRef, Prediction, Sample, Verdict
from tomflywheel.tasks import TaskSpec

if TYPE_CHECKING:  # a type only: the judge registry loads without the LLM client
    from tomflywheel.llm import StructureClient


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


OptionsFromSettings = Callable[[EvalSettings, TaskSpec | None], dict[str, Any]]
"""A judge's options as the evaluation settings and the task set them."""


def _no_options(settings: EvalSettings, task: TaskSpec | None) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class RegisteredJudge:
    """A registered judging method: its factory and where its options come from."""

    name: str
    factory: Callable[..., Judge]
    """``(context, **options) -> Judge``."""
    options_from: OptionsFromSettings = _no_options

    def __call__(self, context: JudgeContext, **options: Any) -> Judge:
        """Build the judge with explicit options."""
        return self.factory(context, **options)

    def from_settings(
        self, settings: EvalSettings, context: JudgeContext, task: TaskSpec | None = None
    ) -> Judge:
        """Build the judge with the options the settings and the task give it."""
        return self.factory(context, **self.options_from(settings, task))

    @property
    def description(self) -> str:
        """The first line of the factory's docstring."""
        return (self.factory.__doc__ or "").strip().splitlines()[0]


JUDGES: Registry[RegisteredJudge] = Registry("judge method")
"""Judging methods by name."""


def judge(
    name: str, *, options: OptionsFromSettings = _no_options
) -> Callable[[Callable[..., Judge]], RegisteredJudge]:
    """Register a judge factory under ``name``.

    Args:
        name: Registry name, used in configs, task specs and every judgment.
        options: The factory's options from the evaluation settings and the task.
    """

    def add(factory: Callable[..., Judge]) -> RegisteredJudge:
        entry = RegisteredJudge(name, factory, options)
        JUDGES.register(name)(entry)
        return entry

    return add


def build_judge(
    name: str, settings: EvalSettings, context: JudgeContext, task: TaskSpec | None = None
) -> Judge:
    """Instantiate a registered judging method with its configured options.

    Raises:
        ConfigError: Unknown method; the message lists the known ones.
    """
    return JUDGES.get(name).from_settings(settings, context, task)


def error_judgment(prediction: Prediction, ref: MethodRef) -> Judgment:
    """The judgment of a prediction that has no output (its request failed)."""
    return Judgment(
        sample_id=prediction.sample_id,
        trial=prediction.trial,
        verdict=Verdict.ERROR,
        method=ref,
        failure=prediction.error,
    )
