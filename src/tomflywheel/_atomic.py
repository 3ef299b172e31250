"""Whole files replaced atomically: a temp file beside the target, fsynced, then renamed over it.

A reader sees the old file or the new one, never half of either; ``tomflywheel._io`` re-exports
these for the artifact writers.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_chunks(path: Path, chunks: Iterable[bytes | Path]) -> None:
    """Replace ``path`` with the concatenated ``chunks`` atomically, writing them as they come.

    A temp file beside ``path`` takes each chunk when it is produced (memory holds one chunk,
    not the file), is fsynced and renamed over ``path``; a failure leaves ``path`` untouched.
    A chunk given as a file's path is that file's content, copied by the kernel.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give what open() would
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                if isinstance(chunk, Path):
                    handle.flush()
                    _copy_file(chunk, handle)
                else:
                    handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _copy_file(source: Path, handle: BinaryIO) -> None:
    """Append a file's content to an open file, in the kernel where it can."""
    with source.open("rb") as reader:
        size = os.fstat(reader.fileno()).st_size
        copied = 0
        try:
            while copied < size:
                step = os.copy_file_range(reader.fileno(), handle.fileno(), size - copied)
                if step == 0:
                    break
                copied += step
        except (AttributeError, OSError):  # no copy_file_range here: copy through memory
            pass
        if copied < size:
            reader.seek(copied)
            shutil.copyfileobj(reader, handle)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically (temp file, fsync, ``os.replace``)."""
    atomic_write_chunks(path, [text.encode("utf-8")])


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON, atomically."""
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2) + "\n")
