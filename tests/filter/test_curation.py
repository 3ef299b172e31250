"""Curating an imported benchmark: one count everywhere, every change on the card, licences kept.

The per-check table, the label table, the summary, the manifest, the card and the list of
changed labels all read the same verdicts; a benchmark whose authors forbid training is refused
for a training set unless the user overrides it, and the card says so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.datasets.opentom_files import write_opentom
from tests.filter.conftest import write_jsonl
from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.config import Settings
from tomflywheel.datasets import export_dataset, import_dataset, load_benchmark
from tomflywheel.errors import UserInputError
from tomflywheel.filter import FilterRun, FilterSettings, run_filter
from tomflywheel.schema import Sample, read_samples
from tomflywheel.world import read_labels

runner = CliRunner()
STORIES = 20  # 120 ToMi test questions: both conventions' items among them
CURATE = FilterSettings(audit={"enforce": False}, disabled_checks=["contamination"])


def other_place(sample: Sample) -> list[str]:
    """The story's other container, in both written forms (a planted wrong gold)."""
    gold = sample.answer.correct_answers[0]
    other = next(place for place in sample.meta["candidates"] if place != gold)
    return [other, other.replace("_", " ")]


@pytest.fixture
def tomi_input(benchmarks: Path, tmp_path: Path) -> tuple[Path, list[Sample], set[str]]:
    """The first ToMi test stories as imported, two golds no profile gives planted among them."""
    folder = benchmarks / "tomi" / "tomi_balanced_story_types"
    imported = import_dataset("tomi", folder, split="test", out=tmp_path / "tomi.jsonl")
    samples = list(read_samples(imported.out))[: STORIES * 6]
    readings = list(read_labels(samples))
    plain = [i for i, r in enumerate(readings) if r.status == "verified"]
    planted = {plain[3], plain[40]}
    rows = [
        s.model_copy(update={"answer": s.answer.model_copy(update={"correct_answers": other})})
        if i in planted
        else s
        for i, s in enumerate(samples)
        for other in [other_place(s)]
    ]
    source = write_jsonl(tmp_path / "curated.jsonl", rows)
    return source, samples, {samples[i].id for i in planted}


def curate(source: Path, train: Path, **options: object):
    return run_filter(
        FilterRun(
            settings=Settings(filter=CURATE),
            input_path=source,
            use_llm=False,
            train_dir=train,
            eval_dir=train / "none",
            **options,
        )
    )


def test_every_table_the_manifest_the_card_and_the_change_file_give_one_count(tomi_input, tmp_path):
    source, samples, planted = tomi_input
    summary = curate(source, tmp_path / "train")
    (row,) = summary.labels
    engine = next(c for c in summary.checks if c.check == "engine_label")
    conventions = sum(r.status == "convention" for r in read_labels(samples))
    assert conventions > 0
    assert (row.counts["repaired"], engine.repaired) == (2, 2)
    assert (row.counts["convention"], row.counts["verified"]) == (
        conventions,
        len(samples) - conventions - 2,
    )
    entry = json.loads(summary.manifest_path.read_text())["datasets"]["curated"]
    assert entry["checks"]["engine_label"]["repaired"] == 2
    assert entry["labels"]["tomi"]["repaired"] == 2
    assert entry["label_changes"] == {
        "file": "label_changes/curated.jsonl",
        "count": 2,
        "by_kind": {"error": 2},
    }
    assert entry["conventions"]["count"] == conventions
    changes = [json.loads(line) for line in summary.changes_path.read_text().splitlines()]
    assert {c["id"] for c in changes} == planted
    originals = {s.id: s.answer.correct_answers for s in samples}
    assert all(c["new"] == originals[c["id"]] for c in changes)  # repaired back, both forms
    card = (tmp_path / "train" / "README.md").read_text()
    assert (
        "2 admitted samples carry a changed label (error 2): each is listed, with old and new "
        "answers, why and profile, in `label_changes/curated.jsonl`"
    ) in card
    assert f"{conventions} admitted samples keep a convention-dependent gold" in card
    assert f"| tomi | {len(samples)} | {row.counts['verified']} | {conventions} | 2 | 0 |" in card


