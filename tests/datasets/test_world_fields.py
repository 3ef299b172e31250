"""What the world check reads from the importers: every ToMi split, Hi-ToM twins, tgtom fields."""

from __future__ import annotations

from pathlib import Path

import pytest

from tomflywheel.datasets import load_all_splits, load_benchmark
from tomflywheel.errors import DataError


def test_a_tomi_folder_yields_every_split_in_name_order(benchmarks: Path):
    samples = load_all_splits("tomi", benchmarks / "tomi" / "tomi_balanced_story_types")
    assert len(samples) == 17982
    assert [s.id for s in samples[::5994]] == [
        "tomi-test-000000",
        "tomi-train-000000",
        "tomi-val-000000",
    ]


def test_a_tomi_file_or_another_benchmark_is_one_import(benchmarks: Path):
    file = benchmarks / "tomi" / "tomi_balanced_story_types" / "fb_all_val.txt"
    assert load_all_splits("tomi", file) == load_benchmark("tomi", file)
    assert len(load_all_splits("tgtom", benchmarks / "tgtom")) == 1812


def test_a_folder_without_tomi_splits_is_named(tmp_path: Path):
    with pytest.raises(DataError) as error:
        load_all_splits("tomi", tmp_path)
    assert str(error.value).startswith(f"{tmp_path}: no ToMi split here (looked for fb_all_test")


def test_every_hitom_question_carries_its_twins_gold(benchmarks: Path):
    cotp = load_benchmark("hitom", benchmarks / "hitom")
    vp = {
        s.meta["source_id"]: s
        for s in load_benchmark("hitom", benchmarks / "hitom", prompting="VP")
    }
    assert all(
        s.meta["twin_gold"] == vp[s.meta["source_id"] + 300].answer.correct_answers[0] for s in cotp
    )
    # The 138 pairs whose golds disagree (the data notes' count).
    assert sum(s.meta["twin_gold"] != s.answer.correct_answers[0] for s in cotp) == 138


def test_tgtom_keeps_each_questions_own_fields_and_the_agents(benchmarks: Path):
    samples = {s.id: s for s in load_benchmark("tgtom", benchmarks / "tgtom")}
    q10 = samples["tgtom-000-Q10"].meta
    assert q10["tgtom_fields"]["swap_agent_A"] == "Harper"
    assert q10["tgtom_fields"]["swap_agent_B_new_line"] == 16
    assert "question" not in q10["tgtom_fields"] and "answer" not in q10["tgtom_fields"]
    assert samples["tgtom-000-Q1-Scarlett"].meta["tgtom_fields"] == {"agent": "Scarlett"}
    assert q10["agents"] == ["Scarlett", "Lily", "Lucas", "Ava", "Olivia", "Harper", "Logan"]


def test_a_missing_tgtom_folder_is_named(tmp_path: Path):
    with pytest.raises(DataError) as error:
        load_benchmark("tgtom", tmp_path / "nowhere")
    assert str(error.value) == f"{tmp_path / 'nowhere'}: no such file or folder"
