"""Run an importer: check its options, validate every sample, write the dataset file atomically.

Default output: ``<datasets_dir>/<dataset>.jsonl``; each option given a non-default value adds a
suffix (``tomi_train.jsonl``, ``tombench_zh.jsonl``, ``fantom_full.jsonl``,
``fantom_include_fact.jsonl``), so variants never overwrite each other. Path options (the
generic importer's mapping) add nothing: the mapping names its dataset itself.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.datasets._common import slug
from tomflywheel.datasets._registry import IMPORTERS, Importer
from tomflywheel.datasets._sources import default_fetch_dir, is_fetched, provenance
from tomflywheel.datasets._task import TASKS, TaskSpec, get_task, task_for_sample
from tomflywheel.errors import ConfigError, DataError
from tomflywheel.schema import Sample

DEFAULT_DATASETS_DIR = Path("datasets")
"""Where imported datasets go unless ``out`` says otherwise (relative to the working folder)."""


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One keyword option of an importer."""

    name: str
    """Keyword name (the CLI flag is ``--name`` with ``_`` as ``-``)."""
    type: str
    """The annotation as written (``Literal['train', 'val', 'test']``, ``bool``, ``Path``)."""
    default: Any
    """Default value (``inspect.Parameter.empty`` when required)."""
    choices: tuple[str, ...]
    """Allowed values of a ``Literal`` option; empty otherwise."""
    help: str
    """The option's description from the importer's docstring."""


@dataclass(frozen=True, slots=True)
class ImporterInfo:
    """What ``tomflywheel datasets list`` and the docs show about an importer."""

    name: str
    """Registry name (``tomflywheel datasets import NAME``)."""
    summary: str
    """First line of the importer's docstring."""
    options: tuple[OptionInfo, ...]
    """Its keyword options."""
    task: TaskSpec | None
    """The task its samples belong to; ``None`` for the generic importer (the mapping decides)."""


@dataclass(frozen=True, slots=True)
class ImportSummary:
    """The outcome of one import."""

    dataset: str
    """``meta.dataset`` of the samples (the task name)."""
    importer: str
    """Importer used."""
    source: Path
    """What was read."""
    out: Path
    """The file written."""
    count: int
    """Samples written."""
    options: dict[str, Any] = field(default_factory=dict)
    """Options given to the importer."""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    """Samples per value of each grouping and trial field."""
    units: int | None = None
    """Distinct values of the task's both-correct field (items scored together), if it has one."""


def _arg_help(doc: str) -> dict[str, str]:
    helps: dict[str, str] = {}
    match = re.search(r"^\s*Args:\s*$(.*?)(^\s*\w[\w ]*:\s*$|\Z)", doc, re.M | re.S)
    if not match:
        return helps
    current = None
    for line in match.group(1).splitlines():
        item = re.match(r"^\s{4,8}(\w+)(?: \([^)]*\))?: (.*)$", line)
        if item:
            current = item.group(1)
            helps[current] = item.group(2).strip()
        elif current and line.strip():
            helps[current] += " " + line.strip()
    return helps


def _options(factory: Importer) -> dict[str, tuple[inspect.Parameter, Any]]:
    hints = typing.get_type_hints(factory)
    params = inspect.signature(factory).parameters
    return {
        name: (param, hints.get(name, Any))
        for name, param in params.items()
        if param.kind is inspect.Parameter.KEYWORD_ONLY
    }


def importer_info(name: str) -> ImporterInfo:
    """Describe the importer registered as ``name``.

    Raises:
        ConfigError: Unknown importer.
    """
    factory = IMPORTERS.get(name)
    doc = inspect.getdoc(factory) or ""
    helps = _arg_help(doc)
    options = []
    for option, (param, hint) in _options(factory).items():
        is_literal = typing.get_origin(hint) is typing.Literal
        choices = tuple(str(value) for value in typing.get_args(hint)) if is_literal else ()
        shown = str(param.annotation)
        options.append(OptionInfo(option, shown, param.default, choices, helps.get(option, "")))
    task = get_task(name) if name in TASKS else None
    return ImporterInfo(name, doc.splitlines()[0] if doc else "", tuple(options), task)


