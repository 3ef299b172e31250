"""The importer registry: one named factory per benchmark format."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tomflywheel._registry import Registry
from tomflywheel.schema import Sample

Importer = Callable[..., Iterator[Sample]]
"""``(source: Path, *, <typed options>) -> Iterator[Sample]``."""

IMPORTERS: Registry[Importer] = Registry("importer")
"""Importers by name; each ``datasets/_<benchmark>.py`` module registers its own."""
