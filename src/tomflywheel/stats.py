"""Small statistics: accuracy with a Wilson 95% interval, paired lift clustered by story, means.

The paired lift's interval (:func:`paired_lift`), the between-seed interval
(:func:`mean_interval`) and the balanced-accuracy interval (:func:`balanced_accuracy_interval`)
are 95% intervals; their method is in their docstrings.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054

_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
    2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.13145, 2.119905, 2.109816, 2.100922,
    2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
    2.048407, 2.04523, 2.042272,
)  # fmt: skip
"""Student's t 97.5% quantiles for 1-30 degrees of freedom."""


def wilson_interval(correct: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (well-behaved near 0, 1 and for small n)."""
    if n == 0:
        return None
    p = correct / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def accuracy(correct: int, n: int) -> dict[str, Any]:
    """``{n, correct, accuracy, ci95}``; accuracy is ``None`` when nothing was judged."""
    return {
        "n": n,
        "correct": correct,
        "accuracy": round(correct / n, 4) if n else None,
        "ci95": wilson_interval(correct, n),
    }


def balanced_accuracy_interval(
    c1: int, n1: int, c2: int, n2: int, z: float = Z95
) -> tuple[float, float] | None:
    """95% interval of the mean of two accuracies ``c1/n1`` and ``c2/n2`` (balanced accuracy).

    Agresti-Caffo style: one success and one failure added to each side, then the normal
    approximation of the mean of two independent proportions, centred on the adjusted mean,
    clipped to ``[0, 1]``. It treats items as independent: clustering by story (several
    questions of one story) is ignored, so the interval is too narrow where answers of one
    story move together. ``None`` when either side has no item.
    """
    if n1 == 0 or n2 == 0:
        return None
    p1, p2 = (c1 + 1) / (n1 + 2), (c2 + 1) / (n2 + 2)
    centre = (p1 + p2) / 2
    half = z * math.sqrt(p1 * (1 - p1) / (n1 + 2) + p2 * (1 - p2) / (n2 + 2)) / 2
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def mean_and_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (``None`` where undefined)."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) < 2:
        return round(mean, 4), None
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return round(mean, 4), round(math.sqrt(var), 4)


def t975(df: int) -> float:
    """Student's t 97.5% quantile (two-sided 95%) for ``df >= 1`` degrees of freedom.

    A table to 30, then the Cornish-Fisher expansion around the normal quantile (within
    1e-5 of the exact value from 30 on).

    Raises:
        ValueError: ``df`` below 1.
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


@dataclass(frozen=True, slots=True)
class PairedLift:
    """A before/after change on the same items, with its 95% interval."""

    n: int
    """Items scored both times."""
    clusters: int
    """Stories (clusters) they come from."""
    gained: int
    """Wrong before, right after."""
    lost: int
    """Right before, wrong after."""
    lift: float
    """``(gained - lost) / n``: the change in accuracy."""
    low: float
    high: float
    design_effect: float
    """How much the clustering inflates the variance (1: items behave as independent)."""


def paired_lift(pairs: Sequence[tuple[Hashable, bool, bool]]) -> PairedLift | None:
    """The change in accuracy on the same items, its 95% interval clustered by story.

    ``pairs`` holds ``(cluster, right_before, right_after)`` per item; the cluster is the
    story the item asks about (ToMi and Hi-ToM ask several questions of one story, whose
    answers move together). ``None`` when there are no items.

    The interval is the Bonett-Price adjusted Wald interval for paired proportions (one
    pseudo-item added to each discordant cell: it never collapses to zero width, also when
    nothing flips or everything does, and it keeps its coverage at small n), its variance
    multiplied by a design effect for the clustering:

    - the design effect is the cluster-robust (CR1) variance of the mean change over the
      independent-items one, kept between 1 and ``sum(n_c**2) / n`` (every item of a story
      flipping together); when no item flips it cannot be estimated and takes that upper
      bound;
    - with clusters of more than one item, the quantile is Student's t with ``clusters - 1``
      degrees of freedom (the variance is estimated from that many clusters); with
      singletons it is the normal one, as in Bonett and Price (2012);
    - a single story of several items says nothing about the next story: ``[-1, +1]``.

    The interval is clipped to ``[-1, +1]``.
    """
    n = len(pairs)
    if n == 0:
        return None
    gained = sum(after and not before for _, before, after in pairs)
    lost = sum(before and not after for _, before, after in pairs)
    lift = (gained - lost) / n
    sums: dict[Hashable, list[int]] = {}
    for cluster, before, after in pairs:
        entry = sums.setdefault(cluster, [0, 0])
        entry[0] += int(after) - int(before)
        entry[1] += 1
    clusters = len(sums)
    # Bonett-Price: one pseudo-item in each discordant cell, two in n
    b, c = (lost + 1) / (n + 2), (gained + 1) / (n + 2)
    centre = c - b
    variance = (b + c - centre**2) / (n + 2)
    if clusters == n:
        deff, quantile = 1.0, Z95
    elif clusters == 1:
        return PairedLift(n, 1, gained, lost, lift, -1.0, 1.0, float(n))
    else:
        most = sum(size**2 for _, size in sums.values()) / n
        independent = (gained + lost - (gained - lost) ** 2 / n) / n**2
        robust = (
            clusters / (clusters - 1) * sum((s - size * lift) ** 2 for s, size in sums.values())
        ) / n**2
        deff = min(max(robust / independent, 1.0), most) if independent > 0 else most
        quantile = t975(clusters - 1)
    half = quantile * math.sqrt(variance * deff)
    return PairedLift(
        n=n,
        clusters=clusters,
        gained=gained,
        lost=lost,
        lift=lift,
        low=max(-1.0, centre - half),
        high=min(1.0, centre + half),
        design_effect=deff,
    )


def mean_interval(values: Sequence[float]) -> tuple[float, float, float] | None:
    """Mean of independent runs (e.g. data seeds) with its 95% Student's t interval.

    ``(mean, low, high)``; ``None`` with fewer than two values (no spread to measure).
    """
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = t975(len(values) - 1) * sd / math.sqrt(len(values))
    return mean, mean - half, mean + half
