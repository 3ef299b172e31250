"""Chance level beside every accuracy in the terminal tables: a score near chance is no result."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from tomflywheel.artifacts import RoundSummary
from tomflywheel.cli import app
from tomflywheel.cli._flywheel import rounds_table
from tomflywheel.report import accuracy_cell, metric_rows, metrics_table, summarize, to_csv


def _text(renderable: object) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def _metrics(chance: float | None) -> dict:
    overall = {"n": 16, "correct": 7, "accuracy": 0.4375, "ci95": [0.23, 0.67]}
    if chance is not None:
        overall["chance"] = chance
    return {"dataset": "tomi_synth", "overall": overall, "counts": {"correct": 7}}


def test_the_cell_names_chance_only_where_there_is_one():
    assert accuracy_cell(0.4375, 0.5) == "43.8 [dim](chance 50.0)[/dim]"
    # An open question has no chance level: the cell is the accuracy alone.
    assert accuracy_cell(0.4375, None) == "43.8"
    assert accuracy_cell(None, 0.5) == "–"


def test_the_eval_and_flywheel_tables_show_chance():
    assert "43.8 (chance 50.0)" in _text(metrics_table([_metrics(0.5)]))
    overall = _metrics(0.0667)["overall"]
    accuracy = {"hitom_synth": {"task": "hitom_synth", "overall": overall}}
    rounds = [RoundSummary.model_validate({"round": 1, "model": "m", "accuracy": accuracy})]
    assert "43.8 (chance 6.7)" in _text(rounds_table(rounds))
    assert "chance" not in _text(metrics_table([_metrics(None)]))


def test_the_csv_tables_keep_their_columns():
    # The files under tables/ keep their header: the chance level is for the terminal.
    assert to_csv(metric_rows(_metrics(0.5))).splitlines()[0] == (
        "dataset,group,value,n,correct,accuracy,ci95_low,ci95_high"
    )


def test_report_summary_shows_chance(tmp_path: Path):
    exp = tmp_path / "exp"
    (exp / "tomi_synth").mkdir(parents=True)
    (exp / "config.yaml").write_text("server: external\nllm: {model: m}\n", encoding="utf-8")
    (exp / "tomi_synth" / "metrics.json").write_text(json.dumps(_metrics(0.5)), encoding="utf-8")
    assert summarize([exp])[0]["chance"] == 0.5
    result = CliRunner().invoke(app, ["report", "summary", str(exp)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "43.8 (chance 50.0)" in result.output
    csv = CliRunner().invoke(app, ["report", "summary", str(exp), "--csv"]).output.splitlines()
    assert csv[0].split(",")[8] == "chance" and csv[1].split(",")[8] == "0.5"
