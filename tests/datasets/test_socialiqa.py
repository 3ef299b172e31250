"""Social IQa importer: dev records zipped with their labels file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tomflywheel.datasets import load_benchmark


@pytest.fixture(scope="module")
def samples(benchmarks: Path):
    return load_benchmark("socialiqa", benchmarks / "socialiqa")


def test_1954_records_with_the_documented_label_counts(samples):
    assert len(samples) == 1954
    assert Counter(s.meta["label"] for s in samples) == {1: 643, 2: 654, 3: 657}
    assert all(
        s.meta["options"][s.meta["label"] - 1] == s.answer.correct_answers[0] for s in samples
    )
    assert {s.meta["split"] for s in samples} == {"dev"}


def test_first_two_records_field_by_field(samples):
    first, second = samples[:2]
    assert first.id == "socialiqa-dev-0000"
    assert first.story == "Tracy didn't go home that evening and resisted Riley's attacks."
    assert first.question == "What does Tracy need to do before this?"
    assert first.answer.correct_answers == ["Find somewhere to go"]  # label 3
    assert first.answer.wrong_answers == ["make a new plan", "Go home and see Riley"]
    assert second.answer.correct_answers == ["sympathetic"]  # label 1
    assert second.answer.wrong_answers == ["like a person who was unable to help", "incredulous"]


def test_a_repeated_option_text_is_never_a_wrong_answer(samples):
    repeated = [s for s in samples if len(set(s.meta["options"])) < 3]
    assert len(repeated) == 5
    for sample in repeated:
        assert not set(sample.answer.correct_answers) & set(sample.answer.wrong_answers)


def test_a_bad_label_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "socialiqa", tmp_path / "siqa")
    labels = edit_lines(folder / "dev-labels.lst", lambda lines: [*lines[:9], "4\n", *lines[10:]])
    assert str(fails_cleanly("socialiqa", folder)) == f"{labels}:10: label: '4' is not 1, 2 or 3"


def test_a_truncated_labels_file_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "socialiqa", tmp_path / "siqa")
    labels = edit_lines(folder / "dev-labels.lst", lambda lines: lines[:1000])
    error = fails_cleanly("socialiqa", folder / "dev.jsonl")
    assert str(error) == f"{labels}:1001: label: missing for dev.jsonl:1001"
