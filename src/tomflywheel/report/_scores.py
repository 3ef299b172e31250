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

from tomflywheel.artifacts import (
    BeliefBalanced,
    Margin,
    Metric,
    PairedScore,
    RoundSummary,
    ShortcutLift,
    ShortcutScores,
    StoryLevel,
    shortcut_scores_of,
)
from tomflywheel.audit import score_lines
from tomflywheel.report._html import esc, table_html

METRICS: tuple[Metric, ...] = ("accuracy", "belief_balanced", "story_level", "paired")
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

Figure = BeliefBalanced | StoryLevel | PairedScore
"""One of the three scores no shortcut passes, with its interval."""


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _points(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}"


def margin(scores: ShortcutScores | None, metric: Metric) -> Margin | None:
    """Model minus the best heuristic on one metric (``None`` without scores).

    On ``accuracy`` it is the paired clustered ``margin`` over ``best_heuristic``.
    """
    return scores.margin_on(metric) if scores else None


def _row(
    label: str, group: str, value: str, figure: Figure | Mapping[str, Any], n: int
) -> dict[str, Any]:
    data = figure if isinstance(figure, Mapping) else figure.model_dump()
    ci = data.get("ci95") or (None, None)
    return {
        "dataset": label,
        "group": group,
        "value": value,
        "n": n,
        "correct": data.get("correct"),
        "accuracy": data.get("accuracy", data.get("value")),
        "ci95_low": ci[0],
        "ci95_high": ci[1],
        "chance": None,
    }


def shortcut_rows(metrics: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Belief-balanced (with its two sides), story-level and paired rows of one dataset.

    The belief-balanced row's ``n`` is both sides' items and its ``correct`` is empty: the
    figure is a mean of two rates, not a count over them.
    """
    scores = shortcut_scores_of(metrics)
    if scores is None:
        return []
    label = metrics["dataset"]
    rows = []
    balanced = scores.belief_balanced
    if balanced:
        sides = balanced.false_belief, balanced.true_belief
        mean = {"value": balanced.value, "ci95": balanced.ci95}
        rows.append(
            _row(label, "belief_balanced", "mean of FB and TB", mean, sum(s.n for s in sides))
        )
        for name, side in zip(("false belief", "true belief"), sides, strict=True):
            rows.append(_row(label, "belief_balanced", name, side.model_dump(), side.n))
    if scores.story_level:
        level = scores.story_level
        rows.append(_row(label, "story_level", "every question right", level, level.stories))
    if scores.paired:
        rows.append(_row(label, "paired", "both twins right", scores.paired, scores.paired.pairs))
    return rows


def heuristic_rows(scores: ShortcutScores) -> list[tuple[str, ...]]:
    """The model, every heuristic (most accurate first) and the margin, on the four figures."""
    best = scores.best_heuristic
    rows = [("model", *(_pct(scores.headline(m)) for m in METRICS))]
    heuristics = scores.heuristics
    for name in sorted(heuristics, key=lambda n: (-(heuristics[n].accuracy or 0.0), n)):
        shown = f"{name} (best)" if name == best else name
        rows.append((shown, *(_pct(heuristics[name].figure(m)) for m in METRICS)))
    diffs = [scores.margin_on(m) for m in METRICS]
    rows.append(
        (
            "margin (model − best)",
            *(_points(d.value) + f" vs {d.heuristic}" if d else "–" for d in diffs),
        )
    )
    return rows


def scores_html(scores: ShortcutScores | None) -> str:
    """A dataset's section of the experiment report (empty for a set that asks no minds)."""
    if scores is None:
        return ""
    lines = "".join(f"<li>{esc(line)}</li>" for line in score_lines(scores.as_json()))
    found = scores.heuristics.get("by_question_type")
    picks = (found.picks if found else None) or {}
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


def _value(figure: Figure | None) -> float | None:
    if figure is None:
        return None
    return figure.value if isinstance(figure, BeliefBalanced) else figure.accuracy


def _cell(figure: Figure | None) -> str:
    """``61.5 [54.2, 68.8]``: a figure with its interval (``–`` where undefined)."""
    value = _value(figure)
    if figure is None or value is None:
        return "–"
    ci = figure.ci95
    return _pct(value) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "")


def margin_note(before: ShortcutScores | None, after: ShortcutScores | None, metric: Metric) -> str:
    """``margin over true_location +2.0 → +11.5`` (both sides' best heuristic, if it differs)."""
    first, second = margin(before, metric), margin(after, metric)
    if not first and not second:
        return ""
    names = {d.heuristic for d in (first, second) if d}
    value = [_points(d.value) if d else "–" for d in (first, second)]
    return f"margin over {' / '.join(sorted(names))} {value[0]} → {value[1]}"


def _figure(scores: ShortcutScores | None, metric: Metric) -> Figure | None:
    if scores is None:
        return None
    if metric == "belief_balanced":
        return scores.belief_balanced
    return scores.story_level if metric == "story_level" else scores.paired


def _size(figure: Figure | None) -> int | str:
    if figure is None:
        return "–"
    if isinstance(figure, BeliefBalanced):
        return figure.false_belief.n + figure.true_belief.n
    return figure.stories if isinstance(figure, StoryLevel) else figure.pairs


def heldout_rows(
    entry: ShortcutLift | None, suffix: str = ""
) -> list[tuple[str, int | str, str, str, str, str]]:
    """(part, n, before, after, lift points, note) of a held-out set's shortcut-proof scores.

    ``entry`` is a lift entry's ``shortcut`` (``before`` and ``after`` scores, ``lift``):
    a row per figure either side has, belief-balanced first, the note giving the margin over
    the best heuristic before and after. Empty when neither side asks minds.
    """
    if entry is None:
        return []
    rows = []
    lifts = entry.lift
    for metric in ("belief_balanced", "story_level", "paired"):
        first, second = _figure(entry.before, metric), _figure(entry.after, metric)
        if first is None and second is None:
            continue
        rows.append(
            (
                LABELS[metric] + suffix,
                _size(second or first),
                _cell(first),
                _cell(second),
                _points(getattr(lifts, metric)),
                margin_note(entry.before, entry.after, metric),
            )
        )
    return rows


def margin_cell(scores: ShortcutScores | None, metric: Metric = "accuracy") -> str:
    """``+12.3 vs true_location`` (``–`` without scores)."""
    found = margin(scores, metric)
    return "–" if found is None else f"{_points(found.value)} vs {found.heuristic}"


def balanced_cell(scores: ShortcutScores | None) -> str:
    """Belief-balanced accuracy with its interval, for a table (``–`` where undefined)."""
    return _cell(scores.belief_balanced if scores else None)


def _side(scores: ShortcutScores, side: str) -> str:
    balanced = scores.belief_balanced
    if balanced is None:
        return "–"
    return _pct(
        (balanced.false_belief if side == "false_belief" else balanced.true_belief).accuracy
    )


def round_score_rows(rounds: Sequence[RoundSummary]) -> list[tuple[Any, ...]]:
    """(round, dataset, belief-balanced, FB, TB, story level, paired, margin) per evaluated set.

    From each round summary's ``accuracy`` entries; sets without scores (asking no minds, or
    summaries written before them) are left out.
    """
    rows = []
    for summary in rounds:
        for dataset, entry in sorted(summary.accuracy.items()):
            scores = entry.shortcut
            if scores is None:
                continue
            rows.append(
                (
                    summary.round,
                    dataset,
                    balanced_cell(scores),
                    _side(scores, "false_belief"),
                    _side(scores, "true_belief"),
                    _cell(scores.story_level),
                    _cell(scores.paired),
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
