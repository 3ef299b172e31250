"""``tomflywheel filter`` through typer's runner: the table, the files, and usage errors."""

from __future__ import annotations

import json

from tests.filter.conftest import sample, tomi_samples, write_jsonl
from typer.testing import CliRunner

from tomflywheel.cli import app

runner = CliRunner()


def test_filter_no_llm_prints_the_table_and_writes_the_files(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("server: embedded\n", encoding="utf-8")
    good = tomi_samples(1)
    rows = [*good, good[0].model_copy(update={"id": "copy"}), sample(sample_id="free")]
    source = write_jsonl(tmp_path / "cands.jsonl", rows)
    train = tmp_path / "train"
    args = ["filter", "--input", str(source), "--config", str(config), "--no-llm"]
    args += ["--name", "first", "--train-dir", str(train), "--eval-dir", str(tmp_path / "none")]
    result = runner.invoke(app, args, env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    row = next(line for line in lines if "exact_duplicate" in line and "│" in line)
    assert [cell.strip() for cell in row.split("│")[1:5]] == ["exact_duplicate", "7", "1", "0"]
    assert f"{len(rows)} candidates: 6 accepted (0 after repair), 2 rejected" in result.output
    assert f"admitted: {train / 'first.jsonl'}" in result.output
    admitted = (train / "first.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in admitted] == [s.id for s in good]
    manifest = json.loads((train / "manifest.json").read_text())
    assert manifest["datasets"]["first"]["reasons"] == {"exact_duplicate": 1, "label_unverified": 1}


def test_filter_needs_an_existing_input(tmp_path):
    result = runner.invoke(app, ["filter", "--input", str(tmp_path / "absent.jsonl"), "--no-llm"])
    assert result.exit_code == 2


def test_filter_rejects_a_negative_repair_budget(tmp_path):
    source = write_jsonl(tmp_path / "c.jsonl", [sample()])
    result = runner.invoke(app, ["filter", "--input", str(source), "--repair", "-1"])
    assert result.exit_code == 2
