"""A summary across experiments and models: one row per (experiment, dataset)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from tomflywheel._io import atomic_write_text, require_folder
from tomflywheel._yaml import load_yaml
from tomflywheel.artifacts import RunFolder, ShortcutScores, shortcut_scores_of
from tomflywheel.errors import UserInputError
from tomflywheel.report._html import Bar, bar_chart, page, table_html
from tomflywheel.report._scores import margin
from tomflywheel.report._tables import accuracy_cell


def _model_of(root: Path) -> str:
    config_path = root / "config.yaml"
    if not config_path.exists():
        return "?"
    config = load_yaml(config_path.read_text(encoding="utf-8")) or {}
    llm = config.get("llm") or {}
    embedded = config.get("embedded") or {}
    if config.get("server") == "embedded":
        return str(embedded.get("served_model_name") or "?")
    return str(llm.get("model") or "?")


_RUN_EXPERIMENTS = ("eval", "heldout_before", "heldout_sft", "heldout_after")
"""The experiment folders of a flywheel round, in the order they run."""


def _run_experiments(run_dir: Path) -> list[tuple[str, Path]]:
    """A flywheel run's experiments, named ``<run> r<k>`` (``… heldout_before`` for the others)."""
    found = []
    for k, folder in RunFolder(run_dir).rounds():
        for name in _RUN_EXPERIMENTS:
            exp_dir = folder.heldout(name)
            if (exp_dir / "config.yaml").exists():
                suffix = "" if name == "eval" else f" {name}"
                found.append((f"{run_dir.name} r{k}{suffix}", exp_dir))
    return found


def _experiments(path: Path, *, depth: int = 0) -> list[tuple[str, Path]]:
    """(name, folder) of every experiment in ``path``.

    ``path`` is an experiment, a flywheel run (``runs/<id>``), or a folder of either
    (``results/``, ``runs/``).
    """
    if RunFolder(path).manifest.exists():
        return _run_experiments(path)
    if (path / "config.yaml").exists():
        return [(path.name, path)]
    if depth > 0:
        return []
    return [
        found
        for child in sorted(p for p in path.iterdir() if p.is_dir())
        for found in _experiments(child, depth=depth + 1)
    ]


def _shortcut_columns(scores: ShortcutScores | None) -> dict[str, Any]:
    """Belief-balanced accuracy and its interval, and the margin over the best heuristic.

    ``margin`` is on all items (the paired clustered lift over ``best_heuristic``); every
    value is ``None`` for a set without scores (asking no minds, or scored before them).
    """
    balanced = scores.belief_balanced if scores else None
    found = margin(scores, "accuracy")
    return {
        "belief_balanced": balanced.value if balanced else None,
        "belief_balanced_ci95": balanced.ci95 if balanced else None,
        "margin": found.value if found else None,
        "margin_ci95": found.ci95 if found else None,
        "best_heuristic": found.heuristic if found else None,
    }


