"""The generic importer: any JSON, JSONL or CSV file plus a small YAML mapping of its fields.

A mapping names the dataset, says which field holds the story, the question and the answers
(either ``correct`` [+ ``wrong``] fields, or ``options`` + ``label``), which fields to keep in
``meta``, and may declare the task (prompt kind, judge, groupings, both-correct field). The task
is stored in each sample's ``meta.task`` so the evaluation needs no registry entry::

    name: my_bench
    fields:
      id: qid
      story: context
      question: question
      options: [optionA, optionB, optionC]   # or one field holding a list
      label: gold                            # with label_format: text | letter | index0 | index1
      label_format: letter
      meta: {category: type}
    task: {judge: rules, groupings: [[category]]}

Field names are dotted paths into JSON records (``answer.text``, ``choices.0``); CSV fields are
column names (a key holding a dot is found as written first).

A JSON document may also be keyed rather than a list: ``layout: dict`` reads ``{key: record}``,
``layout: dict_of_lists`` reads ``{key: [record, ...]}`` (OpenToM's question files); the key is
put into each record as ``key_field`` (default ``_key``). ``join`` adds the matching record of a
second file (a story table keyed the same way) under a name, so fields can read from both::

    layout: dict_of_lists
    key_field: story_id
    join: {file: meta_data.json, layout: dict, by: story_id, as: story}
    fields: {story: story.narrative, question: question, correct: answer}
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tomflywheel._io import read_text, validation_error_field
from tomflywheel._yaml import load_yaml
from tomflywheel.asking import JUDGES, PromptKind
from tomflywheel.datasets._common import Loc, make_sample, required
from tomflywheel.datasets._records import (
    MISSING,
    Join,
    Source,
    join_table,
    joined,
    kind_of,
    lookup,
    read_records,
    with_default_ids,
)
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import TASKS
from tomflywheel.errors import ConfigError, PathError, UserInputError
from tomflywheel.schema import Sample

FieldRef = str | list[str]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FieldMap(_Strict):
    """Which source fields make the sample."""

    id: str | None = None
    """Field with a unique id (default: the record's position)."""
    story: str
    """Field with the story / context."""
    question: str | None = None
    """Field with the question (none: an empty question, e.g. for completion prompts)."""
    correct: FieldRef | None = None
    """Field(s) with the correct answer(s): each a string or a list of strings."""
    wrong: FieldRef | None = None
    """Field(s) with the wrong options (none: open QA)."""
    options: FieldRef | None = None
    """One field holding the list of options, or several fields with one option each."""
    label: str | None = None
    """Field naming the correct option(s) (a value or a list of values), with ``options``."""
    label_format: Literal["text", "letter", "index0", "index1"] = "text"
    """How ``label`` names an option: its text, a letter (A = first), a 0- or 1-based index."""
    meta: dict[str, str] = Field(default_factory=dict)
    """``meta`` name -> source field, e.g. grouping fields."""

    @model_validator(mode="after")
    def _one_answer_source(self) -> FieldMap:
        if (self.correct is None) == (self.options is None):
            raise ValueError(
                "give either 'correct' (and optionally 'wrong') or 'options' + 'label'"
            )
        if self.options is not None and self.label is None:
            raise ValueError("'options' needs 'label'")
        if self.wrong is not None and self.correct is None:
            raise ValueError("'wrong' needs 'correct'")
        return self


class TaskDecl(_Strict):
    """The task of the imported samples (stored in each sample's ``meta.task``)."""

    prompt_kind: PromptKind | None = None
    """Default: ``open`` without answer options, else ``mixed`` (each sample's own kind)."""
    judge: str = "rules"
    """Default judging method (a registered one: ``tomflywheel.asking.JUDGES``)."""
    groupings: list[list[str]] = Field(default_factory=list)
    """Metric groups, each a list of ``meta`` fields."""
    all_correct_by: str | None = None
    """A ``meta`` field linking samples that are right only together."""
    excludable_question_types: list[str] = Field(default_factory=list)
    """Question types the evaluation may drop."""
    trial_fields: list[str] = Field(default_factory=list)
    """Extra fields reported by value."""
    macro_f1_by: list[str] = Field(default_factory=list)
    """``meta`` fields within whose values macro-F1 over answer labels is reported."""
    instructions: str = ""
    """A task note for the prompt."""

    @field_validator("judge")
    @classmethod
    def _registered_judge(cls, name: str) -> str:
        if name not in JUDGES:
            raise PydanticCustomError(
                "unknown_judge",
                "Input should be a registered judge method ({known})",
                {"known": ", ".join(JUDGES.names())},
            )
        return name


class Mapping(Source):
    """A whole mapping file."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_\-]*$")
    """Dataset name (``meta.dataset``, default output ``datasets/<name>.jsonl``)."""
    join: Join | None = None
    """A second file joined by key."""
    fields: FieldMap
    """Field mapping."""
    task: TaskDecl = Field(default_factory=TaskDecl)
    """Task declaration."""


def load_mapping(path: Path) -> Mapping:
    """Read and check a mapping file.

    Raises:
        ConfigError: Unreadable YAML, a wrong or unknown key, a built-in dataset name, or a
            task field that no ``fields.meta`` entry provides; names the file and key.
    """
    try:
        raw = load_yaml(read_text(path))
    except OSError as err:
        raise UserInputError(f"{path}: cannot read the mapping ({err.strerror})") from err
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: invalid YAML ({getattr(err, 'problem', err)})") from err
    try:
        mapping = Mapping.model_validate(raw if raw is not None else {})
    except ValidationError as err:
        field, reason = validation_error_field(err)
        raise ConfigError(f"{path}: {field}: {reason}") from err
    if mapping.name in TASKS:
        raise ConfigError(f"{path}: name: {mapping.name!r} is a built-in dataset; use another name")
    task = mapping.task
    named = {
        "task.groupings": [f for group in task.groupings for f in group],
        "task.all_correct_by": [task.all_correct_by] if task.all_correct_by else [],
        "task.trial_fields": task.trial_fields,
        "task.macro_f1_by": task.macro_f1_by,
    }
    for key, names in named.items():
        for name in names:
            if name not in mapping.fields.meta:
                raise ConfigError(f"{path}: {key}: {name!r} is not a key of fields.meta")
    return mapping


def _as_text(value: Any, loc: Loc, ref: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise loc.error(ref, f"expected text, got {type(value).__name__}")
    return value


def _text(record: Any, ref: str, loc: Loc) -> str:
    """One field as text (numbers are written out)."""
    value = lookup(record, ref)
    if value is MISSING:
        raise loc.error(ref, "missing")
    return _as_text(value, loc, ref)


def _texts(record: Any, refs: FieldRef, loc: Loc) -> list[str]:
    """The texts of one or more fields, each a value or a list; blank values (NaN too) skipped."""
    out: list[str] = []
    for ref in [refs] if isinstance(refs, str) else refs:
        value = lookup(record, ref)
        if value is MISSING:
            raise loc.error(ref, "missing")
        for item in value if isinstance(value, list) else [value]:
            if item is None or item == "" or (isinstance(item, float) and math.isnan(item)):
                continue
            out.append(_as_text(item, loc, ref))
    return out


def _label_index(label: str, options: list[str], label_format: str) -> int:
    if label_format == "text":
        return options.index(label) if label in options else -1
    if label_format == "letter":
        return ord(label.upper()) - ord("A") if len(label) == 1 and label.isalpha() else -1
    if not label.lstrip("-").isdigit():
        return -1
    return int(label) - (1 if label_format == "index1" else 0)


def _answers(
    record: Any, fields: FieldMap, loc: Loc
) -> tuple[list[str], list[str], list[str] | None]:
    """(correct, wrong, options in source order or None)."""
    if fields.correct is not None:
        wrong = _texts(record, fields.wrong, loc) if fields.wrong is not None else []
        return _texts(record, fields.correct, loc), wrong, None
    options = _texts(record, fields.options or [], loc)
    label_ref = fields.label or ""
    gold: list[str] = []
    for label in _texts(record, label_ref, loc):
        index = _label_index(label.strip(), options, fields.label_format)
        if not 0 <= index < len(options):
            raise loc.error(label_ref, f"{label!r} names none of the {len(options)} options")
        gold.append(options[index])
    wrong = list(dict.fromkeys(option for option in options if option not in gold))
    return gold, wrong, options


def _refs(fields: FieldMap) -> list[str]:
    refs: list[str] = [fields.story]
    refs += [ref for ref in (fields.id, fields.question, fields.label) if ref is not None]
    for value in (fields.correct, fields.wrong, fields.options):
        if value is not None:
            refs.extend([value] if isinstance(value, str) else value)
    return [*refs, *fields.meta.values()]


def _columns(spec: Mapping) -> list[str]:
    """The CSV columns the mapping reads (not those of the joined file or the key field)."""
    joined = f"{spec.join.as_}." if spec.join else None
    refs = [*_refs(spec.fields), *([spec.join.by] if spec.join else [])]
    keep = [r for r in refs if r != spec.key_field and not (joined and r.startswith(joined))]
    return list(dict.fromkeys(keep))


def _sample(spec: Mapping, task: dict[str, Any], default_id: str, loc: Loc, record: Any) -> Sample:
    fields = spec.fields
    if not isinstance(record, dict):
        raise loc.error(None, "expected an object")
    correct, wrong, options = _answers(record, fields, loc)
    meta: dict[str, Any] = {"dataset": spec.name, "task": task}
    for name, ref in fields.meta.items():
        value = lookup(record, ref)
        if value is MISSING:
            raise loc.error(ref, "missing")
        meta[name] = value
    if options is not None:
        meta["options"] = options
    meta["source_line" if loc.unit == "line" else "source_record"] = loc.line
    if spec.layout != "list":
        meta["source_key"] = record[spec.key_field]
    ident = _text(record, fields.id, loc) if fields.id else default_id
    story = required(_text(record, fields.story, loc), loc, fields.story)
    question = ""
    if fields.question:
        question = required(_text(record, fields.question, loc), loc, fields.question)
    return make_sample(
        loc,
        id=f"{spec.name}-{ident}",
        story=story,
        question=question,
        correct=correct,
        wrong=wrong,
        meta=meta,
        blank_question=not fields.question,
    )


@IMPORTERS.register("mapping")
def import_mapping(source: Path, *, mapping: Path) -> Iterator[Sample]:
    """Any JSON / JSONL / CSV benchmark, described by a YAML mapping (no code needed).

    Args:
        source: The data file.
        mapping: The YAML mapping file: dataset name, fields, optional task declaration.
    """
    spec = load_mapping(mapping)
    fields = spec.fields
    task = spec.task.model_dump()
    if task["prompt_kind"] is None:
        has_choices = fields.wrong is not None or fields.options is not None
        task["prompt_kind"] = "mixed" if has_choices else "open"
    path = Path(source)
    if not path.is_file():
        raise PathError(path, None, None, "no such file")
    records = with_default_ids(read_records(path, spec, kind_of(path, spec), _columns(spec)), spec)
    if spec.join is not None:
        joined_path, table = join_table(spec.join, path.parent)
        records = joined(records, spec.join, joined_path, table)
    for loc, record, default_id in records:
        yield _sample(spec, task, default_id, loc, record)
