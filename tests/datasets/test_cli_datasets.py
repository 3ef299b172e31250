"""``tomflywheel datasets import``: what it prints, writes, and how it fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from tests.datasets.conftest import edit_lines
from tests.datasets.toy_files import SOCIALIQA_RECORDS, write_socialiqa
from tomflywheel.cli import app

runner = CliRunner()


def test_import_writes_the_file_and_prints_counts(benchmarks, tmp_path):
    out = tmp_path / "h.jsonl"
    result = runner.invoke(
        app,
        [
            "datasets",
            "import",
            "hitom",
            str(benchmarks / "hitom"),
            "--prompting",
            "VP",
            "--out",
            str(out),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "600 samples of hitom written to" in result.output
    assert "by order" in result.output and "by deception" in result.output
    assert sum(1 for _ in out.open(encoding="utf-8")) == 600
    assert '"id":"hitom-vp-0300"' in out.read_text(encoding="utf-8").splitlines()[0]


def test_default_output_goes_to_the_datasets_folder(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tomflywheel",
            "datasets",
            "import",
            "socialiqa",
            str(write_socialiqa(tmp_path / "siqa")),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    written = (tmp_path / "datasets" / "socialiqa.jsonl").read_text(encoding="utf-8")
    assert len(written.splitlines()) == SOCIALIQA_RECORDS


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tomflywheel", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_an_option_the_importer_does_not_take_is_one_line_exit_1(tmp_path):
    # Refused before the source is read: an empty folder will do.
    result = _run("datasets", "import", "hitom", str(tmp_path), "--language", "en", cwd=tmp_path)
    assert result.returncode == 1
    assert "importer 'hitom' has no option 'language' (its options: prompting)" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "datasets").exists()


def test_a_corrupted_benchmark_names_file_line_and_field(tmp_path):
    folder = write_socialiqa(tmp_path / "siqa")
    labels = edit_lines(folder / "dev-labels.lst", lambda lines: [*lines[:2], "x\n", *lines[3:]])
    result = _run("datasets", "import", "socialiqa", str(folder), cwd=tmp_path)
    assert result.returncode == 1
    assert f"{labels}:3: label: 'x' is not 1, 2 or 3" in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "datasets").exists()


def test_a_bad_choice_is_a_usage_error(tmp_path):
    result = _run("datasets", "import", "tomi", str(tmp_path), "--split", "dev", cwd=tmp_path)
    assert result.returncode == 2


def test_verify_refuses_a_byte_that_is_not_utf8_with_file_and_line(tmp_path):
    # Bug: msgspec skipped the story without checking it: "1 of 1 verified", exit 0.
    path = tmp_path / "latin1.jsonl"
    good = b'{"id":"a","story":"ok","question":"q","answer":{"correct_answers":["x"]},"meta":{}}\n'
    bad = good.replace(b'"a"', b'"b"').replace(b'"ok"', b'"caf\xe9"')
    path.write_bytes(good + bad)
    result = runner.invoke(app, ["datasets", "verify", str(path)], env={"COLUMNS": "160"})
    assert result.exit_code == 1
    offset = len(good) + bad.index(b"\xe9")
    assert str(result.exception) == f"{path}:2: not UTF-8 (byte offset {offset})"
