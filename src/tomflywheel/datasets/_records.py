"""Records of a JSON, JSONL or CSV file: a list or a keyed layout, and a join by key.

A JSON document may be ``{key: record}`` (``dict``) or ``{key: [record, ...]}``
(``dict_of_lists``, OpenToM's question files); the key is put into each record under
``key_field``. A join adds to each record the record of a second file with the same key.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, read_csv_dicts, read_json
from tomflywheel.errors import DataError

logger = logging.getLogger(__name__)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Layout = Literal["list", "dict", "dict_of_lists"]


class Source(_Strict):
    """How one file holds its records."""

    format: Literal["json", "jsonl", "csv"] | None = None
    """Source format (default: from the file suffix; ``.tsv`` is CSV with tabs)."""
    records: str | None = None
    """JSON only: dotted path to the records (default: the document itself)."""
    delimiter: str = Field(default=",", min_length=1, max_length=1)
    """CSV only: field separator."""
    layout: Layout = "list"
    """JSON only: a list of records, ``{key: record}`` or ``{key: [record, ...]}``."""
    key_field: str = "_key"
    """With a keyed layout: the field each record gets holding its key."""

    @model_validator(mode="after")
    def _keyed_layouts_are_json(self) -> Source:
        if self.layout != "list" and self.format not in (None, "json"):
            raise ValueError(f"layout {self.layout!r} needs format json")
        return self


class Join(Source):
    """A second file whose record with the same key is added to each record."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    file: Path
    """The file (relative paths start at the data file's folder)."""
    layout: Literal["list", "dict"] = "list"  # type: ignore[assignment]
    """``{key: record}`` (``dict``) or a list of records (``list``, any format)."""
    key: str | None = None
    """List layout: the field of the joined records holding the key."""
    by: str
    """The field of each main record holding the key (YAML reads a bare ``on`` as true)."""
    as_: str = Field(alias="as", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The name the joined record gets in each main record (``story`` -> ``story.narrative``)."""
    unmatched: Literal["error", "skip"] = "error"
    """A main record with no joined record: stop with an error, or leave the record out."""

    @model_validator(mode="after")
    def _list_needs_a_key(self) -> Join:
        if self.layout == "list" and self.key is None:
            raise ValueError("a list layout needs 'key' (the field holding the key)")
        return self


MISSING = object()
Kind = Literal["json", "jsonl", "csv"]


def lookup(record: Any, ref: str) -> Any:
    """A field by name as written (CSV columns, keys holding dots), else by dotted path."""
    if isinstance(record, dict) and ref in record:
        return record[ref]
    value = record
    for part in ref.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
    return value


def kind_of(source: Path, spec: Source) -> Kind:
    if spec.format is not None:
        return spec.format
    suffix = source.suffix.lower()
    return "jsonl" if suffix == ".jsonl" else "json" if suffix == ".json" else "csv"


def _keyed(source: Path, records: Any, spec: Source, at: str | None) -> Iterator[tuple[Loc, Any]]:
    """The records of a ``{key: record}`` or ``{key: [record, ...]}`` document, key added."""
    if not isinstance(records, dict):
        raise DataError(source, None, at, f"expected an object keyed by {spec.key_field}")
    index = 0
    for key, value in records.items():
        items = value if spec.layout == "dict_of_lists" else [value]
        if spec.layout == "dict_of_lists" and not isinstance(items, list):
            raise DataError(source, None, key, "expected a list of records")
        for item in items:
            loc = Loc(source, index, "record")
            if not isinstance(item, dict):
                raise loc.error(key, "expected an object")
            yield loc, {**item, spec.key_field: key}
            index += 1


def read_records(
    source: Path, spec: Source, kind: Kind, columns: list[str]
) -> Iterator[tuple[Loc, Any]]:
    """(where, record) for each record of ``source``; ``columns``: CSV columns that must exist.

    Raises:
        DataError: Malformed file, or records not where ``spec`` says; names file and place.
    """
    if kind == "jsonl":
        for number, record in iter_jsonl(source):
            yield Loc(source, number), record
    elif kind == "csv":
        tabs = source.suffix.lower() == ".tsv" and spec.format is None
        rows = read_csv_dicts(source, columns, delimiter="\t" if tabs else spec.delimiter)
        for number, row in rows:
            yield Loc(source, number), row
    else:
        document = read_json(source)
        records = lookup(document, spec.records) if spec.records else document
        if spec.layout != "list":
            yield from _keyed(source, records, spec, spec.records)
            return
        if not isinstance(records, list):
            raise DataError(source, None, spec.records, "expected a list of records")
        for index, record in enumerate(records):
            yield Loc(source, index, "record"), record


def join_table(join: Join, base: Path) -> tuple[Path, dict[str, Any]]:
    """The joined file's records by key (as text, so ``7`` and ``"7"`` meet)."""
    path = join.file if join.file.is_absolute() else base / join.file
    if not path.is_file():
        raise DataError(path, None, None, "no such file (join.file)")
    kind = kind_of(path, join)
    key_ref = join.key_field if join.layout == "dict" else str(join.key)
    table: dict[str, Any] = {}
    for loc, record in read_records(path, join, kind, [key_ref]):
        value = lookup(record, key_ref)
        if value is MISSING or value is None:
            raise loc.error(key_ref, "missing")
        if str(value) in table:
            raise loc.error(key_ref, f"key {value!r} appears twice")
        table[str(value)] = record
    return path, table


def joined(
    records: Iterator[tuple[Loc, Any, str]], join: Join, path: Path, table: dict[str, Any]
) -> Iterator[tuple[Loc, Any, str]]:
    """Each record with its match from ``table`` (read from ``path``) under ``join.as``.

    Raises:
        DataError: A record without the key field, or (``unmatched: error``) without a match.
    """
    skipped = 0
    for loc, record, ident in records:
        if not isinstance(record, dict):
            raise loc.error(None, "expected an object")
        key = lookup(record, join.by)
        if key is MISSING:
            raise loc.error(join.by, "missing (join.by)")
        if str(key) not in table:
            if join.unmatched == "skip":
                skipped += 1
                continue
            raise loc.error(join.by, f"no record with key {key!r} in {path.name}")
        yield loc, {**record, join.as_: table[str(key)]}, ident
    if skipped:
        logger.warning(
            "%d records without a match in %s skipped (join.unmatched: skip)", skipped, path
        )


def with_default_ids(
    records: Iterator[tuple[Loc, Any]], spec: Source
) -> Iterator[tuple[Loc, Any, str]]:
    """Each record with its default id: its position, or ``<key>-<position in the key's list>``."""
    per_key: Counter[str] = Counter()
    for index, (loc, record) in enumerate(records):
        ident = f"{index:05d}"
        if spec.layout != "list":
            key = str(record[spec.key_field])
            ident = f"{key}-{per_key[key]}" if spec.layout == "dict_of_lists" else key
            per_key[key] += 1
        yield loc, record, ident
