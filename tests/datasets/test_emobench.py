"""EmoBench importers: EU as linked emotion + cause questions, EA, both languages."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tomflywheel.datasets import load_benchmark

# EU items per coarse category and language, from SOURCE.md.
EU_CATEGORIES = {
    "complex_emotions": 49,
    "emotional_cues": 28,
    "personal_beliefs_and_experiences": 56,
    "perspective_taking": 67,
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_eu_has_200_items_of_two_linked_questions(benchmarks, language):
    samples = load_benchmark("emobench_eu", benchmarks / "emobench", language=language)
    assert len(samples) == 400
    items = Counter(s.meta["item_id"] for s in samples)
    assert len(items) == 200 and set(items.values()) == {2}
    per_item = {s.meta["item_id"]: s.meta["category"] for s in samples}
    assert Counter(per_item.values()) == EU_CATEGORIES
    assert Counter(s.meta["question_type"] for s in samples) == {"emotion": 200, "cause": 200}
    assert {len(s.options) for s in samples if s.meta["question_type"] == "emotion"} == {6}
    assert {s.meta["language"] for s in samples} == {language}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_ea_has_200_items_in_four_categories(benchmarks, language):
    samples = load_benchmark(
        "emobench_ea", benchmarks / "emobench" / "data" / "EA.jsonl", language=language
    )
    assert len(samples) == 200
    assert Counter(s.meta["category"] for s in samples) == dict.fromkeys(
        ("Personal-Others", "Personal-Self", "Social-Others", "Social-Self"), 50
    )
    assert Counter(s.meta["question_type"] for s in samples) == {"action": 100, "response": 100}
    assert {len(s.options) for s in samples} == {4}


def test_first_eu_item_field_by_field(benchmarks):
    emotion, cause = load_benchmark("emobench_eu", benchmarks / "emobench")[:2]
    assert emotion.id == "emobench_eu-en-1-emotion"
    assert cause.id == "emobench_eu-en-1-cause"
    assert emotion.story.startswith("Dorea was trying to cook a Baklava.")
    assert emotion.question == "What emotion(s) would Dorea ultimately feel in this situation?"
    assert emotion.answer.correct_answers == ["Delight"]
    assert emotion.answer.wrong_answers == [
        "Anger",
        "Embarrassment",
        "Hopeless",
        "Pride",
        "Disappointment",
    ]
    assert cause.question == "Why would Dorea feel these emotions in this situation?"
    assert cause.answer.correct_answers == [
        "Her daughter enjoyed the Baklava despite it being ruined"
    ]
    assert len(cause.answer.wrong_answers) == 3
    assert emotion.meta["item_id"] == cause.meta["item_id"] == "en-1"
    assert emotion.meta["subcategory"] == "emotion_transition"


def test_first_ea_items_in_both_languages(benchmarks):
    english = load_benchmark("emobench_ea", benchmarks / "emobench")[0]
    assert english.question == "In this scenario, what is the most effective Action for Sarah?"
    assert english.answer.correct_answers == [
        "Suggest her brother to talk to a teacher or a school counselor"
    ]
    chinese = load_benchmark("emobench_ea", benchmarks / "emobench", language="zh")[0]
    assert chinese.question == "在这个场景中，萨拉最有效的Action是什么？"
    assert chinese.id == "emobench_ea-zh-1"


def test_a_label_outside_its_choices_is_named(benchmarks, tmp_path, fails_cleanly):
    path = copy_tree(benchmarks / "emobench" / "data" / "EU.jsonl", tmp_path / "EU.jsonl")
    edit_lines(
        path,
        lambda lines: [
            *lines[:2],
            lines[2].replace('"emotion_label": "', '"emotion_label": "Not ', 1),
            *lines[3:],
        ],
    )
    error = fails_cleanly("emobench_eu", path)
    assert str(error).startswith(f"{path}:3: emotion_label: 'Not ")
    assert str(error).endswith("is not one of emotion_choices")


def test_a_truncated_ea_file_names_its_last_line(benchmarks, tmp_path, fails_cleanly):
    path = copy_tree(benchmarks / "emobench" / "data" / "EA.jsonl", tmp_path / "EA.jsonl")
    edit_lines(path, lambda lines: [*lines[:-1], lines[-1][:50]])
    assert str(fails_cleanly("emobench_ea", path, language="zh")).startswith(
        f"{path}:400: invalid JSON"
    )
