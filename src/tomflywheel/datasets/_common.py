"""Parsing helpers importers share: typed field access whose failures name file, place, field."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from tomflywheel._io import read_text, utf8_errors, validation_error_field
from tomflywheel.errors import DataError, PathError
from tomflywheel.schema import Answer, Sample

_SLUG = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True, slots=True)
class Loc:
    """Where a record sits in its source file, for error messages.

    Args:
        path: The source file.
        line: 1-based line number, or the 0-based record index when ``unit`` is ``"record"``.
        unit: What ``line`` counts.
    """

    path: Path
    line: int | None
    unit: Literal["line", "record"] = "line"

    def error(self, field: str | None, reason: str) -> DataError:
        """A ``DataError`` at this place (newlines in ``field`` shown escaped)."""
        shown = field.replace("\n", "\\n") if field else field
        return DataError(self.path, self.line, shown, reason, unit=self.unit)


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def get(
    obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], loc: Loc, *, at: str = ""
) -> Any:
    """``obj[key]`` checked against ``kind`` (a bool never passes as an int).

    Args:
        obj: The record (or a nested object of it).
        key: The key to read.
        kind: Accepted type(s).
        loc: Where the record is.
        at: Dotted prefix of ``obj`` inside the record, for the error's field name.

    Raises:
        DataError: The key is missing or holds another type.
    """
    name = f"{at}.{key}" if at else key
    if not isinstance(obj, Mapping):
        raise loc.error(at or None, f"expected an object, got {_type_name(obj)}")
    if key not in obj:
        raise loc.error(name, "missing")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise loc.error(name, f"expected {'/'.join(k.__name__ for k in kinds)}, got bool")
    if not isinstance(value, kinds):
        expected = "/".join(k.__name__ for k in kinds)
        raise loc.error(name, f"expected {expected}, got {_type_name(value)}")
    return value


def text(obj: Mapping[str, Any], key: str, loc: Loc, *, at: str = "") -> str:
    """A non-blank string field.

    Raises:
        DataError: Missing, not a string, or blank.
    """
    value: str = get(obj, key, str, loc, at=at)
    if not value.strip():
        raise loc.error(f"{at}.{key}" if at else key, "empty")
    return value


def text_list(obj: Mapping[str, Any], key: str, loc: Loc, *, at: str = "") -> list[str]:
    """A list of non-blank strings (possibly empty).

    Raises:
        DataError: Missing, not a list, or an item that is not a non-blank string.
    """
    name = f"{at}.{key}" if at else key
    values: list[Any] = get(obj, key, list, loc, at=at)
    for index, item in enumerate(values):
        if not isinstance(item, str) or not item.strip():
            raise loc.error(f"{name}[{index}]", f"expected a non-empty string, got {item!r}")
    return values


def choice(value: str, allowed: Sequence[str], loc: Loc, field: str) -> str:
    """``value`` if it is one of ``allowed``.

    Raises:
        DataError: It is not.
    """
    if value not in allowed:
        raise loc.error(field, f"{value!r} is not one of {', '.join(map(repr, allowed))}")
    return value


def read_json(path: Path) -> Any:
    """The whole JSON document in ``path`` (bare ``NaN`` accepted, as Python's ``json`` does).

    Raises:
        DataError: Invalid JSON (e.g. a truncated file) or not UTF-8; names the line.
    """
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise DataError(path, err.lineno, None, f"invalid JSON ({err.msg})") from err


def iter_csv(
    path: Path, *, delimiter: str = ",", columns: int | None = None
) -> Iterator[tuple[int, list[str]]]:
    """(first line number, fields) for each row of a CSV file (quoted fields may span lines).

    Args:
        path: The file.
        delimiter: Field separator.
        columns: Exact number of fields every row must have.

    Raises:
        DataError: A malformed row, a wrong number of fields, or not UTF-8; names the line.
    """
    with utf8_errors(path), path.open("r", encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter, strict=True)
        start = 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as err:
                raise DataError(path, reader.line_num, None, f"malformed CSV ({err})") from err
            if row and columns is not None and len(row) != columns:
                raise DataError(path, start, None, f"expected {columns} fields, got {len(row)}")
            if row:
                yield start, row
            start = reader.line_num + 1


def read_csv_dicts(
    path: Path, required: Sequence[str], *, delimiter: str = ","
) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line number, row) for each row of a CSV file with a header line.

    Raises:
        DataError: A required column is missing (line 1), or a row is malformed.
    """
    rows = iter_csv(path, delimiter=delimiter)
    first = next(rows, None)
    if first is None:
        raise DataError(path, None, None, "empty file")
    header = first[1]
    for column in required:
        if column not in header:
            raise DataError(path, 1, column, "missing column")
    for number, row in rows:
        if len(row) != len(header):
            raise DataError(path, number, None, f"expected {len(header)} fields, got {len(row)}")
        yield number, dict(zip(header, row, strict=True))


def required(value: str, loc: Loc, field: str) -> str:
    """``value`` if it holds more than white space.

    Raises:
        DataError: It is blank; names ``field`` at ``loc``.
    """
    if not value.strip():
        raise loc.error(field, "empty")
    return value


def make_sample(
    loc: Loc,
    *,
    id: str,
    story: str,
    question: str,
    correct: Sequence[str],
    wrong: Sequence[str] = (),
    meta: dict[str, Any],
    blank_question: bool = False,
) -> Sample:
    """A validated sample; a validation failure becomes a ``DataError`` at ``loc``.

    Args:
        loc: Where the record is, for errors.
        id: The sample id.
        story: The story; never blank.
        question: The question; blank only when ``blank_question`` says so.
        correct: Gold answers.
        wrong: Wrong options (none: open QA).
        meta: Grouping fields and source details.
        blank_question: The format asks no question (sentence completion: the story is the
            prompt), so a blank question is expected.

    Raises:
        DataError: The sample is invalid (e.g. a blank story or gold answer); names the field.
    """
    required(story, loc, "story")
    if not blank_question:
        required(question, loc, "question")
    try:
        answer = Answer(correct_answers=list(correct), wrong_answers=list(wrong))
        return Sample(id=id, story=story, question=question, answer=answer, meta=meta)
    except ValidationError as err:
        field, reason = validation_error_field(err)
        if not field.startswith(("id", "story", "question", "meta")):
            field = f"answer.{field}"
        raise loc.error(field, reason) from err


def find_source(source: Path, candidates: Sequence[str], *, what: str) -> Path:
    """``source`` itself when it is a file, else the first of ``candidates`` inside it.

    Raises:
        DataError: Nothing found; the message lists what was looked for.
    """
    source = Path(source)
    if source.is_file():
        return source
    if source.is_dir():
        for candidate in candidates:
            if (source / candidate).is_file():
                return source / candidate
        raise DataError(source, None, None, f"no {what} here (looked for {', '.join(candidates)})")
    raise PathError(source, None, None, "no such file or folder")


def slug(value: str) -> str:
    """ASCII letters and digits joined by ``_``: ``False Belief Task`` -> ``false_belief_task``."""
    return _SLUG.sub("_", value.lower()).strip("_")


def with_space_form(answer: str) -> list[str]:
    """``green_bucket`` -> ``["green_bucket", "green bucket"]``: the source form first."""
    spaced = answer.replace("_", " ")
    return [answer] if spaced == answer else [answer, spaced]
