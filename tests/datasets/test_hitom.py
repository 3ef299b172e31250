"""Hi-ToM importer against Hi-ToM_data.json: counts, the CoTP/VP pairs, corrupted copies."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tomflywheel.datasets import load_benchmark
from tomflywheel.datasets._hitom import split_choices
from tomflywheel.schema import QAKind


@pytest.fixture(scope="module")
def source(benchmarks: Path) -> Path:
    return benchmarks / "hitom" / "Hi-ToM_data.json"


@pytest.fixture(scope="module")
def cotp(source):
    return load_benchmark("hitom", source)


@pytest.fixture(scope="module")
def vp(source):
    return load_benchmark("hitom", source, prompting="VP")


def test_each_prompting_style_has_600_items_balanced_as_documented(cotp, vp):
    for samples in (cotp, vp):
        assert len(samples) == 600
        assert Counter(s.meta["order"] for s in samples) == dict.fromkeys(range(5), 120)
        assert Counter(s.meta["story_length"] for s in samples) == {1: 200, 2: 200, 3: 200}
        assert Counter(s.meta["deception"] for s in samples) == {False: 300, True: 300}
        assert {len(s.options) for s in samples} == {15}
        assert {s.kind for s in samples} == {QAKind.SINGLE_CHOICE}


def test_cotp_and_vp_disagree_on_138_items_at_orders_2_to_4(cotp, vp):
    assert [s.meta["source_id"] + 300 for s in cotp] == [s.meta["source_id"] for s in vp]
    differ = [c for c, v in zip(cotp, vp, strict=True) if c.answer != v.answer]
    assert len(differ) == 138
    assert {s.meta["order"] for s in differ} == {2, 3, 4}
    assert Counter(s.meta["deception"] for s in differ) == {False: 77, True: 61}
    assert sum(s.meta["clean"] for s in cotp) == 462
    assert sum(s.meta["clean"] for s in differ) == 0


def test_first_record_field_by_field(cotp):
    first = cotp[0]
    assert first.id == "hitom-cotp-0000"
    assert first.story.startswith(
        "1 Avery, Charlotte, Isabella, Elizabeth and Owen entered the living_room.\n"
        "2 The lettuce is in the green_drawer.\n3 Avery moved the lettuce to the green_bathtub."
    )
    assert first.story.endswith(
        "16 Avery, Charlotte, Isabella, Elizabeth and Owen entered the waiting_room."
    )
    assert first.question == "Where is the lettuce really?"
    assert first.answer.correct_answers == ["green_drawer"]
    assert first.meta["options"][:3] == ["blue_drawer", "green_crate", "red_bucket"]
    assert first.meta["options"][-1] == "green_bathtub"
    assert "green_drawer" not in first.answer.wrong_answers
    assert first.meta["order"] == 0
    assert first.meta["tom"] is False  # "really?": the reality control
    assert first.meta["deception"] is False
    assert first.meta["story_length"] == 1


def test_vp_instruction_line_and_stray_separators_are_dropped(cotp, vp):
    by_id = {s.meta["source_id"]: s for s in [*cotp, *vp]}
    twin = by_id[1042]
    assert twin.id == "hitom-vp-1042"
    assert twin.story.startswith("1 Logan, Emma, Isabella, Hannah and Chloe entered the hallway.")
    assert twin.question == "Where does Hannah think Emma thinks the peas is?"
    assert twin.answer.correct_answers == ["red_bottle"]
    assert by_id[742].answer.correct_answers == ["blue_treasure_chest"]
    assert by_id[42].answer.correct_answers == ["blue_cupboard"]
    assert by_id[342].answer.correct_answers == ["green_bathtub"]
    for sample_id in (42, 60, 61, 62, 80, 81):
        assert "***" not in by_id[sample_id].story


def test_choices_split_only_on_letter_marks():
    assert split_choices("A. red_box, B. blue_treasure_chest") == ["red_box", "blue_treasure_chest"]
    assert split_choices("A. x, C. y") is None  # letters must run A, B, C, ...


def _corrupt(source: Path, tmp_path: Path, edit) -> Path:
    document = json.loads(source.read_text(encoding="utf-8"))
    edit(document["data"])
    path = tmp_path / "Hi-ToM_data.json"
    path.write_text(json.dumps(document, indent=4), encoding="utf-8")
    return path


def test_an_answer_outside_the_choices_is_named(source, tmp_path, fails_cleanly):
    path = _corrupt(source, tmp_path, lambda data: data[5].update(answer="purple_box"))
    error = fails_cleanly("hitom", path)
    assert str(error) == f"{path}: record 5: answer: 'purple_box' is not one of the choices"


def test_a_wrong_field_type_is_named(source, tmp_path, fails_cleanly):
    path = _corrupt(source, tmp_path, lambda data: data[1199].update(question_order="two"))
    error = fails_cleanly("hitom", path)
    assert str(error) == f"{path}: record 1199: question_order: expected int, got str"


def test_a_truncated_file_names_the_line(source, tmp_path, fails_cleanly):
    path = tmp_path / "Hi-ToM_data.json"
    path.write_text(
        "\n".join(source.read_text(encoding="utf-8").splitlines()[:40]), encoding="utf-8"
    )
    assert str(fails_cleanly("hitom", path)).startswith(f"{path}:40: invalid JSON")


def test_candidates_are_the_options_the_story_names_and_hold_the_gold(cotp):
    for sample in cotp:
        candidates = sample.meta["candidates"]
        assert set(candidates) <= set(sample.meta["options"])
        assert sample.answer.correct_answers[0] in candidates
        assert all(c in sample.story for c in candidates)
    assert 2 < sum(len(s.meta["candidates"]) for s in cotp) / len(cotp) < 15
