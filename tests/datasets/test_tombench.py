"""ToMBench importer: both languages, NaN options, letter prefixes, corrupted copies."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tomflywheel.datasets import load_benchmark
from tomflywheel.datasets._tombench import CATEGORIES, normalize_ability

# Records per file, from SOURCE.md.
FILES = {
    "Ambiguous Story Task": 200,
    "Completion of Failed Actions": 20,
    "Discrepant Desires": 20,
    "Discrepant Emotions": 40,
    "Discrepant Intentions": 40,
    "Emotion Regulation": 20,
    "False Belief Task": 600,
    "Faux-pas Recognition Test": 560,
    "Hidden Emotions": 80,
    "Hinting Task Test": 103,
    "Knowledge-Attention Links": 20,
    "Knowledge-Pretend Play Links": 30,
    "Moral Emotions": 40,
    "Multiple Desires": 20,
    "Percepts-Knowledge Links": 40,
    "Persuasion Story Task": 100,
    "Prediction of Actions": 20,
    "Scalar Implicature Test": 200,
    "Strange Story Task": 407,
    "Unexpected Outcome Test": 300,
}


@pytest.fixture(scope="module")
def english(benchmarks: Path):
    return load_benchmark("tombench", benchmarks / "tombench")


@pytest.fixture(scope="module")
def chinese(benchmarks: Path):
    return load_benchmark("tombench", benchmarks / "tombench" / "data", language="zh")


def test_2860_records_per_language_with_the_documented_option_counts(english, chinese):
    for samples in (english, chinese):
        assert len(samples) == 2860
        assert Counter(s.meta["task"] for s in samples) == FILES
    # Faux-pas: 280 two-option records; Strange Story: 203 (en) / 204 (zh).
    two = {
        lang: Counter(s.meta["task"] for s in samples if len(s.meta["options"]) == 2)
        for lang, samples in (("en", english), ("zh", chinese))
    }
    assert two["en"] == {"Faux-pas Recognition Test": 280, "Strange Story Task": 203}
    assert two["zh"] == {"Faux-pas Recognition Test": 280, "Strange Story Task": 204}


def test_the_option_count_is_decided_per_language(english, chinese):
    # Strange Story line 293: 4 English options, 2 Chinese ones.
    en = next(s for s in english if s.id == "tombench-en-strange_story_task-292")
    zh = next(s for s in chinese if s.id == "tombench-zh-strange_story_task-292")
    assert en.meta["source_line"] == zh.meta["source_line"] == 293
    assert (len(en.meta["options"]), len(zh.meta["options"])) == (4, 2)


def test_first_false_belief_record_field_by_field(english):
    first = english[[s.meta["task"] for s in english].index("False Belief Task")]
    assert first.id == "tombench-en-false_belief_task-000"
    assert first.story.startswith("Xiaogang and Xiaoming are wandering in the bedroom")
    assert first.question == "Where is the cabbage now?"
    assert first.answer.correct_answers == ["Backpack"]
    assert first.answer.wrong_answers == ["Handbag", "Tote bag", "Briefcase"]
    assert first.meta["ability"] == "Belief: Location false beliefs"
    assert first.meta["ability_category"] == "Belief"
    assert first.meta["gold_letter"] == "A"
    assert first.meta["language"] == "en"


def test_prefixes_are_stripped_and_an_odd_gold_is_read(english, chinese):
    faux_zh = next(s for s in chinese if s.id == "tombench-zh-faux_pas_recognition_test-000")
    assert faux_zh.answer.correct_answers == ["故事中有人说了不合适的话"]  # was "A. 故事中..."
    assert faux_zh.answer.wrong_answers == ["故事中没有人说不合适的话。"]
    # Knowledge-Attention Links line 11 stores its gold as "A. ".
    odd = next(s for s in english if s.id == "tombench-en-knowledge_attention_links-010")
    assert odd.meta["gold_letter"] == "A"
    assert odd.answer.correct_answers == [odd.meta["options"][0]]


def test_ability_labels_are_normalized(english):
    assert {s.meta["ability_category"] for s in english} == set(CATEGORIES)
    assert not any(s.meta["ability"].startswith("Non-literal") for s in english)
    assert normalize_ability("Knowledge: Information-knowledge links ") == (
        "Knowledge: Information-knowledge links",
        "Knowledge",
    )
    assert (
        normalize_ability("Non-literal communication: Humor")[0]
        == "Non-Literal Communication: Humor"
    )


def test_repeated_wrong_options_are_offered_once(english):
    item = next(s for s in english if s.id == "tombench-en-unexpected_outcome_test-165")
    assert item.meta["options"] == ["Angry", "Thrilled", "Angry", "Surprise"]
    assert item.answer.correct_answers == ["Surprise"]
    assert item.answer.wrong_answers == ["Angry", "Thrilled"]


def test_a_gold_letter_naming_no_option_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "tombench" / "data", tmp_path / "data")
    path = folder / "Faux-pas Recognition Test.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # The first two-option record (bare NaN for C and D in both languages): make its gold "C".
    index = next(
        i for i, line in enumerate(lines) if '"OPTION-C": NaN' in line and '"选项C": NaN' in line
    )
    lines[index] = re.sub(r'"答案\\nANSWER": "[AB]"', '"答案\\\\nANSWER": "C"', lines[index])
    path.write_text("".join(lines), encoding="utf-8")
    error = fails_cleanly("tombench", folder)
    assert str(error) == f"{path}:{index + 1}: 答案\\nANSWER: 'C' names no option"


def test_a_truncated_file_names_its_last_line(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "tombench" / "data", tmp_path / "data")
    path = folder / "Multiple Desires.jsonl"
    edit_lines(path, lambda lines: [*lines[:-1], lines[-1][:100]])
    assert str(fails_cleanly("tombench", folder)).startswith(f"{path}:20: invalid JSON")
