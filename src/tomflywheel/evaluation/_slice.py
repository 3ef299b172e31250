"""Which N samples ``max_samples`` keeps: a seeded slice stratified by the task's groups."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

from tomflywheel._rng import rng_for, stable_seed
from tomflywheel.schema import Sample

SliceMode = Literal["stratified", "first"]

_PURPOSE = "max-samples"


def _stratum(sample: Sample, fields: Sequence[str]) -> tuple[str, ...]:
    return tuple(str(sample.meta.get(name)) for name in fields)


def _units(samples: Sequence[Sample], unit_by: str | None) -> list[list[int]]:
    """Indices of samples that only count together (``all_correct_by``), in file order."""
    if unit_by is None:
        return [[i] for i in range(len(samples))]
    units: dict[object, list[int]] = {}
    for i, sample in enumerate(samples):
        value = sample.meta.get(unit_by)
        units.setdefault(("unit", value) if value is not None else ("id", sample.id), []).append(i)
    return list(units.values())


def spread_order(
    samples: Sequence[Sample], *, fields: Sequence[str], unit_by: str | None, key: str
) -> list[list[int]]:
    """Units (lists of sample indices) ordered so that every prefix is a stratified sample.

    Within a stratum, units are ordered by a stable hash of their first sample's id; the
    stratum's i-th unit is placed at ``(i + offset) / size``, so a prefix of any length holds
    each stratum in proportion to its size (±1). The order does not depend on the file's order.
    """
    strata: dict[tuple[str, ...], list[list[int]]] = defaultdict(list)
    for unit in _units(samples, unit_by):
        strata[_stratum(samples[unit[0]], fields)].append(unit)
    rng = rng_for(_PURPOSE, key)
    placed: list[tuple[float, int, list[int]]] = []
    for stratum in sorted(strata):
        units = sorted(strata[stratum], key=lambda u: stable_seed(key, samples[u[0]].id))
        offset = rng.random()
        tie = stable_seed(key, stratum)
        placed.extend(((i + offset) / len(units), tie, unit) for i, unit in enumerate(units))
    placed.sort(key=lambda item: (item[0], item[1]))
    return [unit for _, _, unit in placed]


def take_samples(
    samples: Sequence[Sample],
    limit: int,
    *,
    mode: SliceMode,
    fields: Sequence[str] = (),
    unit_by: str | None = None,
    key: str,
) -> list[Sample]:
    """At most ``limit`` samples, in file order.

    Args:
        samples: The dataset, in file order.
        limit: How many to keep.
        mode: ``first``: the first ``limit``; ``stratified``: a seeded slice in which each group
            (the crossed values of ``fields``) keeps its share of the dataset.
        fields: ``meta`` fields whose values define the groups (the task's metric groupings).
        unit_by: A ``meta`` field linking samples that only count together: they are kept or
            dropped together (so the slice may hold a few fewer than ``limit``).
        key: Seeds the slice, with the purpose (the dataset's name).
    """
    if limit >= len(samples):
        return list(samples)
    if mode == "first":
        return list(samples[:limit])
    kept: list[int] = []
    for unit in spread_order(samples, fields=fields, unit_by=unit_by, key=key):
        if len(kept) + len(unit) <= limit:
            kept.extend(unit)
        if len(kept) == limit:
            break
    return [samples[i] for i in sorted(kept)]
