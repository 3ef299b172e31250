"""Benchmark checks: re-derive the gold answers of imported ToMi, Hi-ToM and tgtom samples.

The benchmarks' files are read by their importers (``tomflywheel.datasets``, which may import
the world, never the reverse); a check interprets the normalized samples, compares every
re-derived answer with its gold, and explains each mismatch from the story. A story or
question no parser reads is counted as unparsed, with its line and reason; the check goes on.

May import: ``model``, ``physics``, ``verifiers``, ``language``, ``samples``, ``generators``.
"""

from tomflywheel.world.checks._check import (
    DEFAULT_PROFILES,
    Benchmark,
    CheckReport,
    CheckRow,
    Mismatch,
    check_items,
    check_samples,
)
from tomflywheel.world.checks._hitom import hitom_items
from tomflywheel.world.checks._item import CheckItem, Unparsed
from tomflywheel.world.checks._labels import LabelReading, LabelStatus, benchmark_of, read_labels
from tomflywheel.world.checks._tgtom import tgtom_items, tgtom_spec
from tomflywheel.world.checks._tomi import tomi_items

__all__ = [
    "DEFAULT_PROFILES",
    "Benchmark",
    "CheckItem",
    "CheckReport",
    "CheckRow",
    "LabelReading",
    "LabelStatus",
    "Mismatch",
    "Unparsed",
    "benchmark_of",
    "check_items",
    "check_samples",
    "hitom_items",
    "read_labels",
    "tgtom_items",
    "tgtom_spec",
    "tomi_items",
]
