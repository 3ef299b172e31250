"""What the evaluation needs to know about a dataset: prompt kind, scoring method, metric groups."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tomflywheel._registry import Registry
from tomflywheel.errors import ConfigError
from tomflywheel.schema import QAKind, Sample

PromptKind = Literal["open", "single_choice", "multi_choice", "completion", "mixed"]
"""How samples are put to the model: open QA, lettered options (one or several), a sentence to
complete (Kosinski-style), or mixed (each sample's own kind decides: FANToM)."""

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
    macro_f1_by: tuple[str, ...] = ()
    """``meta`` fields within whose values macro-F1 over answer labels is reported beside
    accuracy (OpenToM: ``question_type``; see ``evaluation/_f1.py`` for how labels are read)."""
    strict_matching: bool = False
    """The benchmark's own scorer gives no partial credit (tgtom): the rules judge then skips
    the prefix and suffix steps, so ``yes`` never passes for ``yes: blue_container``."""
    instructions: str = ""
    """The benchmark's own task note for the prompt, if it has one (Hi-ToM's assumptions about
    witnesses and lying, FANToM's header, Kosinski's "Complete the following story:"); empty:
    none. Kept out of the samples so stories stay parseable."""


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
    judge: JudgeName = "hybrid" if sample.kind is QAKind.OPEN else "rules"
    return TaskSpec(
        name=name or "custom", description="(unregistered)", prompt_kind="mixed", judge=judge
    )
