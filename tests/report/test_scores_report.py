"""The scores no shortcut passes wherever accuracy is reported: the experiment report, its
tables, the eval CLI's table and ``report summary``; a set that asks no minds shows none."""

from __future__ import annotations

import io
import json

from rich.console import Console
from typer.testing import CliRunner

from tests.report.scored import (
    perfect,
    tomi_samples,
    true_location,
    write_dataset,
    write_experiment,
)
from tomflywheel.artifacts import Experiment
from tomflywheel.cli import app
from tomflywheel.cli._eval import print_summary
from tomflywheel.evaluation import DatasetOutcome, EvalSummary
from tomflywheel.report import metrics_table, summarize, summary_csv, write_experiment_report

SECTION = "<h3>Scores no shortcut passes</h3>"


def _text(renderable: object) -> str:
    console = Console(width=220, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def _sides(metrics: dict) -> tuple[int, int]:
    balanced = metrics["shortcut"]["belief_balanced"]
    return balanced["false_belief"]["n"], balanced["true_belief"]["n"]


def test_the_experiment_report_shows_belief_balanced_accuracy_from_known_verdicts(tmp_path):
    metrics = write_experiment(tmp_path / "exp", true_location)
    false, true = _sides(metrics["tomi_synth"])
    assert false > 0 and true > 0
    write_experiment_report(Experiment(tmp_path / "exp"))
    html = (tmp_path / "exp" / "report.html").read_text(encoding="utf-8")
    # right on every true belief, wrong on every false one: exactly 50
    assert "<li>belief-balanced 50.0% [" in html and "(FB 0.0%, TB 100.0%)" in html
    assert html.count(SECTION) == 1  # tomi_synth's; the social set asks no minds
    social = html.index("<h2>social</h2>")
    assert SECTION not in html[social : html.index("<h2>tomi_synth</h2>")]
    # the heuristic table: the model's four figures, then every heuristic's
    scores = metrics["tomi_synth"]["shortcut"]
    accuracy, paired = scores["accuracy"]["accuracy"], scores["paired"]["accuracy"]
    level = scores["story_level"]["accuracy"]
    model_row = f"<tr><td>model</td><td>{100 * accuracy:.1f}</td><td>50.0</td>"
    assert model_row + f"<td>{100 * level:.1f}</td><td>{100 * paired:.1f}</td></tr>" in html
    assert "<td>true_location</td>" in html and "<td>first_location</td><td>" in html
    best = scores["best_heuristic"]
    assert f"<td>{best} (best)</td>" in html
    assert (
        f"<td>margin (model − best)</td><td>{100 * scores['margin']['lift']:+.1f} vs {best}" in html
    )
    assert "<title>belief-balanced accuracy</title>" in html  # the overview chart leads
    table = (tmp_path / "exp" / "tables" / "tomi_synth.md").read_text(encoding="utf-8")
    assert f"| tomi_synth | belief_balanced | mean of FB and TB | {false + true} | 50.0 |" in table
    assert f"| tomi_synth | belief_balanced | false belief | {false} | 0.0 |" in table
    social_table = (tmp_path / "exp" / "tables" / "social.md").read_text(encoding="utf-8")
    assert "belief_balanced" not in social_table


def test_dataset_text_in_the_scores_is_escaped(tmp_path):
    samples = [
        s.model_copy(update={"meta": {**s.meta, "question_family": "<i>fam</i>"}})
        for s in tomi_samples(2)
    ]
    write_dataset(tmp_path / "exp", "tomi_synth", samples, perfect)
    write_experiment_report(Experiment(tmp_path / "exp"))
    html = (tmp_path / "exp" / "report.html").read_text(encoding="utf-8")
    assert "&lt;i&gt;fam&lt;/i&gt; → " in html and "<i>fam</i>" not in html


def test_the_eval_table_has_belief_balanced_rows_only_where_minds_are_asked(tmp_path):
    metrics = write_experiment(tmp_path / "exp", true_location)
    false, true = _sides(metrics["tomi_synth"])
    text = _text(metrics_table([metrics["social"], metrics["tomi_synth"]]))
    lines = text.splitlines()
    row = next(line for line in lines if "belief_balanced: mean of FB and TB" in line)
    assert f"{false + true}" in row and "50.0" in row
    assert "belief_balanced: false belief" in text and "story_level: every question right" in text
    assert "paired: both twins right" in text
    assert text.count("belief_balanced: mean") == 1  # none under social


def test_report_summary_has_a_belief_balanced_column_and_the_margin(tmp_path):
    write_experiment(tmp_path / "results" / "a", true_location, model="base")
    write_experiment(tmp_path / "results" / "b", perfect, model="tuned")
    rows = {(r["model"], r["dataset"]): r for r in summarize([tmp_path / "results"])}
    assert rows[("base", "tomi_synth")]["belief_balanced"] == 0.5
    assert rows[("tuned", "tomi_synth")]["belief_balanced"] == 1.0
    tuned = json.loads(
        (tmp_path / "results" / "b" / "tomi_synth" / "metrics.json").read_text(encoding="utf-8")
    )["shortcut"]
    assert rows[("tuned", "tomi_synth")]["margin"] == tuned["margin"]["lift"] > 0
    assert rows[("tuned", "tomi_synth")]["best_heuristic"] == tuned["best_heuristic"]
    assert rows[("base", "social")]["belief_balanced"] is None
    result = CliRunner().invoke(
        app, ["report", "summary", str(tmp_path / "results")], env={"COLUMNS": "240"}
    )
    assert result.exit_code == 0, result.output
    tuned_row = next(
        line for line in result.output.splitlines() if "tuned" in line and "tomi" in line
    )
    margin = f"+{100 * tuned['margin']['lift']:.1f} vs {tuned['best_heuristic']}"
    assert "100.0 [" in tuned_row and margin in tuned_row
    social_row = next(
        line for line in result.output.splitlines() if "base" in line and "social" in line
    )
    assert [cell.strip() for cell in social_row.split("│")][-3:-1] == ["–", "–"]
    csv = summary_csv(summarize([tmp_path / "results"])).splitlines()
    header = csv[0].split(",")
    # appended: the columns before keep their places
    assert header[8] == "chance" and header[12:15] == [
        "belief_balanced",
        "belief_balanced_low",
        "belief_balanced_high",
    ]
    base = next(line.split(",") for line in csv if line.startswith("a,base,tomi_synth"))
    assert base[12] == "0.5"


def test_the_eval_command_prints_each_score_line_under_its_table(tmp_path, capsys):
    metrics = write_experiment(tmp_path / "exp", true_location)
    outcomes = [
        DatasetOutcome(label, "t", "rules", metrics[label]["n_samples"], metrics=metrics[label])
        for label in ("social", "tomi_synth")
    ]
    summary = EvalSummary(Experiment(tmp_path / "exp"), stages=(), datasets=outcomes)
    print_summary(summary, report=False)
    printed = capsys.readouterr().out
    lines = [line for line in printed.splitlines() if line.startswith("tomi_synth: ")]
    assert [line.split()[1] for line in lines] == ["accuracy", "belief-balanced", "story", "paired"]
    assert (
        lines[1].startswith("tomi_synth: belief-balanced 50.0% [")
        and "(FB 0.0%, TB 100.0%)" in lines[1]
    )
    assert "social: " not in printed
