"""Which datasets an evaluation runs: ``--dataset`` values or the configured list, filtered."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from tomflywheel.artifacts import LoadedDataset
from tomflywheel.config import DatasetRef, Settings, SliceMode
from tomflywheel.datasets import (
    DEFAULT_DATASETS_DIR,
    SOURCES,
    TaskSpec,
    import_sentences,
    is_sentences_file,
    task_for_sample,
)
from tomflywheel.errors import ConfigError, DataError, PathError, UserInputError
from tomflywheel.evaluation._slice import take_samples
from tomflywheel.schema import read_samples

logger = logging.getLogger(__name__)


def resolve_dataset_ref(value: str, datasets_dir: Path) -> DatasetRef:
    """A ``--dataset`` value: a path to a JSONL file, or a name under ``datasets_dir``.

    Raises:
        ConfigError: Neither exists.
    """
    path = Path(value)
    if path.suffix == ".jsonl" and path.exists():
        return DatasetRef(path=path)
    named = datasets_dir / f"{value}.jsonl"
    if named.exists():
        return DatasetRef(path=named)
    known = sorted(p.stem for p in datasets_dir.glob("*.jsonl")) if datasets_dir.is_dir() else []
    raise UserInputError(
        f"dataset {value!r} not found (no file {path} or {named}); "
        f"known in {datasets_dir}: {', '.join(known) or 'none'}"
    )


def judge_for(
    judges: Mapping[str, str], task: TaskSpec, label: str | None = None, *, ref: str | None = None
) -> str:
    """The judging method of a dataset; evaluation, ``example`` and the flywheel all use it.

    Most specific first: ``eval.judges`` by the dataset's label, the dataset reference's own
    ``judge`` (the flywheel's log-prob copy of a held-out set), ``eval.judges`` by the task,
    then the task's default.
    """
    if label is not None and label in judges:
        return judges[label]
    return ref or judges.get(task.name) or task.judge


def load_dataset(
    ref: DatasetRef,
    *,
    max_samples: int | None,
    slice_mode: SliceMode = "stratified",
    exclude_memory_reality: bool,
    judge_override: str | None,
    judges: Mapping[str, str] | None = None,
) -> LoadedDataset:
    """Read a dataset file (normalized, or raw ``sentences``), resolve its task, apply filters.

    The judge is ``judge_override`` when given, else :func:`judge_for` over ``judges``.

    Raises:
        DataError: A malformed record (file:line:field) or an empty file.
        ConfigError: Unknown dataset type and no task declared in its samples.
    """
    if not ref.path.exists():
        raise PathError(ref.path, None, None, "dataset file not found")
    # A raw ``sentences`` file (BabyLM format) is read as is: no import step needed.
    reader = import_sentences if is_sentences_file(ref.path) else read_samples
    samples = list(reader(ref.path))
    if not samples:
        raise DataError(ref.path, None, None, "no samples")
    task = task_for_sample(samples[0])
    if exclude_memory_reality and task.excludable_question_types:
        dropped = set(task.excludable_question_types)
        samples = [s for s in samples if s.meta.get("question_type") not in dropped]
    limit = ref.max_samples or max_samples
    if limit is not None:
        samples = take_samples(
            samples,
            limit,
            mode=ref.slice or slice_mode,
            fields=sorted({name for group in task.groupings for name in group}),
            unit_by=task.all_correct_by,
            key=ref.label,
        )
    seen: set[str] = set()
    for sample in samples:
        if sample.id in seen:
            raise DataError(ref.path, None, "id", f"duplicate sample id {sample.id!r}")
        seen.add(sample.id)
    judge = judge_override or judge_for(judges or {}, task, ref.label, ref=ref.judge)
    return LoadedDataset(ref=ref, task=task, judge=judge, samples=samples)


def missing_dataset_note(path: Path) -> str:
    """Why an optional dataset was skipped, and how to get it when it can be fetched."""
    note = f"optional dataset {path} is not there: skipped"
    if path.stem not in SOURCES:
        return note
    where = "" if path.parent == DEFAULT_DATASETS_DIR else f" --datasets-dir {path.parent}"
    return f"{note} (get it with: tomflywheel datasets fetch {path.stem}{where})"


def select_datasets(settings: Settings, names: Sequence[str] | None) -> list[LoadedDataset]:
    """The datasets to run: ``names`` (paths or names) or the configured list, filtered.

    Raises:
        ConfigError: None given, or one not found.
    """
    evaluation = settings.eval
    refs = (
        [resolve_dataset_ref(name, evaluation.datasets_dir) for name in names]
        if names
        else list(evaluation.datasets)
    )
    missing = [ref for ref in refs if ref.optional and not ref.path.exists()]
    for ref in missing:
        logger.warning("%s", missing_dataset_note(ref.path))
    refs = [ref for ref in refs if ref not in missing]
    if not refs:
        raise ConfigError("no datasets: list them under eval.datasets or pass --dataset")
    labels = [ref.label for ref in refs]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"two datasets share a name: {labels}; give each a distinct `name`")
    return [
        load_dataset(
            ref,
            max_samples=evaluation.max_samples,
            slice_mode=evaluation.slice,
            exclude_memory_reality=evaluation.exclude_memory_reality,
            judge_override=None,
            judges=evaluation.judges,
        )
        for ref in refs
    ]
