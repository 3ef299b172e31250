"""Planted label errors in real ToMi data: the engine finds every error and repairs it back.

A plant on one of ToMi's convention-dependent questions (its second-order labels after a third
agent's entry) names the other convention's answer: that is kept and marked, never verified and
never counted as an error.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.filter.conftest import write_jsonl

from tomflywheel._rng import rng_for
from tomflywheel.config import Settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.filter import FilterRun, FilterSettings, run_filter
from tomflywheel.schema import Sample
from tomflywheel.world import read_labels

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
        FilterRun(
            settings=Settings(filter=fs),
            input_path=source,
            use_llm=False,
            train_dir=tmp_path / "train",
            eval_dir=tmp_path / "none",
        )
    )
    admitted = {
        record["id"]: record
        for record in map(json.loads, summary.admitted_path.read_text().splitlines())
    }
    assert len(admitted) == len(real)  # nothing dropped
    dependent = {i for i, r in enumerate(read_labels(real)) if r.status == "convention"}
    errors, conventions = planted - dependent, planted & dependent
    assert (len(errors), len(conventions)) == (47, 3)
    repaired = {i for i, s in enumerate(real) if "label_repair" in admitted[s.id]["meta"]}
    assert repaired == errors  # every planted error found, no correct label touched
    marked = {i for i, s in enumerate(real) if "convention" in admitted[s.id]["meta"]}
    assert marked == dependent  # the convention-dependent golds, planted or not, are marked
    for i, sample in enumerate(real):
        record = admitted[sample.id]
        kept = rows[i] if i in conventions else sample  # a convention's answer is kept as given
        assert record["answer"]["correct_answers"] == kept.answer.correct_answers
        assert record["story"] == sample.story
        if i in errors:
            repair = record["meta"]["label_repair"]
            assert repair["old"] == rows[i].answer.correct_answers
            assert (repair["new"], repair["profile"]) == (sample.answer.correct_answers, "tomi")
            assert repair["kind"] == "error"
    (row,) = summary.labels
    assert (row.counts["verified"], row.counts["convention"], row.counts["repaired"]) == (
        len(real) - len(dependent) - len(errors),
        len(dependent),
        len(errors),
    )
