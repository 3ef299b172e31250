"""Metrics as rows: rich tables for the terminal, markdown and CSV files under ``tables/``."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from tomflywheel._io import atomic_write_text
from tomflywheel.report._scores import shortcut_rows

COLUMNS = ("dataset", "group", "value", "n", "correct", "accuracy", "ci95_low", "ci95_high")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def accuracy_cell(accuracy: float | None, chance: float | None) -> str:
    """Accuracy in % for a terminal table, with the chance level beside it when there is one.

    ``43.8 (chance 50.0)``: a score near chance reads as what it is, not as a result.
    """
    if chance is None or accuracy is None:
        return _pct(accuracy)
    return f"{_pct(accuracy)} [dim](chance {_pct(chance)})[/dim]"


def _row(dataset: str, group: str, value: str, acc: dict[str, Any]) -> dict[str, Any]:
    ci = acc.get("ci95") or (None, None)
    return {
        "dataset": dataset,
        "group": group,
        "value": value,
        "n": acc["n"],
        "correct": acc["correct"],
        "accuracy": acc["accuracy"],
        "ci95_low": ci[0],
        "ci95_high": ci[1],
        "chance": acc.get("chance"),
    }


def metric_rows(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """Overall, both-correct, per-group and per-field accuracies of one dataset, one row each.

    A set that asks minds has its belief-balanced (false and true belief), story-level and
    paired rows right after the overall one (:func:`~tomflywheel.report._scores.shortcut_rows`).
    """
    label = metrics["dataset"]
    rows = [_row(label, "overall", "all", metrics["overall"]), *shortcut_rows(metrics)]
    if metrics.get("all_correct"):
        rows.append(
            _row(label, "all_correct", metrics["all_correct"]["by"], metrics["all_correct"])
        )
    for section in ("groups", "fields"):
        for group, values in (metrics.get(section) or {}).items():
            rows.extend(_row(label, group, value, acc) for value, acc in values.items())
    trials = metrics.get("trials")
    if trials:
        for index, acc in enumerate(trials["per_trial"]):
            rows.append(_row(label, "trial", str(index), acc))
    return rows


def to_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """A markdown table of metric rows (accuracy in %, 95% interval)."""
    lines = [
        "| dataset | group | value | n | accuracy % | 95% CI |",
        "| --- | --- | --- | ---: | ---: | --- |",
    ]
    for row in rows:
        ci = "–" if row["ci95_low"] is None else f"{_pct(row['ci95_low'])}–{_pct(row['ci95_high'])}"
        value = str(row["value"]).replace("|", "\\|")
        lines.append(
            f"| {row['dataset']} | {row['group']} | {value} | {row['n']} "
            f"| {_pct(row['accuracy'])} | {ci} |"
        )
    return "\n".join(lines) + "\n"


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    """CSV of metric rows with a header."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_tables(tables_dir: Path, all_metrics: Sequence[dict[str, Any]]) -> list[Path]:
    """``<dataset>.md`` and ``<dataset>.csv`` per dataset, plus ``overall.md``/``overall.csv``."""
    written = []
    overall = []
    for metrics in all_metrics:
        rows = metric_rows(metrics)
        overall.append(rows[0])
        for suffix, text in ((".md", to_markdown(rows)), (".csv", to_csv(rows))):
            path = tables_dir / f"{metrics['dataset']}{suffix}"
            atomic_write_text(path, text)
            written.append(path)
    for suffix, text in ((".md", to_markdown(overall)), (".csv", to_csv(overall))):
        path = tables_dir / f"overall{suffix}"
        atomic_write_text(path, text)
        written.append(path)
    return written


def metrics_table(all_metrics: Sequence[dict[str, Any]], *, title: str = "Accuracy") -> Table:
    """A rich table: one line per dataset, then its groups, indented."""
    table = Table(title=title, show_lines=False)
    for name, justify in (
        ("dataset / group", "left"),
        ("n", "right"),
        ("acc %", "right"),
        ("95% CI", "right"),
        ("unjudged", "right"),
        ("errors", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for metrics in all_metrics:
        counts = metrics.get("counts", {})
        for i, row in enumerate(metric_rows(metrics)):
            ci = (
                ""
                if row["ci95_low"] is None
                else f"{_pct(row['ci95_low'])}–{_pct(row['ci95_high'])}"
            )
            name = (
                f"[bold]{escape(row['dataset'])}[/bold]"
                if i == 0
                else f"  {escape(row['group'])}: {escape(str(row['value']))}"
            )
            extra = (
                (str(counts.get("unjudged", 0)), str(counts.get("error", 0)))
                if i == 0
                else ("", "")
            )
            accuracy = accuracy_cell(row["accuracy"], row["chance"])
            table.add_row(name, str(row["n"]), accuracy, ci, *extra)
    return table
