"""The scores no shortcut passes (a ``metrics.json`` ``shortcut`` entry) as rows, lines and HTML.

The entry is :func:`tomflywheel.audit.shortcut_scores` of the model's answers: belief-balanced
accuracy (the mean of false- and true-belief accuracy, which a rule tracking no mind holds at
50%), story-level and paired accuracy, every heuristic's four figures and the model's margin
over the best one. A held-out set's before/after pair (a round summary's ``lift`` entry
``shortcut``) renders as rows of the lift table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tomflywheel.audit import score_lines
from tomflywheel.report._html import esc, table_html

METRICS = ("accuracy", "belief_balanced", "story_level", "paired")
"""The four figures, scored for the model and for every heuristic."""

LABELS = {
    "accuracy": "accuracy",
    "belief_balanced": "belief-balanced",
    "story_level": "story level",
    "paired": "paired",
}
"""Each of the four figures in words."""

NOTE = (
    "Belief-balanced accuracy is the mean of false-belief and true-belief accuracy (world "
    "questions apart): a rule that tracks no mind, such as “always the true location”, scores "
    "exactly 50% on it. Story level counts a story only when every question of it is right; "
    "paired, a false-belief item and its true-belief twin only when both are right."
)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _points(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}"


def headline(scores: Mapping[str, Any] | None, metric: str) -> float | None:
    """The model's headline number on one of :data:`METRICS` (``None`` where undefined)."""
    figure = (scores or {}).get(metric)
    if figure is None:
        return None
    return figure["value"] if metric == "belief_balanced" else figure["accuracy"]


def margin(scores: Mapping[str, Any] | None, metric: str) -> dict[str, Any] | None:
    """Model minus the best heuristic on one metric: ``heuristic``, ``value``, maybe ``ci95``.

    On ``accuracy`` it is the paired clustered ``margin`` over ``best_heuristic``.
    """
    if not scores:
        return None
    if metric != "accuracy":
        return scores.get(f"{metric}_margin")
    lift = scores.get("margin")
    if not lift:
        return None
    return {
        "heuristic": scores["best_heuristic"],
        "value": lift["lift"],
        "ci95": (lift["low"], lift["high"]),
    }


def _row(label: str, group: str, value: str, figure: Mapping[str, Any], n: int) -> dict[str, Any]:
    ci = figure.get("ci95") or (None, None)
    return {
        "dataset": label,
        "group": group,
        "value": value,
        "n": n,
        "correct": figure.get("correct"),
        "accuracy": figure.get("accuracy", figure.get("value")),
        "ci95_low": ci[0],
        "ci95_high": ci[1],
        "chance": None,
    }


def shortcut_rows(metrics: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Belief-balanced (with its two sides), story-level and paired rows of one dataset.

    The belief-balanced row's ``n`` is both sides' items and its ``correct`` is empty: the
    figure is a mean of two rates, not a count over them.
    """
    scores = metrics.get("shortcut")
    if not scores:
        return []
    label = metrics["dataset"]
    rows = []
    balanced = scores.get("belief_balanced")
    if balanced:
        sides = balanced["false_belief"], balanced["true_belief"]
        mean = {"value": balanced["value"], "ci95": balanced["ci95"]}
        rows.append(
            _row(label, "belief_balanced", "mean of FB and TB", mean, sum(s["n"] for s in sides))
        )
        rows.append(_row(label, "belief_balanced", "false belief", sides[0], sides[0]["n"]))
        rows.append(_row(label, "belief_balanced", "true belief", sides[1], sides[1]["n"]))
    level = scores.get("story_level")
    if level:
        rows.append(_row(label, "story_level", "every question right", level, level["stories"]))
    paired = scores.get("paired")
    if paired:
        rows.append(_row(label, "paired", "both twins right", paired, paired["pairs"]))
    return rows


def heuristic_rows(scores: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The model, every heuristic (most accurate first) and the margin, on the four figures."""
    best = scores.get("best_heuristic")
    rows = [("model", *(_pct(headline(scores, m)) for m in METRICS))]
    heuristics = scores.get("heuristics") or {}
    for name in sorted(heuristics, key=lambda n: (-(heuristics[n]["accuracy"] or 0.0), n)):
        shown = f"{name} (best)" if name == best else name
        rows.append((shown, *(_pct(heuristics[name][m]) for m in METRICS)))
    diffs = [margin(scores, m) for m in METRICS]
    rows.append(
        (
            "margin (model − best)",
            *(_points(d["value"]) + f" vs {d['heuristic']}" if d else "–" for d in diffs),
        )
    )
    return rows


def scores_html(scores: Mapping[str, Any] | None) -> str:
    """A dataset's section of the experiment report (empty for a set that asks no minds)."""
    if not scores:
        return ""
    lines = "".join(f"<li>{esc(line)}</li>" for line in score_lines(scores))
    picks = ((scores.get("heuristics") or {}).get("by_question_type") or {}).get("picks") or {}
    picked = (
        '<p class="note">by_question_type answers each question family with the heuristic '
        "right most often there: "
        + esc(", ".join(f"{family} → {name}" for family, name in sorted(picks.items())))
        + "</p>"
        if picks
        else ""
    )
    headers = ("who", *(f"{LABELS[m]} %" for m in METRICS))
    return (
        "<h3>Scores no shortcut passes</h3>"
        f'<p class="note">{esc(NOTE)}</p>'
        f'<ul class="scores">{lines}</ul>' + table_html(headers, heuristic_rows(scores)) + picked
    )


def _cell(figure: Mapping[str, Any] | None, metric: str) -> str:
    """``61.5 [54.2, 68.8]``: a figure with its interval (``–`` where undefined)."""
    value = headline({metric: figure}, metric)
    if value is None:
        return "–"
    ci = figure.get("ci95") if figure else None
    return _pct(value) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "")


