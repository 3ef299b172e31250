"""Artifact I/O: line-atomic append-only JSONL, and whole files replaced atomically (``_atomic``).

One module owns this so a crash can never leave a half-written record that a later stage trusts.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, overload

import msgspec
from pydantic import BaseModel, ValidationError

from tomflywheel._atomic import atomic_write_chunks
from tomflywheel._atomic import atomic_write_json as atomic_write_json  # re-exported
from tomflywheel._atomic import atomic_write_text as atomic_write_text  # re-exported
from tomflywheel.errors import DataError, PathError

M = TypeVar("M", bound=BaseModel)
_decode_json = msgspec.json.Decoder().decode


def to_json_line(record: BaseModel | dict[str, Any]) -> str:
    """Serialize one record as a compact JSON line (no trailing newline); same input, same bytes."""
    if isinstance(record, BaseModel):
        return record.model_dump_json()
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def json_line_bytes(record: BaseModel | dict[str, Any]) -> bytes:
    """``to_json_line(record)`` and a newline, as UTF-8 bytes.

    A model's serializer writes bytes; going through ``str`` and back cost a generated file's
    writer a quarter of its serializing time.
    """
    if isinstance(record, BaseModel):
        return record.__pydantic_serializer__.to_json(record) + b"\n"
    return (to_json_line(record) + "\n").encode("utf-8")


def _loc_to_field(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts) or "(record)"


def validation_error_field(err: ValidationError) -> tuple[str, str]:
    """The first error of a pydantic ``ValidationError`` as (dotted field, reason)."""
    first = err.errors()[0]
    return _loc_to_field(tuple(first["loc"])), first["msg"]


def not_utf8(path: Path | str, data: bytes | None = None) -> DataError:
    """The error for a file that is not UTF-8: ``file:line: not UTF-8 (byte offset N)``.

    Args:
        path: The file (shown in the message; read again when ``data`` is not given).
        data: The file's bytes, when the caller has them already.
    """
    if data is None:
        data = Path(path).read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return not_utf8_at(path, data.count(b"\n", 0, err.start) + 1, err.start)
    # A text stream may also fail on a valid file cut mid-character by a concurrent writer.
    return DataError(path, None, None, "not UTF-8")


def not_utf8_at(path: Path | str, line: int, offset: int) -> DataError:
    """``file:line: not UTF-8 (byte offset N)``, for a reader that knows where the bad byte is."""
    return DataError(path, line, None, f"not UTF-8 (byte offset {offset})")


@contextlib.contextmanager
def utf8_errors(path: Path | str) -> Iterator[None]:
    """Turn a ``UnicodeDecodeError`` raised while reading ``path`` into ``not_utf8(path)``.

    Text streams report the offset within a buffer, not the file: the file is scanned again, on
    the error path only, to name its line and byte offset.
    """
    try:
        yield
    except UnicodeDecodeError as err:
        raise not_utf8(path) from err


def read_text(path: Path | str) -> str:
    """The whole UTF-8 text of ``path``.

    Raises:
        DataError: Not UTF-8; names the line and byte offset of the first bad byte.
        OSError: The file cannot be read (the caller knows what the file is for).
    """
    with utf8_errors(path):
        return Path(path).read_text(encoding="utf-8")


def decode_utf8(data: bytes, path: Path | str) -> str:
    """``data`` (the content of ``path``, e.g. an archive member) decoded as UTF-8.

    Raises:
        DataError: Not UTF-8; names the line and byte offset of the first bad byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise not_utf8(path, data) from err


def require_folder(path: Path | str, what: str = "folder") -> Path:
    """``path`` if it is an existing folder.

    Raises:
        PathError: It does not exist, or is not a folder; ``what`` names what was expected.
    """
    path = Path(path)
    if not path.exists():
        raise PathError(path, None, None, f"no such {what}")
    if not path.is_dir():
        raise PathError(path, None, None, f"not a folder (expected the {what})")
    return path


def require_writable(path: Path | str) -> Path:
    """``path`` if it can be created or written: checked before a long job, not after.

    Raises:
        PathError: An ancestor in the way is a file, or the nearest existing folder is not
            writable.
    """
    path = Path(path)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing != path and not existing.is_dir():
        raise PathError(existing, None, None, f"not a folder, so {path} cannot be made in it")
    folder = existing if existing.is_dir() else existing.parent
    if not os.access(folder, os.W_OK):
        raise PathError(folder, None, None, "no permission to write here")
    return path


