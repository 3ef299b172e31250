"""The command line: help everywhere, known failures as one line with exit 1."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from tests.cli_commands import walk
from tomflywheel.cli import app

runner = CliRunner()


def test_every_command_and_option_has_help_text():
    missing = []
    walked = [path for path, _ in walk()]
    assert ("serve",) in walked and ("datasets", "generate") in walked
    for path, command in walk():
        if not (command.help or "").strip():
            missing.append(path)
        for param in command.params:
            if param.param_type_name == "option" and not (param.help or "").strip():
                missing.append(f"{path} {param.opts[0]}")
    assert missing == []


def test_help_lists_the_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "serve" in result.output


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tomflywheel", *args], capture_output=True, text=True, check=False
    )


def test_a_bad_config_is_one_line_exit_1_without_traceback(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("server: embedded\nembedded:\n  kv_cache_gib: zero\n", encoding="utf-8")
    result = _run("serve", "--config", str(config))
    assert result.returncode == 1
    assert f"{config}:3: embedded.kv_cache_gib: Input should be a valid integer" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_experiment_config_that_is_not_yaml_is_one_line_exit_2(tmp_path):
    # PyYAML loads only in the commands that read YAML: its error still becomes one line.
    (tmp_path / "tomi").mkdir()
    (tmp_path / "config.yaml").write_text("llm: {model: m\n", encoding="utf-8")
    metrics = '{"dataset": "tomi", "overall": {"n": 1, "accuracy": 1.0}, "counts": {}}'
    (tmp_path / "tomi" / "metrics.json").write_text(metrics, encoding="utf-8")
    result = _run("report", "summary", str(tmp_path))
    assert result.returncode == 2
    assert "error: invalid YAML at line 2" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_usage_error_exits_2():
    result = _run("serve", "--port", "not-a-port")
    assert result.returncode == 2


def test_version_prints_the_package_version():
    from tomflywheel import __version__

    result = _run("--version")
    assert result.returncode == 0 and result.stdout.strip() == __version__


def test_help_shows_real_types_and_fits_80_columns():
    for path, _ in walk():
        args = [*path, "--help"]
        result = runner.invoke(app, args, env={"COLUMNS": "80"}, terminal_width=80)
        assert result.exit_code == 0, path
        assert "<bool>" not in result.output, path
        too_wide = [line for line in result.output.splitlines() if len(line) > 80]
        assert too_wide == [], path
    result = runner.invoke(app, ["eval", "--help"], env={"COLUMNS": "80"})
    assert "--strict-matching / --lenient-matching" in result.output
    assert "--max-samples <n>" in result.output
    flat = " ".join(result.output.split())
    assert "[default: configs/default.yaml]" in flat
    assert "(default: eval.max_samples)" in flat
    assert "--first" in flat


def test_example_says_that_the_embedded_server_is_starting(tmp_path):
    not_a_model = tmp_path / "model"
    not_a_model.mkdir()
    config = tmp_path / "c.yaml"
    config.write_text(f"server: embedded\nembedded:\n  model: {not_a_model}\n", encoding="utf-8")
    result = _run("example", "-c", str(config), "--story", "Tom left.", "--question", "Who?")
    # The folder is no model (or vLLM is missing), so the start fails with one line; what
    # matters is that the start was announced first.
    assert "starting the embedded vLLM server (model)" in " ".join(result.stderr.split())
    assert result.returncode == 1 and "Traceback" not in result.stderr
