"""The run report's fine-tuning and lift section, and its rows for the flywheel CLI's table.

Each held-out set before and after training: the scores no shortcut passes first
(belief-balanced accuracy, then story-level and paired, each with the margin over the best
heuristic), then accuracy on all items, targets and controls, each lift with its paired
interval clustered by story.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tomflywheel.artifacts import (
    PARTS,
    DatasetLift,
    Lifts,
    PairedLiftRecord,
    RoundSummary,
    TrainOutputs,
    ValidationRecord,
)
from tomflywheel.report._html import Bar, bar_chart, esc, table_html
from tomflywheel.report._scores import NOTE, heldout_rows, margin_note


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _comparisons(summary: RoundSummary) -> list[tuple[Lifts | None, str]]:
    """The round's lifts and the suffix each one's rows carry."""
    return [
        (summary.lift, ""),
        (summary.lift_vs_base, " vs base"),
        (summary.lift_vs_sft_stage, " vs SFT stage"),
    ]


def _part_rows(k: int, dataset: str, entry: DatasetLift, suffix: str) -> list[tuple[Any, ...]]:
    """All items, targets and controls: before, after, and the lift with its interval."""
    rows = []
    scores = entry.shortcut
    for part in PARTS:
        before, after = entry.before[part], entry.after[part]
        note = (entry.shortcut_warning or "") if part == "controls" else ""
        if part == "all" and scores:
            note = margin_note(scores.before, scores.after, "accuracy")
        rows.append(
            (
                k,
                dataset,
                part + suffix,
                before.n,
                _pct(before.accuracy),
                _pct(after.accuracy),
                _lift_cell(entry.lift[part], entry.paired.get(part)),
                note,
            )
        )
    return rows


def lift_rows(rounds: Sequence[RoundSummary]) -> list[tuple[Any, ...]]:
    """(round, dataset, part, n, before %, after %, lift points, note) for every held-out set.

    A round's lift is against the model it started from (the previous round's); rounds after
    the first add rows against the base model (``part`` ends in ``vs base``), and ``sft-grpo``
    rounds rows against their SFT stage (``vs SFT stage``: what GRPO added). The paired
    interval, clustered by story, follows the lift where the summary has it. A set that asks
    minds leads with its belief-balanced, story-level and paired rows (with intervals, the
    note giving the margin over the best heuristic), and its ``all`` row notes that margin on
    accuracy.
    """
    rows: list[tuple[Any, ...]] = []
    for summary in rounds:
        for lifts, suffix in _comparisons(summary):
            for dataset, entry in (lifts or {}).items():
                rows.extend(
                    (summary.round, dataset, *row) for row in heldout_rows(entry.shortcut, suffix)
                )
                rows.extend(_part_rows(summary.round, dataset, entry, suffix))
    return rows


def _lift_cell(lift: float | None, paired: PairedLiftRecord | None) -> str:
    if lift is None:
        return "–"
    if paired is None:
        return f"{100 * lift:+.1f}"
    return f"{100 * lift:+.1f} [{100 * paired.low:+.1f}, {100 * paired.high:+.1f}]"


def _reward(value: float | None) -> str:
    """A GRPO step's mean reward; a dash for supervised rounds, which have none."""
    return "–" if value is None else f"{value:.3f}"


def _validation(value: ValidationRecord | None) -> str:
    """The lowest validation loss, and the step the weights are from; a dash without one."""
    if value is None or not value.losses:
        return "–"
    step, loss = min(value.losses, key=lambda pair: pair[1])
    text = f"lowest {loss:.4f} at step {step}"
    if value.stopped_early:
        text += ", stopped early"
    if value.weights_from_step != step:
        text += f"; weights of step {value.weights_from_step}"
    return text


def _trained_row(k: int, trained: TrainOutputs) -> tuple[Any, ...]:
    return (
        k,
        trained.served_name,
        trained.method,
        trained.samples,
        trained.steps,
        trained.first_loss,
        trained.last_loss,
        _reward(trained.first_reward),
        _reward(trained.last_reward),
        _validation(trained.validation),
        trained.seconds,
    )


TRAINED_HEADERS = (
    "round",
    "model",
    "method",
    "samples",
    "steps",
    "first loss",
    "last loss",
    "first reward",
    "last reward",
    "validation loss",
    "seconds",
)


def _bars(rounds: Sequence[RoundSummary]) -> tuple[list[Bar], list[Bar]]:
    """Held-out accuracy before and after, and belief-balanced accuracy where a set has it."""
    bars, balanced = [], []
    for summary in rounds:
        for dataset, entry in (summary.lift or {}).items():
            for when in ("before", "after"):
                scores = getattr(entry.shortcut, when) if entry.shortcut else None
                figure = scores.belief_balanced if scores else None
                series = f"r{summary.round} {when}"
                if figure:
                    balanced.append(Bar(dataset, figure.value, figure.ci95, series=series))
                acc = (entry.before if when == "before" else entry.after)["all"]
                bars.append(Bar(dataset, acc.accuracy, acc.ci95, series=series))
    return bars, balanced


def lift_section(rounds: Sequence[RoundSummary]) -> str:
    """The trained models, held-out charts (belief-balanced first) and the lift table."""
    rows = lift_rows(rounds)
    if not rows:
        return ""
    trained = [_trained_row(s.round, s.trained) for s in rounds if s.trained]
    bars, balanced = _bars(rounds)
    note = (
        '<p class="note">Held-out sets were never used as synthesis seeds. Targets need the '
        "trained skill; controls (true-belief, no-ToM, control variants) do not: a gain on "
        "targets with a drop on controls is a new shortcut, not better belief tracking. "
        "<code>_logprob</code> sets score the answer options by log-probability, free of "
        "answer formatting.</p>"
    )
    lead = (
        f'<p class="note">{esc(NOTE)}</p><div class="card">'
        + bar_chart(balanced, title="held-out belief-balanced accuracy before and after", width=720)
        + "</div>"
        if balanced
        else ""
    )
    return (
        "<h2>Fine-tuning and lift</h2>"
        + note
        + lead
        + table_html(TRAINED_HEADERS, trained)
        + '<div class="card">'
        + bar_chart(bars, title="held-out accuracy before and after", width=720)
        + "</div>"
        + table_html(
            ("round", "dataset", "part", "n", "before %", "after %", "lift (points)", "note"), rows
        )
    )
