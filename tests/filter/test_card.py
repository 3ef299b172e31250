"""The dataset card written beside admitted training data, and its export along the data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.filter.conftest import engine_duplicate_and_free_form, filter_no_llm
from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.datasets import export_dataset
from tomflywheel.errors import DataError, UserInputError
from tomflywheel.filter.admit import write_manifest

runner = CliRunner()


@pytest.fixture
def train_dir(tmp_path: Path) -> Path:
    """A training set the filter admitted: 6 ToMi engine samples, a duplicate, a free-form one."""
    result, train = filter_no_llm(tmp_path, engine_duplicate_and_free_form()[1])
    assert result.exit_code == 0, result.output
    return train


def test_the_card_says_what_was_admitted_from_where_and_what_was_rejected(train_dir: Path):
    card = (train_dir / "README.md").read_text(encoding="utf-8")
    front, _, body = card.removeprefix("---\n").partition("\n---\n")
    assert "- config_name: first\n  data_files: first.jsonl" in front
    admitted = [json.loads(line) for line in (train_dir / "first.jsonl").read_text().splitlines()]
    assert f"{len(admitted)} samples admitted (`first.jsonl`) of 8 candidates" in body
    assert "rejection reasons: exact_duplicate 1, label_unverified 1" in body
    assert f"generators: tomi v{admitted[0]['meta']['trace']['version']} {len(admitted)}" in body
    assert "contamination guard" in body
    holds = body.partition("### What it holds")[2].partition("### ")[0]
    rows = [line for line in holds.splitlines() if line.startswith("| tomi")]
    types = {a["meta"]["question_type"] for a in admitted}
    assert len(rows) == len(types)  # one row per question type of the admitted data
    assert sum(int(c) for row in rows for c in row.strip("| ").split(" | ")[2:]) == len(admitted)


def test_the_card_is_rebuilt_with_the_same_bytes(train_dir: Path):
    before = (train_dir / "README.md").read_bytes()
    write_manifest(train_dir)
    assert (train_dir / "README.md").read_bytes() == before


def test_export_as_hf_and_parquet_reads_back_every_sample_with_its_card(
    train_dir: Path, tmp_path: Path
):
    from datasets import Dataset, load_from_disk

    source = train_dir / "first.jsonl"
    originals = [json.loads(line) for line in source.read_text().splitlines()]
    hf = export_dataset(source, fmt="hf", to=tmp_path / "hf")
    parquet = export_dataset(source, fmt="parquet", to=tmp_path / "pq")
    for loaded in (load_from_disk(str(hf.path)), Dataset.from_parquet(str(parquet.path))):
        assert loaded["id"] == [o["id"] for o in originals]
        assert loaded["correct_answers"] == [o["answer"]["correct_answers"] for o in originals]
        assert [json.loads(m) for m in loaded["meta"]] == [o["meta"] for o in originals]
    assert hf.samples == parquet.samples == len(originals)
    assert parquet.path == tmp_path / "pq" / "first.parquet"
    assert "data_files: first.parquet\n" in (tmp_path / "pq" / "README.md").read_text()
    assert hf.card is not None and "data_files: data-*.arrow\n" in hf.card.read_text()


def test_export_refuses_a_full_folder_and_names_a_bad_line(train_dir: Path, tmp_path: Path):
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    with pytest.raises(UserInputError, match="not empty"):
        export_dataset(train_dir / "first.jsonl", fmt="hf", to=full)
    assert (full / "keep.txt").read_text() == "mine"
    bad = tmp_path / "bad.jsonl"
    bad.write_text((train_dir / "first.jsonl").read_text().splitlines()[0] + '\n{"id": "x"}\n')
    with pytest.raises(DataError, match=r"bad\.jsonl:2"):
        export_dataset(bad, fmt="parquet", to=tmp_path / "out")
    assert not (tmp_path / "out" / "bad.parquet").exists()


def test_the_export_command_says_what_it_wrote(train_dir: Path, tmp_path: Path):
    args = ["datasets", "export", str(train_dir / "first.jsonl"), "--to", str(tmp_path / "x")]
    result = runner.invoke(app, [*args, "--format", "parquet"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "samples written to" in result.output and "card" in result.output
    missing = runner.invoke(app, ["datasets", "export", str(tmp_path / "no.jsonl"), "--to", "y"])
    assert missing.exit_code == 2 and "does not exist" in " ".join(missing.output.split())
    with pytest.raises(UserInputError, match="no such dataset file"):
        export_dataset(tmp_path / "no.jsonl", fmt="hf", to=tmp_path / "z")
