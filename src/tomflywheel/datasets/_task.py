"""What the evaluation needs to know about a dataset: prompt kind, scoring method, metric groups."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tomflywheel._registry import Registry

PromptKind = Literal["open", "single_choice", "multi_choice", "completion"]
"""How samples are put to the model: open QA, lettered options (one or several), or a sentence
to complete (Kosinski-style)."""

JudgeName = Literal["rules", "hybrid", "llm", "first_token", "logprob"]
"""Default judging method; a config may override it per dataset."""


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """One evaluation dataset's declaration in the task registry."""

    name: str
    """Registry name; equals ``meta.dataset`` of its samples and its ``datasets/<name>.jsonl``."""
    description: str
    """One line for ``tomflywheel datasets list``."""
    prompt_kind: PromptKind
    """How its samples are prompted."""
    judge: JudgeName
    """Default judging method."""
    groupings: tuple[tuple[str, ...], ...] = ()
    """Metric groups, each a tuple of ``meta`` fields (``("order", "deception")`` crosses them)."""
    all_correct_by: str | None = None
    """A ``meta`` field linking samples that only count together (EmoBench emotion + cause,
    Kosinski's two prompts, FANToM's set-level "all" scores): the unit is right only if all are."""
    excludable_question_types: tuple[str, ...] = ()
    """Question types ``--exclude-memory-reality`` drops (ToMi: memory, reality)."""
    trial_fields: tuple[str, ...] = field(default=())
    """Extra per-sample fields reported by value (tgtom: ``targeted``, ``chain_depth``)."""


TASKS: Registry = Registry("dataset")
"""Task specs by name; each importer module registers the spec of what it imports."""


def register_task(spec: TaskSpec) -> TaskSpec:
    """Add a task spec to the registry (importers call this at import time)."""
    TASKS.register(spec.name)(lambda: spec)
    return spec


def get_task(name: str) -> TaskSpec:
    """The spec registered as ``name``.

    Raises:
        ConfigError: Unknown dataset; the message lists the known ones.
    """
    spec: TaskSpec = TASKS.get(name)()
    return spec
