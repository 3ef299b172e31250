"""``report summary runs/<id>``: a run folder's experiments, named by run and round."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.report import summarize


def _experiment(root: Path, accuracy: float) -> None:
    (root / "tomi").mkdir(parents=True)
    (root / "config.yaml").write_text("server: external\nllm: {model: smollm2}\n")
    metrics = {
        "dataset": "tomi",
        "overall": {"n": 10, "accuracy": accuracy, "ci95": [0.1, 0.9]},
        "counts": {"correct": int(10 * accuracy)},
    }
    (root / "tomi" / "metrics.json").write_text(json.dumps(metrics))


def _run(runs: Path, run_id: str) -> Path:
    run = runs / run_id
    for k in (1, 2, 10):
        _experiment(run / f"round_{k}" / "eval", 0.1 * k / 2)
    _experiment(run / "round_1" / "heldout_before", 0.3)
    (run / "config.yaml").write_text("server: external\n")  # the run's own config
    (run / "manifest.json").write_text("{}")
    return run


def test_a_run_folder_lists_its_rounds_experiments(tmp_path):
    run = _run(tmp_path / "runs", "r1")
    rows = summarize([run])
    assert [(r["experiment"], r["model"], r["n"]) for r in rows] == [
        ("r1 r1", "smollm2", 10),
        ("r1 r1 heldout_before", "smollm2", 10),
        ("r1 r2", "smollm2", 10),
        ("r1 r10", "smollm2", 10),
    ]
    # A folder of runs, and a folder of experiments, as before.
    _run(tmp_path / "runs", "r2")
    assert len(summarize([tmp_path / "runs"])) == 8
    _experiment(tmp_path / "results" / "exp", 0.5)
    assert [r["experiment"] for r in summarize([tmp_path / "results"])] == ["exp"]
    assert [r["experiment"] for r in summarize([tmp_path / "results" / "exp"])] == ["exp"]


def test_the_cli_summarizes_a_run_folder(tmp_path):
    run = _run(tmp_path / "runs", "r1")
    result = CliRunner().invoke(app, ["report", "summary", str(run), "--csv"])
    assert result.exit_code == 0, result.output
    assert "r1 r10" in result.output
