"""Helpers for importer tests: corrupted copies in tmp_path and the all-or-nothing check."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tomflywheel.datasets import import_dataset
from tomflywheel.errors import DataError


def copy_tree(source: Path, target: Path) -> Path:
    """A writable copy of a benchmark file or folder."""
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def edit_lines(path: Path, edit: Callable[[list[str]], list[str]]) -> Path:
    """Rewrite a text file through ``edit`` (a list of lines with their endings)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(edit(lines)), encoding="utf-8", newline="")
    return path


@pytest.fixture
def fails_cleanly(tmp_path: Path) -> Callable[..., DataError]:
    """Import expecting a DataError; checks nothing was written and returns the error."""

    def check(name: str, source: Path, **options: object) -> DataError:
        out = tmp_path / "out" / f"{name}.jsonl"
        with pytest.raises(DataError) as info:
            import_dataset(name, source, out=out, **options)
        assert not out.exists()
        assert not out.parent.exists() or list(out.parent.iterdir()) == []
        return info.value

    return check