def test_the_card_of_an_import_names_its_licence_and_files_and_no_synthesis(tomi_input, tmp_path):
    source, _, _ = tomi_input
    curate(source, tmp_path / "train")
    card = (tmp_path / "train" / "README.md").read_text()
    front = card.partition("\n---\n")[0]
    assert "license: cc-by-nc-4.0" in front
    assert "synthetic" not in front
    assert "synthesis plans" not in card and "diagnoses targeted" not in card
    assert "label origin: free_form 120" in card
    assert (
        "`tomi`: 120 samples imported from the pinned release, facebookresearch/ToMi @ "
        "dea2bca9b366c41cdab0bd717353cc02453e193e"
    ) in card
    assert "`tomi` (120 samples): CC BY-NC 4.0 (facebookresearch/ToMi README and LICENSE)" in card
    assert "admission balances until none is" not in card
    assert "admitted as it is (balancing off, `--no-balance`)" in card


def test_an_export_carries_the_change_file_and_names_only_files_it_has(tomi_input, tmp_path):
    source, _, _ = tomi_input
    summary = curate(source, tmp_path / "train")
    exported = export_dataset(summary.admitted_path, fmt="parquet", to=tmp_path / "pq")
    assert exported.changes == tmp_path / "pq" / "label_changes" / "curated.jsonl"
    assert exported.changes.read_bytes() == summary.changes_path.read_bytes()
    card = (tmp_path / "pq" / "README.md").read_text()
    assert "rejected/" not in card and "verdicts/" not in card
    assert "`label_changes/curated.jsonl`" in card
    assert "rejected/curated.jsonl" in (tmp_path / "train" / "README.md").read_text()
    mask = os.umask(0)
    os.umask(mask)
    for path in (exported.path, exported.changes):  # not a temporary file's private 0600
        assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def test_a_benchmark_whose_authors_forbid_training_is_refused_unless_overridden(tmp_path):
    samples = load_benchmark("opentom", write_opentom(tmp_path / "opentom_data"))
    source = write_jsonl(tmp_path / "opentom.jsonl", samples)
    with pytest.raises(UserInputError) as refused:
        curate(source, tmp_path / "train")
    assert str(refused.value) == (
        f"{source}: {len(samples)} candidates of 'opentom', licensed CC BY-NC 4.0 "
        '(seacowx/OpenToM README); the README: "It shall not be used for training or '
        'fine-tuning": its authors forbid training on it, and this builds a training set; '
        "refusing (pass --allow-license-override to proceed knowingly: the dataset card "
        "records it)"
    )
    assert not (tmp_path / "train").exists()  # refused before anything was written


def test_the_cli_refuses_then_admits_with_both_flags_and_the_card_records_it(tmp_path):
    samples = load_benchmark("opentom", write_opentom(tmp_path / "opentom_data"))
    source = write_jsonl(tmp_path / "opentom.jsonl", samples)
    config = tmp_path / "config.yaml"
    config.write_text("server: embedded\n", encoding="utf-8")
    args = ["filter", "-i", str(source), "-c", str(config), "--no-llm", "--no-balance"]
    args += ["--train-dir", str(tmp_path / "t"), "--eval-dir", str(tmp_path / "none")]
    refused = runner.invoke(app, args, env={"COLUMNS": "160"})
    assert refused.exit_code == 1
    assert isinstance(refused.exception, UserInputError)
    assert not (tmp_path / "t").exists()
    flags = ["--allow-license-override", "--admit-unverified"]
    result = runner.invoke(app, [*args, *flags], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert len((tmp_path / "t" / "opentom.jsonl").read_text().splitlines()) == len(samples)
    card = (tmp_path / "t" / "README.md").read_text()
    assert "license: cc-by-nc-4.0" in card
    assert (
        f"`opentom` ({len(samples)} samples): CC BY-NC 4.0 (seacowx/OpenToM README); the "
        'README: "It shall not be used for training or fine-tuning" — its authors forbid '
        "training on it; admitted only because the filter ran with `--allow-license-override`"
    ) in card
    assert "license not known" not in card


def test_text_from_the_data_is_escaped_on_the_card(tmp_path):
    from tests.filter.conftest import sample

    odd = sample(story="A note <b>in bold</b>.", sample_id="odd", dataset="<img src=x>")
    source = write_jsonl(tmp_path / "odd.jsonl", [odd])
    fs = FilterSettings(audit={"enforce": False}, label={"admit_unverified": True})
    run_filter(
        FilterRun(
            settings=Settings(filter=fs),
            input_path=source,
            use_llm=False,
            train_dir=tmp_path / "t",
            eval_dir=tmp_path / "none",
        )
    )
    card = (tmp_path / "t" / "README.md").read_text()
    assert "&lt;img src=x&gt;" in card
    assert "<img" not in card