def list_importers() -> list[ImporterInfo]:
    """Every registered importer, sorted by name."""
    return [importer_info(name) for name in IMPORTERS.names()]


@dataclass(frozen=True, slots=True)
class DatasetInfo:
    """One row of ``tomflywheel datasets list``: a registered task and the importer making it."""

    name: str
    """Dataset (task) name, or the importer's name when it has no fixed task (``mapping``)."""
    description: str
    """One line."""
    prompt_kind: str
    """How its samples are prompted (``mapping``: declared in the mapping)."""
    judge: str
    """Default judging method."""
    groupings: tuple[tuple[str, ...], ...]
    """Metric groups."""
    all_correct_by: str | None
    """The both-correct field, if any."""
    trial_fields: tuple[str, ...]
    """Fields reported by value (tgtom: targeted, chain depth)."""
    excludable_question_types: tuple[str, ...]
    """Question types an evaluation may leave out (ToMi: memory, reality)."""
    importer: str | None
    """The importer of the same name, if there is one (generated datasets have none)."""
    options: tuple[OptionInfo, ...]
    """That importer's options."""
    fetched: bool | None = None
    """Its pinned files are all in the fetch folder (``None``: no pinned source)."""
    imported: bool = False
    """``<datasets_dir>/<name>.jsonl`` exists (an import with default options)."""


def list_datasets(
    *, fetch_dir: Path | None = None, datasets_dir: Path = DEFAULT_DATASETS_DIR
) -> list[DatasetInfo]:
    """Every registered task (with its importer, if any), then importers without a fixed task.

    Args:
        fetch_dir: Where ``fetch`` puts files (default: ``<cache>/benchmarks``).
        datasets_dir: Where imports go by default.
    """
    folder = fetch_dir if fetch_dir is not None else default_fetch_dir()
    rows = []
    for name in TASKS.names():
        task = get_task(name)
        info = importer_info(name) if name in IMPORTERS else None
        rows.append(
            DatasetInfo(
                name=name,
                description=task.description,
                prompt_kind=task.prompt_kind,
                judge=task.judge,
                groupings=task.groupings,
                all_correct_by=task.all_correct_by,
                trial_fields=task.trial_fields,
                excludable_question_types=task.excludable_question_types,
                importer=name if info else None,
                options=info.options if info else (),
                fetched=is_fetched(name, folder),
                imported=(Path(datasets_dir) / f"{name}.jsonl").is_file(),
            )
        )
    for info in list_importers():
        if info.task is None:
            rows.append(
                DatasetInfo(
                    name=info.name,
                    description=info.summary,
                    prompt_kind="(mapping)",
                    judge="(mapping)",
                    groupings=(),
                    all_correct_by=None,
                    trial_fields=(),
                    excludable_question_types=(),
                    importer=info.name,
                    options=info.options,
                )
            )
    return rows


def _checked_options(name: str, factory: Importer, given: dict[str, Any]) -> dict[str, Any]:
    known = _options(factory)
    checked: dict[str, Any] = {}
    for key, value in given.items():
        if key not in known:
            takes = ", ".join(known) if known else "none"
            raise ConfigError(f"importer {name!r} has no option {key!r} (its options: {takes})")
        try:
            checked[key] = TypeAdapter(known[key][1]).validate_python(value)
        except ValidationError as err:
            raise ConfigError(
                f"importer {name!r}: option {key!r}: {err.errors()[0]['msg']}"
            ) from err
    for key, (param, _) in known.items():
        if param.default is inspect.Parameter.empty and key not in checked:
            raise ConfigError(f"importer {name!r} needs option {key!r}")
    return checked


