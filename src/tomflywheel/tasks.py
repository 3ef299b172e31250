"""What asking a dataset's samples needs to know: prompt kind, judging method, metric groups.

A plain declaration, below both ``asking`` (which asks and judges by it) and ``datasets``
(whose importers register one each), so importing an importer loads no LLM code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

PromptKind = Literal["open", "single_choice", "multi_choice", "completion", "mixed"]
"""How samples are put to the model: open QA, lettered options (one or several), a sentence to
complete (Kosinski-style), or mixed (each sample's own kind decides: FANToM)."""


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """One evaluation dataset's declaration in the task registry."""

    name: str
    """Registry name; equals ``meta.dataset`` of its samples and its ``datasets/<name>.jsonl``."""
    description: str
    """One line for ``tomflywheel datasets list``."""
    prompt_kind: PromptKind
    """How its samples are prompted."""
    judge: str
    """Default judging method: a name in the judge registry (:data:`JUDGES`), checked when the
    spec is registered; a config may override it per dataset."""
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
    macro_accuracy_by: str | None = None
    """A ``meta`` field (BabyLM's ``UID``): accuracy is also reported as the mean over its values,
    each value weighing the same, and the log-prob sweep macro-averages over it."""
    strict_matching: bool = False
    """The benchmark's own scorer gives no partial credit (tgtom): the rules judge then skips
    the prefix and suffix steps, so ``yes`` never passes for ``yes: blue_container``."""
    instructions: str = ""
    """The benchmark's own task note for the prompt, if it has one (Hi-ToM's assumptions about
    witnesses and lying, FANToM's header, Kosinski's "Complete the following story:"); empty:
    none. Kept out of the samples so stories stay parseable."""
