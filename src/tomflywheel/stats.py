"""Small statistics: accuracy with a Wilson 95% interval, mean and spread."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054


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


def mean_and_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (``None`` where undefined)."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) < 2:
        return round(mean, 4), None
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return round(mean, 4), round(math.sqrt(var), 4)
