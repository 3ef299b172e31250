"""The run report's fine-tuning and lift section, and its rows for the flywheel CLI's table.

Each held-out set before and after training: the scores no shortcut passes first
(belief-balanced accuracy, then story-level and paired, each with the margin over the best
heuristic), then accuracy on all items, targets and controls, each lift with its paired
interval clustered by story.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tomflywheel.report._html import Bar, bar_chart, esc, table_html
from tomflywheel.report._scores import NOTE, heldout_rows, margin_note


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def lift_rows(rounds: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(round, dataset, part, n, before %, after %, lift points, note) for every held-out set.

    A round's lift is against the model it started from (the previous round's); rounds after
    the first add rows against the base model (``part`` ends in ``vs base``), and ``sft-grpo``
    rounds rows against their SFT stage (``vs SFT stage``: what GRPO added). The paired
    interval, clustered by story, follows the lift where the summary has it. A set that asks
    minds leads with its belief-balanced, story-level and paired rows (with intervals, the
    note giving the margin over the best heuristic), and its ``all`` row notes that margin on
    accuracy.
    """
    rows = []
    for summary in rounds:
        for key, suffix in (
            ("lift", ""),
            ("lift_vs_base", " vs base"),
            ("lift_vs_sft_stage", " vs SFT stage"),
        ):
            for dataset, entry in (summary.get(key) or {}).items():
                scores = entry.get("shortcut") or {}
                rows.extend(
                    (summary["round"], dataset, *row) for row in heldout_rows(scores, suffix)
                )
                for part in ("all", "targets", "controls"):
                    before, after = entry["before"][part], entry["after"][part]
                    note = (entry["shortcut_warning"] or "") if part == "controls" else ""
                    if part == "all" and scores:
                        note = margin_note(
                            scores.get("before") or {}, scores.get("after") or {}, "accuracy"
                        )
                    rows.append(
                        (
                            summary["round"],
                            dataset,
                            part + suffix,
                            before["n"],
                            _pct(before["accuracy"]),
                            _pct(after["accuracy"]),
                            _lift_cell(entry["lift"][part], (entry.get("paired") or {}).get(part)),
                            note,
                        )
                    )
    return rows


def _lift_cell(lift: float | None, paired: dict[str, Any] | None) -> str:
    if lift is None:
        return "–"
    if paired is None:
        return f"{100 * lift:+.1f}"
    return f"{100 * lift:+.1f} [{100 * paired['low']:+.1f}, {100 * paired['high']:+.1f}]"


def _reward(value: float | None) -> str:
    """A GRPO step's mean reward; a dash for supervised rounds, which have none."""
    return "–" if value is None else f"{value:.3f}"


def _validation(value: dict[str, Any] | None) -> str:
    """The lowest validation loss, and the step the weights are from; a dash without one."""
    if not value or not value.get("losses"):
        return "–"
    step, loss = min(value["losses"], key=lambda pair: pair[1])
    text = f"lowest {loss:.4f} at step {step}"
    if value.get("stopped_early"):
        text += ", stopped early"
    if value["weights_from_step"] != step:
        text += f"; weights of step {value['weights_from_step']}"
    return text


def lift_section(rounds: Sequence[dict[str, Any]]) -> str:
    """The trained models, held-out charts (belief-balanced first) and the lift table."""
    rows = lift_rows(rounds)
    if not rows:
        return ""
    trained = [
        (
            s["round"],
            s["trained"]["served_name"],
            # rounds recorded before GRPO existed were all supervised
            s["trained"].get("method", "sft"),
            s["trained"]["samples"],
            s["trained"]["steps"],
            s["trained"]["first_loss"],
            s["trained"]["last_loss"],
            _reward(s["trained"].get("first_reward")),
            _reward(s["trained"].get("last_reward")),
            _validation(s["trained"].get("validation")),
            s["trained"]["seconds"],
        )
        for s in rounds
        if s.get("trained")
    ]
    bars, balanced = [], []
    for summary in rounds:
        for dataset, entry in (summary.get("lift") or {}).items():
            for when in ("before", "after"):
                figure = ((entry.get("shortcut") or {}).get(when) or {}).get("belief_balanced")
                if figure:
                    ci = tuple(figure["ci95"]) if figure["ci95"] else None
                    balanced.append(
                        Bar(dataset, figure["value"], ci, series=f"r{summary['round']} {when}")
                    )
                acc = entry[when]["all"]
                bars.append(
                    Bar(
                        dataset,
                        acc["accuracy"],
                        tuple(acc["ci95"]) if acc["ci95"] else None,
                        series=f"r{summary['round']} {when}",
                    )
                )
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
        + table_html(
            (
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
            ),
            trained,
        )
        + '<div class="card">'
        + bar_chart(bars, title="held-out accuracy before and after", width=720)
        + "</div>"
        + table_html(
            ("round", "dataset", "part", "n", "before %", "after %", "lift (points)", "note"), rows
        )
    )