def summarize(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Rows of overall accuracy for every dataset of every experiment folder given.

    A path may be an experiment folder, a flywheel run folder (``runs/<id>``: its rounds'
    experiments, named by run and round), or a folder of either (``results/``, ``runs/``).
    Beside accuracy, each row has the belief-balanced accuracy and the margin over the best
    heuristic (:func:`_shortcut_columns`) where the metric stage scored them.

    Raises:
        UserInputError: No ``metrics.json`` found under the paths.
    """
    roots: list[tuple[str, Path]] = []
    for path in paths:
        require_folder(path, "experiment folder, run folder, or folder of them")
        roots.extend(_experiments(path))
    rows = []
    for name, root in roots:
        for metrics_path in sorted(root.glob("*/metrics.json")):
            metrics = json.loads(metrics_path.read_text(encoding="utf-8"))
            overall = metrics["overall"]
            rows.append(
                {
                    "experiment": name,
                    "model": _model_of(root),
                    "dataset": metrics["dataset"],
                    "judge": (metrics.get("judge") or {}).get("name"),
                    "n": overall["n"],
                    "accuracy": overall["accuracy"],
                    "ci95": overall["ci95"],
                    "chance": overall.get("chance"),
                    "all_correct": (metrics.get("all_correct") or {}).get("accuracy"),
                    "unjudged": metrics["counts"].get("unjudged", 0),
                    "errors": metrics["counts"].get("error", 0),
                    **_shortcut_columns(shortcut_scores_of(metrics)),
                }
            )
    if not rows:
        raise UserInputError(f"no metrics.json under {', '.join(map(str, paths))}")
    return rows


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _balanced(row: dict[str, Any]) -> str:
    """``61.5 [54.2, 68.8]``; a dash for a set without it (rows of older callers too)."""
    value, ci = row.get("belief_balanced"), row.get("belief_balanced_ci95")
    if value is None:
        return "–"
    return _pct(value) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "")


def _margin(row: dict[str, Any]) -> str:
    """``+12.3 vs true_location``; a dash without scores."""
    if row.get("margin") is None:
        return "–"
    return f"{100 * row['margin']:+.1f} vs {row['best_heuristic']}"


_NUMERIC = ("n", "acc %", "both %", "belief-bal. % [95% CI]", "margin")


def summary_table(rows: Sequence[dict[str, Any]]) -> Table:
    """The summary as a rich table: accuracy, then belief-balanced accuracy and the margin."""
    table = Table(title="Experiments")
    for name in (
        "experiment",
        "model",
        "dataset",
        "judge",
        "n",
        "acc %",
        "95% CI",
        "both %",
        "belief-bal. % [95% CI]",
        "margin",
    ):
        table.add_column(name, justify="right" if name in _NUMERIC else "left")
    for row in rows:
        ci = row["ci95"]
        table.add_row(
            escape(row["experiment"]),
            escape(row["model"]),
            escape(row["dataset"]),
            escape(str(row["judge"])),
            str(row["n"]),
            accuracy_cell(row["accuracy"], row["chance"]),
            f"{_pct(ci[0])}–{_pct(ci[1])}" if ci else "",
            _pct(row["all_correct"]),
            escape(_balanced(row)),
            escape(_margin(row)),
        )
    return table


def write_summary_html(rows: Sequence[dict[str, Any]], out: Path) -> Path:
    """A model-comparison page: bars per dataset, one series per (model, experiment)."""
    bars = [
        Bar(
            row["dataset"],
            row["accuracy"],
            tuple(row["ci95"]) if row["ci95"] else None,
            series=f"{row['model']} ({row['experiment']})",
        )
        for row in sorted(rows, key=lambda r: (r["dataset"], r["model"], r["experiment"]))
    ]
    body = (
        "<h1>Model comparison</h1>"
        '<div class="card">'
        f"{bar_chart(bars, title='accuracy by dataset and model', width=720)}</div>"
        + table_html(
            (
                "experiment",
                "model",
                "dataset",
                "judge",
                "n",
                "accuracy %",
                "belief-balanced % [95% CI]",
                "margin over best heuristic",
            ),
            [
                (
                    r["experiment"],
                    r["model"],
                    r["dataset"],
                    r["judge"],
                    r["n"],
                    _pct(r["accuracy"]),
                    _balanced(r),
                    _margin(r),
                )
                for r in rows
            ],
        )
    )
    atomic_write_text(out, page("tomflywheel · model comparison", body))
    return out


def summary_csv(rows: Sequence[dict[str, Any]]) -> str:
    """The summary rows as CSV (the interval split into two columns)."""
    buffer = io.StringIO()
    fields = [
        "experiment",
        "model",
        "dataset",
        "judge",
        "n",
        "accuracy",
        "ci95_low",
        "ci95_high",
        "chance",
        "all_correct",
        "unjudged",
        "errors",
        # appended, so the columns before keep their places
        "belief_balanced",
        "belief_balanced_low",
        "belief_balanced_high",
        "margin",
        "margin_low",
        "margin_high",
        "best_heuristic",
    ]
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        ci = row["ci95"] or (None, None)
        balanced = row.get("belief_balanced_ci95") or (None, None)
        lift = row.get("margin_ci95") or (None, None)
        writer.writerow(
            {
                **{k: row[k] for k in fields if k in row},
                "ci95_low": ci[0],
                "ci95_high": ci[1],
                "belief_balanced_low": balanced[0],
                "belief_balanced_high": balanced[1],
                "margin_low": lift[0],
                "margin_high": lift[1],
            }
        )
    return buffer.getvalue()
