"""Held-out sets before and after training: belief-balanced accuracy and its lift, story-level
and paired accuracy, and the margin over the best heuristic, read from each experiment's
``metrics.json`` into the round summary, the run report and the flywheel CLI's tables."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from tests.report.scored import perfect, true_location, write_experiment
from tomflywheel.artifacts import (
    EvaluateOutputs,
    HeldoutOutputs,
    RoundSummary,
    TrainOutputs,
)
from tomflywheel.cli._flywheel import rounds_table
from tomflywheel.flywheel._lift import compare
from tomflywheel.flywheel._manifest import RoundRecord, StageRecord
from tomflywheel.flywheel._summary import round_summary
from tomflywheel.report import lift_rows, write_run_report

STAGE = {"seconds": 1.0, "finished": "2026-01-01T00:00:00"}


def _heldout(exp_dir: Path) -> StageRecord[HeldoutOutputs]:
    return StageRecord[HeldoutOutputs](**STAGE, outputs=HeldoutOutputs(exp_dir=exp_dir, model="m"))


def _summary(tmp_path) -> tuple[RoundSummary, dict, dict]:
    """Round 1: evaluated and held out before as ``true_location``, after training perfect."""
    before = write_experiment(tmp_path / "before", true_location)
    after = write_experiment(tmp_path / "after", perfect)
    write_experiment(tmp_path / "eval", true_location)
    record = RoundRecord(
        round=1,
        stages={
            "evaluate": StageRecord[EvaluateOutputs](
                **STAGE, outputs=EvaluateOutputs(exp_dir=tmp_path / "eval")
            ),
            "heldout_before": _heldout(tmp_path / "before"),
            "heldout_after": _heldout(tmp_path / "after"),
        },
    )
    return round_summary(record, model="m"), before, after


def test_the_lift_reads_each_sides_scores_and_gives_the_belief_balanced_lift(tmp_path):
    summary, before, after = _summary(tmp_path)
    assert summary.lift is not None
    entry = summary.lift["tomi_synth"].shortcut.as_json()
    assert entry["before"]["belief_balanced"]["value"] == 0.5
    assert entry["after"]["belief_balanced"]["value"] == 1.0
    assert entry["lift"]["belief_balanced"] == 0.5
    paired = after["tomi_synth"]["shortcut"]["paired"]["accuracy"]
    assert (
        entry["lift"]["paired"] == paired - before["tomi_synth"]["shortcut"]["paired"]["accuracy"]
    )
    # as written by the metric stage, with only the heuristics a margin names
    full = before["tomi_synth"]["shortcut"]
    named = {full["best_heuristic"]} | {
        full[f"{m}_margin"]["heuristic"] for m in ("belief_balanced", "story_level", "paired")
    }
    assert set(entry["before"]["heuristics"]) == named
    assert entry["before"]["margin"] == full["margin"]
    # a held-out set that asks no minds has none; the existing keys are all still there
    social = summary.lift["social"].as_json()
    assert social["shortcut"] is None
    assert set(social) == {
        "before",
        "after",
        "lift",
        "paired",
        "groups",
        "shortcut_warning",
        "shortcut",
    }
    # the evaluated sets carry their scores too, and the summary stays JSON
    assert summary.accuracy["tomi_synth"].shortcut.belief_balanced.value == 0.5
    assert summary.accuracy["social"].shortcut is None
    assert RoundSummary.model_validate_json(json.dumps(summary.as_json())) == summary


def test_compare_has_no_scores_where_neither_metrics_file_has_them(tmp_path):
    write_experiment(tmp_path / "before", true_location)
    write_experiment(tmp_path / "after", perfect)
    for side in ("before", "after"):  # metrics written before the entry existed
        path = tmp_path / side / "tomi_synth" / "metrics.json"
        metrics = json.loads(path.read_text(encoding="utf-8"))
        del metrics["shortcut"]
        path.write_text(json.dumps(metrics), encoding="utf-8")
    assert compare(tmp_path / "before", tmp_path / "after")["tomi_synth"].shortcut is None


def test_the_lift_rows_lead_with_belief_balanced_accuracy(tmp_path):
    summary, before, after = _summary(tmp_path)
    rows = [row for row in lift_rows([summary]) if row[1] == "tomi_synth"]
    assert [row[2] for row in rows] == [
        "belief-balanced",
        "story level",
        "paired",
        "all",
        "targets",
        "controls",
    ]
    first, second = before["tomi_synth"]["shortcut"], after["tomi_synth"]["shortcut"]
    low, high = first["belief_balanced"]["ci95"]
    sides = (
        first["belief_balanced"]["false_belief"]["n"] + first["belief_balanced"]["true_belief"]["n"]
    )
    assert rows[0][3:7] == (
        sides,
        f"50.0 [{100 * low:.1f}, {100 * high:.1f}]",
        "100.0 [" + ", ".join(f"{100 * v:.1f}" for v in second["belief_balanced"]["ci95"]) + "]",
        "+50.0",
    )
    name = first["belief_balanced_margin"]["heuristic"]
    assert name == second["belief_balanced_margin"]["heuristic"]
    after_margin = 100 * second["belief_balanced_margin"]["value"]
    assert rows[0][7] == f"margin over {name} +0.0 → {after_margin:+.1f}"
    best = second["best_heuristic"]
    assert rows[3][7].startswith("margin over ") and best in rows[3][7]
    social = [row[2] for row in lift_rows([summary]) if row[1] == "social"]
    assert social == ["all", "targets", "controls"]  # a set without beliefs shows none


def test_the_run_report_shows_held_out_and_round_scores(tmp_path):
    summary, before, _ = _summary(tmp_path)
    summary.trained = TrainOutputs(
        model_dir=tmp_path / "model",
        served_name="m-r1",
        weights_sha256="0" * 64,
        base="base",
        data=tmp_path / "data.jsonl",
        samples=8,
        steps=2,
        first_loss=1.5,
        last_loss=1.25,
        seconds=3.0,
    )
    html = write_run_report(tmp_path, [summary], "train", tmp_path / "none").read_text("utf-8")
    lift = html.index("<h2>Fine-tuning and lift</h2>")
    chart = html.index("<title>held-out belief-balanced accuracy before and after</title>")
    assert lift < chart < html.index("<title>held-out accuracy before and after</title>")
    assert "<td>1</td><td>tomi_synth</td><td>belief-balanced</td>" in html
    assert "<td>social</td><td>belief-balanced</td>" not in html
    # the round's evaluated sets: belief-balanced with its sides, the other figures, the margin
    scores = before["tomi_synth"]["shortcut"]

    def cell(figure: dict, value: float) -> str:
        low, high = figure["ci95"]
        return f"{100 * value:.1f} [{100 * low:.1f}, {100 * high:.1f}]"

    level, paired = scores["story_level"], scores["paired"]
    row = (
        "<td>1</td><td>tomi_synth</td>"
        f"<td>{cell(scores['belief_balanced'], 0.5)}</td><td>0.0</td><td>100.0</td>"
        f"<td>{cell(level, level['accuracy'])}</td><td>{cell(paired, paired['accuracy'])}</td>"
        f"<td>{100 * scores['margin']['lift']:+.1f} vs {scores['best_heuristic']}</td>"
    )
    start = html.index("<th>belief-balanced %</th><th>false belief %</th>")
    table = html[start : html.index("</table>", start)]
    assert row in table and "<td>social</td>" not in table


def test_the_flywheel_rounds_table_shows_belief_balanced_accuracy(tmp_path):
    summary, before, _ = _summary(tmp_path)
    console = Console(width=240, record=True, file=io.StringIO())
    console.print(rounds_table([summary]))
    text = console.export_text()
    tomi = next(line for line in text.splitlines() if "tomi_synth" in line)
    low, high = before["tomi_synth"]["shortcut"]["belief_balanced"]["ci95"]
    assert f"50.0 [{100 * low:.1f}, {100 * high:.1f}]" in tomi
    assert f"vs {before['tomi_synth']['shortcut']['best_heuristic']}" in tomi
    social = next(line for line in text.splitlines() if "social" in line)
    assert [cell.strip() for cell in social.split("│")][-3:-1] == ["–", "–"]
    # a summary written before the scores existed still renders
    overall = summary.accuracy["social"].overall.as_json()
    old = {"round": 1, "model": "m", "accuracy": {"tomi": {"task": "tomi", "overall": overall}}}
    console.print(rounds_table([RoundSummary.model_validate(old)]))
