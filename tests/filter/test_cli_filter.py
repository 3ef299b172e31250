"""``tomflywheel filter`` through typer's runner: the table, the files, and usage errors."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

from tests.filter.conftest import (
    engine_duplicate_and_free_form,
    filter_no_llm,
    sample,
    write_jsonl,
)
from tests.filter.test_balance import skewed
from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.errors import DataError

runner = CliRunner()


def test_filter_no_llm_prints_the_table_and_writes_the_files(tmp_path):
    good, rows = engine_duplicate_and_free_form()
    result, train = filter_no_llm(tmp_path, rows)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    row = next(line for line in lines if "exact_duplicate" in line and "│" in line)
    assert [cell.strip() for cell in row.split("│")[1:5]] == ["exact_duplicate", "7", "1", "0"]
    summary = f"{len(rows)} candidates: 6 accepted (0 after an LLM rewrite), 2 rejected"
    assert summary in result.output
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


def test_filter_refuses_an_empty_input_in_one_line(tmp_path):
    source = tmp_path / "empty.jsonl"
    source.write_text("", encoding="utf-8")
    args = ["filter", "--input", str(source), "--no-llm", "--train-dir", str(tmp_path / "t")]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    # A DataError: ``main`` prints it as one line, with no traceback.
    assert isinstance(result.exception, DataError)
    assert str(result.exception) == f"{source}: no records to filter (the file is empty)"
    assert "candidates:" not in result.output
    assert not (tmp_path / "t" / "manifest.json").exists()


def test_filter_counts_complements_apart_and_balancing_is_optional(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("server: embedded\nfilter:\n  audit:\n    min_items: 20\n", encoding="utf-8")
    source = write_jsonl(tmp_path / "skewed.jsonl", skewed())
    base = ["filter", "--input", str(source), "--config", str(config), "--no-llm"]
    base += ["--eval-dir", str(tmp_path / "none")]
    result = runner.invoke(app, [*base, "--train-dir", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    admitted = (tmp_path / "a" / "skewed.jsonl").read_text().splitlines()
    complements = [line for line in admitted if '"complement_of"' in line]
    assert complements
    accepted = len(admitted) - len(complements)
    assert (
        f"60 candidates: {accepted} accepted (0 after an LLM rewrite), {60 - accepted} rejected; "
        f"balancing added {len(complements)} complements"
    ) in result.output
    result = runner.invoke(app, [*base, "--no-balance", "--train-dir", str(tmp_path / "b")])
    assert (
        "60 candidates: 60 accepted (0 after an LLM rewrite), 0 rejected; labels: 60 verified, "
        "0 convention-dependent kept as given, 0 changed by the engine\n"
    ) in result.output
    # Not enforced, the audit is still reported: the skew is there for the curator to see.
    flagged = "tomi_synth · first_order: true_location"
    assert "shortcut audit of the admitted set: still flagged " in result.output
    assert flagged in result.output
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())["datasets"]["skewed"]
    (run,) = manifest["audit"]["runs"]
    assert flagged in run["flagged_after"]
    assert (run["dropped"], run["complements"]) == ({}, [])


def test_the_label_table_never_cuts_a_header_when_piped(tmp_path):
    # Bug: piped (80 columns), the nine headers were cut to "verifi…", "conve…".
    from rich.console import Console

    from tomflywheel.cli._filter import label_table
    from tomflywheel.filter import STATUSES
    from tomflywheel.filter.admit import label_rows
    from tomflywheel.schema import QualityVerdict

    result, train = filter_no_llm(tmp_path, engine_duplicate_and_free_form()[1])
    assert result.exit_code == 0, result.output
    log = (train / "verdicts" / "first.jsonl").read_text().splitlines()
    summary = SimpleNamespace(labels=label_rows(map(QualityVerdict.model_validate_json, log)))
    for width, first in ((80, "label"), (160, "dataset")):  # turned on its side when narrow
        with open(os.devnull, "w", encoding="utf-8") as sink:
            console = Console(width=width, record=True, file=sink)
            console.print(label_table(summary, width=width))  # type: ignore[arg-type]
        text = console.export_text()
        assert "…" not in text
        assert f"┃ {first} " in text
        for header in ("samples", *STATUSES, "admitted"):
            assert header.replace("llm_confirmed", "llm ok") in text, (width, header)
