"""Planted label errors in real ToMi data: the engine finds every one and repairs it back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.filter.conftest import write_jsonl

from tomflywheel._rng import rng_for
from tomflywheel.config import Settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.filter import FilterSettings, run_filter
from tomflywheel.schema import Sample

STORIES = 200  # 1,200 questions: enough stories of every type, a few seconds to filter


def flipped(sample: Sample) -> Sample:
    """The sample with the other of ToMi's two candidate places as its gold."""
    gold = sample.answer.correct_answers[0]
    other = next(place for place in sample.meta["candidates"] if place != gold)
    answer = {"correct_answers": [other, other.replace("_", " ")], "wrong_answers": []}
    return Sample.model_validate({**sample.model_dump(mode="json"), "answer": answer})


def test_fifty_flipped_tomi_golds_are_found_and_repaired_back(benchmarks: Path, tmp_path: Path):
    real = load_benchmark("tomi", benchmarks / "tomi" / "tomi_balanced_story_types", split="test")[
        : STORIES * 6
    ]
    planted = set(rng_for("test-planted-labels", "tomi").sample(range(len(real)), 50))
    rows = [flipped(s) if i in planted else s for i, s in enumerate(real)]
    source = write_jsonl(tmp_path / "tomi_planted.jsonl", rows)
    fs = FilterSettings(audit={"enforce": False}, disabled_checks=["contamination"])
    summary = run_filter(
        Settings(),
        input_path=source,
        use_llm=False,
        filter_settings=fs,
        train_dir=tmp_path / "train",
        eval_dir=tmp_path / "none",
    )
    admitted = {
        record["id"]: record
        for record in map(json.loads, summary.admitted_path.read_text().splitlines())
    }
    assert len(admitted) == len(real)  # nothing dropped
    repaired = {i for i, s in enumerate(real) if "label_repair" in admitted[s.id]["meta"]}
    assert repaired == planted  # every planted error found, no correct label touched
    for i, sample in enumerate(real):
        record = admitted[sample.id]
        assert record["answer"]["correct_answers"] == sample.answer.correct_answers
        assert record["story"] == sample.story
        if i in planted:
            repair = record["meta"]["label_repair"]
            assert repair["old"] == rows[i].answer.correct_answers
            assert (repair["new"], repair["profile"]) == (sample.answer.correct_answers, "tomi")
    (row,) = summary.labels
    assert (row.counts["verified"], row.counts["repaired"]) == (len(real) - 50, 50)
