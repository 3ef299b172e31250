"""Benchmarks kept as one file per split: import every split a folder holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tomflywheel.datasets._import import load_benchmark
from tomflywheel.datasets._tomi import tomi_splits
from tomflywheel.schema import Sample

_SPLITS: dict[str, Callable[[Path], list[str]]] = {"tomi": tomi_splits}
"""Importers whose ``split`` option picks one file of a folder: how to list a folder's splits."""


def load_all_splits(name: str, source: Path) -> list[Sample]:
    """Import a benchmark whole: every split a folder holds, else what ``load_benchmark`` reads.

    Only ToMi keeps its splits in separate files; a ToMi folder yields its splits in name order
    (test, train, val), a ToMi ``.txt`` file or any other benchmark one import.

    Args:
        name: Registered importer.
        source: The benchmark's file or folder.

    Raises:
        ConfigError: Unknown importer.
        DataError: A malformed record (file, line, field), duplicate ids, or no split files.
    """
    splits = _SPLITS.get(name)
    if splits is None or not Path(source).is_dir():
        return load_benchmark(name, source)
    return [s for split in splits(Path(source)) for s in load_benchmark(name, source, split=split)]
