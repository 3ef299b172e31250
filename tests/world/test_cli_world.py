"""``tomflywheel world check`` and ``datasets generate`` / ``stats`` / ``verify``."""

import json

from typer.testing import CliRunner

from tomflywheel.cli import app

runner = CliRunner()


def test_world_check_tgtom_prints_the_table_and_exits_0(benchmarks):
    result = runner.invoke(app, ["world", "check", "tgtom", str(benchmarks / "tgtom")])
    assert result.exit_code == 0, result.output
    assert "1812" in result.output and "100.00%" in result.output


def test_world_check_exits_1_when_mismatches_exceed_the_allowance(benchmarks):
    path = str(benchmarks / "hitom" / "Hi-ToM_data.json")
    result = runner.invoke(app, ["world", "check", "hitom", path, "--show", "2"])
    assert result.exit_code == 1
    assert "241 order_2_no_deception" in result.output
    assert "gold blue_container, derived blue_treasure_chest" in result.output
    assert "... and 15 more mismatches" in result.output
    allowed = runner.invoke(app, ["world", "check", "hitom", path, "--max-mismatches", "17"])
    assert allowed.exit_code == 0


def test_world_check_a_missing_path_is_a_known_failure(tmp_path):
    result = runner.invoke(app, ["world", "check", "tgtom", str(tmp_path / "nothing")])
    assert result.exit_code == 1
    assert "no such file" in str(result.exception)


def test_generate_then_stats(tmp_path):
    out = tmp_path / "tgtom.jsonl"
    result = runner.invoke(
        app, ["datasets", "generate", "tgtom", "--n", "2", "--seed", "3", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert f"{len(lines)} samples written" in result.output
    again = tmp_path / "again.jsonl"
    runner.invoke(
        app, ["datasets", "generate", "tgtom", "--n", "2", "--seed", "3", "--out", str(again)]
    )
    assert again.read_bytes() == out.read_bytes()
    stats = runner.invoke(app, ["datasets", "stats", str(out)])
    assert stats.exit_code == 0, stats.output
    assert f"{len(lines)} traced samples, 2 stories" in stats.output
    assert "targeted perturbations" in stats.output


def test_generate_takes_extra_parameters_as_json(tmp_path):
    out = tmp_path / "tomi.jsonl"
    result = runner.invoke(
        app,
        [
            "datasets",
            "generate",
            "tomi",
            "--n",
            "1",
            "--out",
            str(out),
            "--params",
            '{"orders": [0]}',
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2  # memory and reality


def test_datasets_verify_passes_a_generated_file_and_fails_a_broken_label(tmp_path):
    path = tmp_path / "tgtom.jsonl"
    runner.invoke(app, ["datasets", "generate", "tgtom", "--n", "2", "--out", str(path)])
    lines = path.read_text(encoding="utf-8").splitlines()
    result = runner.invoke(app, ["datasets", "verify", str(path), "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert f"{len(lines)} of {len(lines)} samples verified by both verifiers; 0 failed" in (
        " ".join(result.output.split())
    )
    broken = json.loads(lines[3])
    broken["answer"]["correct_answers"] = ["red_herring"]
    lines[3] = json.dumps(broken)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["datasets", "verify", str(path)])
    assert result.exit_code == 1
    assert f"line 4 {broken['id']}" in result.output and "red_herring" in result.output
    assert "1 failed" in result.output


def test_datasets_verify_draws_a_bar_on_a_long_file(tmp_path, monkeypatch):
    from tomflywheel.cli import _generate

    monkeypatch.setattr(_generate, "BAR_FROM_SAMPLES", 1)
    path = tmp_path / "tomi.jsonl"
    runner.invoke(app, ["datasets", "generate", "tomi", "--n", "3", "--out", str(path)])
    count = len(path.read_text(encoding="utf-8").splitlines())
    result = runner.invoke(app, ["datasets", "verify", str(path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "verify samples" in result.output
    assert f"{count} of {count} samples verified" in " ".join(result.output.split())
