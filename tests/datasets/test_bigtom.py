"""BigToM importer: the 25 condition files, the template they come from, corrupted copies."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tomflywheel.datasets import load_benchmark
from tomflywheel.datasets._bigtom import CONDITIONS


@pytest.fixture(scope="module")
def samples(benchmarks: Path):
    return load_benchmark("bigtom", benchmarks / "bigtom")


def test_25_conditions_of_200_stories(samples):
    assert len(samples) == 5000
    assert len(CONDITIONS) == 25
    assert Counter(s.meta["condition"] for s in samples) == dict.fromkeys(CONDITIONS, 200)
    assert {len(s.options) for s in samples} == {2}
    assert sum(s.meta["gold_suspect"] for s in samples) == 200


def test_the_template_rebuilds_exactly_the_condition_files(benchmarks, samples):
    rebuilt = load_benchmark("bigtom", benchmarks / "bigtom" / "bigtom.csv")
    assert [s.model_dump() for s in rebuilt] == [s.model_dump() for s in samples]


def test_false_and_true_belief_rows_field_by_field(samples):
    by_id = {s.id: s for s in samples}
    false_belief = by_id["bigtom-0_forward_belief_false_belief-000"]
    assert false_belief.story.startswith("Noor is working as a barista at a busy coffee shop.")
    assert false_belief.story.endswith(
        "while Noor is attending to another task. Noor does not see her coworker swapping the milk."
    )
    assert "Noor believes that the milk pitcher contains oatmilk" not in false_belief.story
    assert false_belief.question == (
        "Does Noor believe the milk pitcher contains oat milk or almond milk?"
    )
    assert false_belief.answer.correct_answers == [
        "Noor believes the milk pitcher contains oat milk."
    ]
    assert false_belief.answer.wrong_answers == [
        "Noor believes the milk pitcher contains almond milk."
    ]
    assert {
        k: false_belief.meta[k]
        for k in ("init_belief", "direction", "variable", "belief", "control")
    } == {
        "init_belief": 0,
        "direction": "forward",
        "variable": "belief",
        "belief": "false",
        "control": False,
    }
    true_belief = by_id["bigtom-0_forward_belief_true_belief-000"]
    assert true_belief.answer.correct_answers == [
        "Noor believes the milk pitcher contains almond milk."
    ]
    assert true_belief.story.endswith("Noor sees her coworker swapping the milk.")
    with_belief = by_id["bigtom-1_backward_belief_true_control-000"]
    assert with_belief.meta["init_belief"] == 1
    assert with_belief.meta["direction"] == "backward"
    assert with_belief.meta["control"] is True


def test_a_row_with_a_missing_field_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "bigtom", tmp_path / "bigtom")
    path = folder / "conditions" / "1_forward_action_true_control" / "stories.csv"
    edit_lines(path, lambda lines: [*lines[:9], lines[9].rsplit(";", 1)[0] + "\r\n", *lines[10:]])
    assert str(fails_cleanly("bigtom", folder)) == f"{path}:10: expected 4 fields, got 3"


def test_a_missing_condition_file_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "bigtom", tmp_path / "bigtom")
    path = folder / "conditions" / "0_backward_belief_true_belief" / "stories.csv"
    path.unlink()
    assert str(fails_cleanly("bigtom", folder)) == f"{path}: condition file not found"


def test_a_truncated_template_is_named(benchmarks, tmp_path, fails_cleanly):
    path = copy_tree(benchmarks / "bigtom" / "bigtom.csv", tmp_path / "bigtom.csv")
    edit_lines(path, lambda lines: [*lines[:-1], lines[-1][:300]])
    assert str(fails_cleanly("bigtom", path)) == f"{path}:200: expected 19 fields, got 1"