def margin_note(before: Mapping[str, Any], after: Mapping[str, Any], metric: str) -> str:
    """``margin over true_location +2.0 → +11.5`` (both sides' best heuristic, if it differs)."""
    first, second = margin(before, metric), margin(after, metric)
    if not first and not second:
        return ""
    names = {d["heuristic"] for d in (first, second) if d}
    value = [_points(d["value"]) if d else "–" for d in (first, second)]
    return f"margin over {' / '.join(sorted(names))} {value[0]} → {value[1]}"


_SIZES = {"belief_balanced": None, "story_level": "stories", "paired": "pairs"}


def _size(figure: Mapping[str, Any] | None, metric: str) -> int | str:
    if not figure:
        return "–"
    key = _SIZES[metric]
    if key is None:
        return figure["false_belief"]["n"] + figure["true_belief"]["n"]
    return figure[key]


def heldout_rows(
    entry: Mapping[str, Any], suffix: str = ""
) -> list[tuple[str, int | str, str, str, str, str]]:
    """(part, n, before, after, lift points, note) of a held-out set's shortcut-proof scores.

    ``entry`` is a lift entry's ``shortcut`` (``before`` and ``after`` scores, ``lift``):
    a row per figure either side has, belief-balanced first, the note giving the margin over
    the best heuristic before and after. Empty when neither side asks minds.
    """
    before, after = entry.get("before") or {}, entry.get("after") or {}
    lifts = entry.get("lift") or {}
    rows = []
    for metric in ("belief_balanced", "story_level", "paired"):
        if before.get(metric) is None and after.get(metric) is None:
            continue
        rows.append(
            (
                LABELS[metric] + suffix,
                _size(after.get(metric) or before.get(metric), metric),
                _cell(before.get(metric), metric),
                _cell(after.get(metric), metric),
                _points(lifts.get(metric)),
                margin_note(before, after, metric),
            )
        )
    return rows


def margin_cell(scores: Mapping[str, Any] | None, metric: str = "accuracy") -> str:
    """``+12.3 vs true_location`` (``–`` without scores)."""
    found = margin(scores, metric)
    return "–" if found is None else f"{_points(found['value'])} vs {found['heuristic']}"


def balanced_cell(scores: Mapping[str, Any] | None) -> str:
    """Belief-balanced accuracy with its interval, for a table (``–`` where undefined)."""
    return _cell((scores or {}).get("belief_balanced"), "belief_balanced")


def _side(scores: Mapping[str, Any] | None, side: str) -> str:
    balanced = (scores or {}).get("belief_balanced")
    return "–" if not balanced else _pct(balanced[side]["accuracy"])


def round_score_rows(rounds: Sequence[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    """(round, dataset, belief-balanced, FB, TB, story level, paired, margin) per evaluated set.

    From each round summary's ``accuracy`` entries; sets without scores (asking no minds, or
    summaries written before them) are left out.
    """
    rows = []
    for summary in rounds:
        for dataset, entry in sorted((summary.get("accuracy") or {}).items()):
            scores = entry.get("shortcut")
            if not scores:
                continue
            rows.append(
                (
                    summary["round"],
                    dataset,
                    balanced_cell(scores),
                    _side(scores, "false_belief"),
                    _side(scores, "true_belief"),
                    _cell(scores.get("story_level"), "story_level"),
                    _cell(scores.get("paired"), "paired"),
                    margin_cell(scores),
                )
            )
    return rows


ROUND_HEADERS = (
    "round",
    "dataset",
    "belief-balanced %",
    "false belief %",
    "true belief %",
    "story level %",
    "paired %",
    "margin over best heuristic",
)
"""The columns of :func:`round_score_rows`."""