def _check_samples(samples: list[Sample], source: Path) -> TaskSpec:
    if not samples:
        raise DataError(source, None, None, "no records found")
    dataset = samples[0].meta.get("dataset")
    task = task_for_sample(samples[0])
    required = {f for group in task.groupings for f in group}
    present = set(task.trial_fields) | ({task.all_correct_by} if task.all_correct_by else set())
    seen: set[str] = set()
    for sample in samples:
        if sample.id in seen:
            raise DataError(source, None, "id", f"duplicate sample id {sample.id!r}")
        seen.add(sample.id)
        if sample.meta.get("dataset") != dataset:
            raise DataError(
                source, None, "meta.dataset", f"sample {sample.id!r}: mixes datasets in one file"
            )
        for name in sorted(required):
            if sample.meta.get(name) is None:
                raise DataError(source, None, f"meta.{name}", f"missing in sample {sample.id!r}")
        for name in sorted(present):
            if name not in sample.meta:
                raise DataError(source, None, f"meta.{name}", f"missing in sample {sample.id!r}")
    return task


def _run(name: str, source: Path, options: dict[str, Any]) -> tuple[list[Sample], dict[str, Any]]:
    factory = IMPORTERS.get(name)
    checked = _checked_options(name, factory, options)
    samples = list(factory(Path(source), **checked))
    _check_samples(samples, Path(source))
    return _with_provenance(samples, provenance(name, Path(source))), checked


def _with_provenance(samples: list[Sample], origin: str) -> list[Sample]:
    """Each sample with ``meta.provenance``: where its files came from (the card cites it)."""
    return [s.model_copy(update={"meta": {**s.meta, "provenance": origin}}) for s in samples]


def load_benchmark(name: str, source: Path, **options: Any) -> list[Sample]:
    """Run importer ``name`` on ``source`` and check the samples, writing nothing.

    Args:
        name: Registered importer.
        source: The benchmark's file or folder.
        **options: The importer's keyword options.

    Raises:
        ConfigError: Unknown importer, option or option value.
        DataError: A malformed record (file, line or record, field), duplicate ids, a missing
            grouping field, or no records at all.
    """
    return _run(name, source, options)[0]


def default_output(
    dataset: str, importer: str, options: dict[str, Any], datasets_dir: Path
) -> Path:
    """``<datasets_dir>/<dataset>[_<non-default option value>...].jsonl`` (see the module doc)."""
    parts = [dataset]
    for key, (param, _) in _options(IMPORTERS.get(importer)).items():
        if key not in options or options[key] == param.default:
            continue
        value = options[key]
        if isinstance(value, bool):
            parts.append(key if value else f"no_{key}")
        elif isinstance(value, str):
            parts.append(slug(value))
    return datasets_dir / f"{'_'.join(parts)}.jsonl"


def import_dataset(
    name: str,
    source: Path,
    *,
    out: Path | None = None,
    datasets_dir: Path = DEFAULT_DATASETS_DIR,
    **options: Any,
) -> ImportSummary:
    """Import a benchmark into a normalized JSONL dataset; all records or nothing.

    Every record is read and validated before anything is written, and the file is replaced
    atomically, so a failure leaves no partial output and keeps an earlier good file.

    Args:
        name: Registered importer (``tomflywheel datasets list``).
        source: The benchmark's file or folder (nothing is downloaded).
        out: Output file; default: see the module docstring.
        datasets_dir: Folder of the default output.
        **options: The importer's keyword options.

    Returns:
        What was written, with counts per grouping field.

    Raises:
        ConfigError: Unknown importer, option or option value; a bad mapping file.
        DataError: A malformed record, naming file, line (or record index) and field.
    """
    samples, checked = _run(name, source, options)
    task = task_for_sample(samples[0])
    dataset = str(samples[0].meta["dataset"])
    target = (
        Path(out) if out is not None else default_output(dataset, name, checked, Path(datasets_dir))
    )
    count = write_jsonl_atomic(target, samples)
    fields = [f for group in task.groupings for f in group] + list(task.trial_fields)
    counts = {
        f: dict(sorted(Counter(str(s.meta.get(f)) for s in samples).items()))
        for f in dict.fromkeys(fields)
    }
    units = None
    if task.all_correct_by:
        units = len({s.meta[task.all_correct_by] for s in samples} - {None})
    return ImportSummary(
        dataset=dataset,
        importer=name,
        source=Path(source),
        out=target,
        count=count,
        options=checked,
        counts=counts,
        units=units,
    )