def is_whole_line(raw: bytes) -> bool:
    """Whether a last line without its newline is a whole record (the newline alone was lost).

    The one rule for an unterminated last line, shared by the readers and ``JsonlAppender``: it
    is kept when it parses as JSON, and is otherwise a write cut mid-way, to be dropped. A strict
    prefix of a JSON object never parses (its closing brace comes last), so a kept line is never
    half a record; and because both sides apply this rule, a record a reader counted as done is
    never the line the appender cuts.
    """
    try:
        json.loads(raw.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError both are
        return False
    return True


def _fast_object(raw: bytes) -> dict[str, Any] | None:
    """The line's JSON object by msgspec (about twice the standard parser); None otherwise.

    msgspec reads what the standard parser reads, integers of any size included; whatever it
    refuses or that is not an object (invalid UTF-8 or JSON, NaN, a lone surrogate, a blank
    line) goes to the standard parser, which accepts what it always did and names the error.
    """
    try:
        obj = _decode_json(raw)
    except ValueError:  # msgspec.DecodeError is one, and so is a bad byte's UnicodeDecodeError
        return None
    return obj if isinstance(obj, dict) else None


def iter_jsonl(
    path: Path, *, tolerate_partial_tail: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line number, object) for each non-blank line of a JSONL file.

    Args:
        path: The file to read.
        tolerate_partial_tail: Stop silently at a last line without a newline that is not a whole
            line (``is_whole_line``: a write cut by a crash); artifact readers resuming a stage
            want this. A last line that parses is read either way.

    Raises:
        DataError: A line is not JSON or not an object, or the file is not UTF-8; names file and
            line.
    """
    offset = 0
    # Bytes line by line: a bad byte is reported exactly, and the lines before it are kept.
    with Path(path).open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if tolerate_partial_tail and not raw.endswith(b"\n") and not is_whole_line(raw):
                return
            obj = _fast_object(raw)
            if obj is not None:
                offset += len(raw)
                yield number, obj
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise not_utf8_at(path, number, offset + err.start) from err
            offset += len(raw)
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise DataError(path, number, None, f"invalid JSON ({err.msg})") from err
            if not isinstance(obj, dict):
                kind = "null" if obj is None else type(obj).__name__
                raise DataError(path, number, None, f"expected a JSON object, got {kind}")
            yield number, obj


@overload
def read_jsonl(path: Path, model: type[M], *, tolerate_partial_tail: bool = ...) -> Iterator[M]: ...
@overload
def read_jsonl(
    path: Path, model: None = ..., *, tolerate_partial_tail: bool = ...
) -> Iterator[dict[str, Any]]: ...


def read_jsonl(
    path: Path,
    model: type[M] | None = None,
    *,
    tolerate_partial_tail: bool = False,
) -> Iterator[M] | Iterator[dict[str, Any]]:
    """Yield the records of a JSONL file, validated against ``model`` when given.

    Blank lines are skipped.

    Args:
        path: The file to read.
        model: A pydantic model each line must satisfy.
        tolerate_partial_tail: Skip a last line without a newline that is not valid JSON (a write
            cut by a crash); artifact readers resuming a stage want this, input readers do not.

    Raises:
        DataError: A line is not JSON, not an object, or fails validation; names file:line:field.
    """
    path = Path(path)
    for number, obj in iter_jsonl(path, tolerate_partial_tail=tolerate_partial_tail):
        if model is None:
            yield obj
            continue
        try:
            yield model.model_validate(obj)
        except ValidationError as err:
            field, reason = validation_error_field(err)
            raise DataError(path, number, field, reason) from err


def repair_partial_tail(path: Path) -> int:
    """Settle an unterminated last line left by a kill; returns the bytes removed.

    The same rule as the readers (``is_whole_line``): a whole line gets its newline back and
    stays; anything else is cut.
    """
    if not path.exists():
        return 0
    with path.open("rb+") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        if size == 0:
            return 0
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return 0
        start = _last_line_start(handle, size)
        handle.seek(start)
        if is_whole_line(handle.read(size - start)):
            handle.seek(size)
            handle.write(b"\n")
            return 0
        handle.truncate(start)
        return size - start


def _last_line_start(handle: BinaryIO, size: int) -> int:
    """Offset just past the last newline before ``size`` (0 when there is none)."""
    # Walk back in chunks; files can be large.
    pos = size
    while pos > 0:
        step = min(65536, pos)
        pos -= step
        handle.seek(pos)
        cut = handle.read(step).rfind(b"\n")
        if cut >= 0:
            return pos + cut + 1
    return 0


class JsonlAppender:
    """Append-only, line-atomic JSONL writer: each record is one ``write`` of a complete line.

    Opening settles an unterminated last line left by a kill (``repair_partial_tail``: a whole
    line is terminated, a cut one removed), so readers only ever see whole records.

    Args:
        path: The file to append to (created with its parent folders).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair_partial_tail(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: BaseModel | dict[str, Any]) -> None:
        """Append one record as one line."""
        view = memoryview(json_line_bytes(record))
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def extend(self, records: Iterable[BaseModel | dict[str, Any]]) -> int:
        """Append many records; returns how many."""
        count = 0
        for record in records:
            self.append(record)
            count += 1
        return count

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def jsonl_bytes(records: Iterable[BaseModel | dict[str, Any]]) -> tuple[bytes, int]:
    """The records as JSONL bytes (one line each, newline-terminated), and how many."""
    lines = [json_line_bytes(record) for record in records]
    return b"".join(lines), len(lines)


def write_jsonl_atomic(path: Path, records: Iterable[BaseModel | dict[str, Any]]) -> int:
    """Write a whole JSONL file atomically, all records or nothing; returns the count.

    Records are serialized and written as they come, so a long stream is never held whole.
    """
    count = 0

    def lines() -> Iterator[bytes]:
        nonlocal count
        for record in records:
            count += 1
            yield json_line_bytes(record)

    atomic_write_chunks(path, lines())
    return count


class OrderedAppender:
    """Buffers results by index and appends each as soon as all earlier ones are written.

    A kill loses only results still buffered; their requests are in the request cache, so a
    resume gets them back for free.

    Args:
        appender: The line-atomic JSONL writer.
    """

    def __init__(self, appender: JsonlAppender) -> None:
        self._appender = appender
        self._pending: dict[int, BaseModel] = {}
        self._next = 0
        self.written = 0

    def put(self, index: int, record: BaseModel) -> None:
        """Hand over result ``index``; writes every result that is now in order."""
        self._pending[index] = record
        while self._next in self._pending:
            self._appender.append(self._pending.pop(self._next))
            self._next += 1
            self.written += 1


def timestamp_name(folder: Path) -> str:
    """A new folder name under ``folder``: the current time, e.g. ``20261121-183005``.

    ``-2``, ``-3``, ... is added when that name is taken.
    """
    base = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    candidate, n = base, 1
    while (Path(folder) / candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
