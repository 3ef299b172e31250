"""The shortcut scores (:func:`~tomflywheel.audit.shortcut_scores`) as a few plain lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tomflywheel.audit._scores import METRICS


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _interval(ci95: Any) -> str:
    return f" [{100 * ci95[0]:.1f}, {100 * ci95[1]:.1f}]" if ci95 else ""


def _head(scores: Mapping[str, Any], metric: str) -> str | None:
    """The model's figure on one metric, in words (``None``: undefined)."""
    figure = scores[metric]
    if figure is None:
        return None
    if metric == "accuracy":
        label, value, detail = "accuracy", figure["accuracy"], f"{figure['n']} items"
    elif metric == "belief_balanced":
        sides = (figure["false_belief"]["accuracy"], figure["true_belief"]["accuracy"])
        label, value = "belief-balanced", figure["value"]
        detail = f"FB {_percent(sides[0])}, TB {_percent(sides[1])}"
    elif metric == "story_level":
        label, value = "story level", figure["accuracy"]
        detail = f"{figure['stories']} stories, {figure['questions_per_story']:g} questions each"
    else:
        label, value, detail = "paired", figure["accuracy"], f"{figure['pairs']} pairs"
    if value is None:
        return None
    return f"{label} {_percent(value)}{_interval(figure['ci95'])} ({detail})"


def _versus(scores: Mapping[str, Any], metric: str) -> str:
    """`` · best heuristic …% (name) · margin +…`` for one metric (empty: undefined)."""
    if metric == "accuracy":
        lift = scores["margin"]
        diff = lift and {
            "heuristic": scores["best_heuristic"],
            "value": lift["lift"],
            "ci95": (lift["low"], lift["high"]),
        }
    else:
        diff = scores[f"{metric}_margin"]
    if not diff:
        return ""
    name, ci95 = diff["heuristic"], diff.get("ci95")
    interval = f" [{100 * ci95[0]:+.1f}, {100 * ci95[1]:+.1f}]" if ci95 else ""
    best = _percent(scores["heuristics"][name][metric])
    return f" · best heuristic {best} ({name}) · margin {100 * diff['value']:+.1f}{interval}"


def score_lines(scores: Mapping[str, Any]) -> list[str]:
    """:func:`shortcut_scores` as a few plain lines, one per figure that exists.

    E.g. ``belief-balanced 61.5% [54.2, 68.8] (FB 55.0%, TB 68.0%) · best heuristic 50.0%
    (true_location) · margin +11.5 [+3.1, +19.9]``.
    """
    lines = []
    for metric in METRICS:
        head = _head(scores, metric)
        if head is not None:
            lines.append(head + _versus(scores, metric))
    return lines
