"""The task registry: each dataset's ``TaskSpec``, by name, and a sample's task."""

from __future__ import annotations

from tomflywheel._registry import Registry
from tomflywheel.asking import JUDGES
from tomflywheel.errors import ConfigError
from tomflywheel.schema import QAKind, Sample
from tomflywheel.tasks import TaskSpec

TASKS: Registry = Registry("dataset")
"""Task specs by name; each importer module registers the spec of what it imports."""


def register_task(spec: TaskSpec) -> TaskSpec:
    """Add a task spec to the registry (importers call this at import time).

    Raises:
        ConfigError: The spec names a judging method that is not registered.
    """
    JUDGES.get(spec.judge)
    TASKS.register(spec.name)(lambda: spec)
    return spec


def get_task(name: str) -> TaskSpec:
    """The spec registered as ``name``.

    Raises:
        ConfigError: Unknown dataset; the message lists the known ones.
    """
    spec: TaskSpec = TASKS.get(name)()
    return spec


def task_for_sample(sample: Sample) -> TaskSpec:
    """The task spec of a sample: by ``meta.dataset`` in the registry, else ``meta.task``.

    A sample of an unregistered dataset without ``meta.task`` (e.g. a hand-written file) gets a
    spec derived from its answers: mixed prompt kinds, judged by rules (hybrid for open QA).

    Raises:
        ConfigError: ``meta.task`` is malformed.
    """
    name = str(sample.meta.get("dataset") or "")
    if name and name in TASKS:
        return get_task(name)
    declared = sample.meta.get("task")
    if isinstance(declared, dict):
        try:
            fields = {
                key: tuple(tuple(group) for group in value)
                if key == "groupings"
                else tuple(value)
                if isinstance(value, list)
                else value
                for key, value in declared.items()
            }
            return TaskSpec(name=name or "custom", description="declared in meta.task", **fields)
        except TypeError as err:
            raise ConfigError(f"sample {sample.id}: meta.task: {err}") from err
    judge = "hybrid" if sample.kind is QAKind.OPEN else "rules"
    return TaskSpec(
        name=name or "custom", description="(unregistered)", prompt_kind="mixed", judge=judge
    )
