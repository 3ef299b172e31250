"""Kosinski completion tasks and Adv-CSFB: prompts, expected words, both-prompts units."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tomflywheel.datasets import get_task, load_benchmark


@pytest.fixture(scope="module")
def kosinski(benchmarks: Path):
    return {
        s.id: s for s in load_benchmark("kosinski", benchmarks / "kosinski_tom" / "ToM_tasks.json")
    }


def test_20_plus_20_stories_x_4_variants_x_2_orders_x_2_prompts(kosinski):
    samples = list(kosinski.values())
    assert len(samples) == 640
    assert Counter(s.meta["task"] for s in samples) == {
        "unexpected_contents": 320,
        "unexpected_transfer": 320,
    }
    units = Counter(s.meta["item_id"] for s in samples)
    assert len(units) == 320 and set(units.values()) == {2}
    assert Counter(
        s.meta["variant"] for s in samples if s.meta["task"] == "unexpected_transfer"
    ) == {
        "false_belief": 80,
        "no_transfer": 80,
        "informed_protagonist": 80,
        "present_protagonist": 80,
    }
    assert {s.question for s in samples} == {""}
    assert get_task("kosinski").prompt_kind == "completion"
    assert get_task("kosinski").all_correct_by == "item_id"


def test_unexpected_contents_false_belief_prompts(kosinski):
    reality = kosinski["kosinski-unexpected_contents-00-false_belief-original-reality"]
    belief = kosinski["kosinski-unexpected_contents-00-false_belief-original-belief"]
    story = (
        "On the shelf, there is a non-transparent bottle. It is full of beer; there is no wine in "
        'it. Yet, the label on this bottle says "wine" and not "beer". Mark walks into the room '
        "and notices the bottle. He has never seen it before. Mark does not open the bottle and "
        "does not look inside. Mark reads the label."
    )
    assert (
        reality.story
        == story + " He opens the bottle and looks inside. He can clearly see that it is full of"
    )
    assert (
        belief.story
        == story + " Mark calls a friend to tell them that he has just found a bottle full of"
    )
    assert (reality.answer.correct_answers, reality.answer.wrong_answers) == (["beer"], ["wine"])
    assert (belief.answer.correct_answers, belief.answer.wrong_answers) == (["wine"], ["beer"])
    assert reality.meta["item_id"] == belief.meta["item_id"]


def test_reversal_swaps_the_objects_in_the_story_and_the_answers(kosinski):
    belief = kosinski["kosinski-unexpected_contents-00-false_belief-reversed-belief"]
    assert belief.story.startswith(
        "On the shelf, there is a non-transparent bottle. It is full of wine; there is no beer"
    )
    assert belief.answer.correct_answers == ["beer"]
    assert belief.meta["reversed"] is True


def test_controls_expect_the_true_contents_in_both_prompts(kosinski):
    for variant in ("correct_label", "informed_protagonist", "open_container"):
        for prompt in ("reality", "belief"):
            sample = kosinski[f"kosinski-unexpected_contents-00-{variant}-original-{prompt}"]
            assert sample.answer.correct_answers == ["beer"]
    informed = kosinski["kosinski-unexpected_contents-00-informed_protagonist-original-belief"]
    assert "Mark believes his cousin." in informed.story


def test_special_wordings_of_stories_12_14_and_17(kosinski):
    assert kosinski["kosinski-unexpected_contents-17-false_belief-original-reality"].story.endswith(
        "She puts one in a CD player and listens to the songs. "
        "She can clearly hear that it is full of"
    )
    opened = kosinski["kosinski-unexpected_contents-17-open_container-original-reality"]
    assert "Vicky can clearly hear that it is full of jazz music." in opened.story
    assert opened.answer.correct_answers == ["jazz"]
    for number in (12, 14):
        belief = kosinski[f"kosinski-unexpected_contents-{number:02d}-false_belief-original-belief"]
        assert " has just received a " in belief.story


def test_unexpected_transfer_prompts(kosinski):
    reality = kosinski["kosinski-unexpected_transfer-00-false_belief-original-reality"]
    belief = kosinski["kosinski-unexpected_transfer-00-false_belief-original-belief"]
    assert reality.story.startswith("Father comes home from the grocery store.")
    assert reality.story.endswith("wants to eat a banana. The bananas fall out of the")
    assert belief.story.endswith("wants to eat a banana. Maria will look for the bananas in the")
    assert reality.answer.correct_answers == ["yellow"]
    assert belief.answer.correct_answers == ["red"]
    stays = kosinski["kosinski-unexpected_transfer-00-no_transfer-original-belief"]
    assert stays.answer.correct_answers == ["red"]
    informed = kosinski["kosinski-unexpected_transfer-00-informed_protagonist-original-reality"]
    assert "Maria believes her Father. The bananas fall out of the" in informed.story


def test_a_missing_object_is_named(benchmarks, tmp_path, fails_cleanly):
    data = json.loads((benchmarks / "kosinski_tom" / "ToM_tasks.json").read_text(encoding="utf-8"))
    del data["tsks2"][3]["o1"]
    path = tmp_path / "ToM_tasks.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert str(fails_cleanly("kosinski", path)) == f"{path}: record 3: tsks2[3].o1: missing"


@pytest.fixture(scope="module")
def adv(benchmarks: Path):
    return {s.id: s for s in load_benchmark("adv_csfb", benchmarks / "kosinski_tom" / "adv_csfb")}


def test_adv_csfb_has_183_stories_of_three_prompts(adv):
    samples = list(adv.values())
    assert len(samples) == 549
    stories = {s.meta["item_id"]: (s.meta["task"], s.meta["source_type"]) for s in samples}
    assert len(stories) == 183
    assert Counter(t for t, _ in stories.values()) == {
        "unexpected_contents": 110,
        "unexpected_transfer": 73,
    }
    assert Counter(k for t, k in stories.values() if t == "unexpected_contents") == {
        "fb": 20,
        "tb": 20,
        "trusted testimony": 20,
        "uninformative label": 19,
        "transparent access": 16,
        "late label": 15,
    }
    assert Counter(k for t, k in stories.values() if t == "unexpected_transfer") == {
        "fb": 20,
        "trusted testimony": 18,
        "other person": 16,
        "transparent access": 12,
        "in->on": 7,
    }


def test_adv_csfb_gold_follows_truth_and_belief_fields(adv):
    prefix = "adv_csfb-unexpected_contents-01-false_belief"
    reality, belief, report = (adv[f"{prefix}-{p}"] for p in ("reality", "belief", "belief_2"))
    assert reality.story.startswith(
        "On the shelf, there is a bottle. It is full of beer; there is no wine in it."
    )
    assert reality.story.endswith(
        "He reads the label. He opens the bottle and looks inside. "
        "He can clearly see that it is full of"
    )
    assert belief.story.endswith("He reads the label. He believes that it is full of")
    assert report.story.endswith(
        "He calls his friend to tell them that he has just found a bottle full of"
    )
    assert [s.answer.correct_answers[0] for s in (reality, belief, report)] == [
        "beer",
        "wine",
        "wine",
    ]
    transfer = "adv_csfb-unexpected_transfer-01-false_belief"
    # truth = o2 (yellow), belief = o1 (red): o1 is the original location in this file.
    assert adv[f"{transfer}-reality"].story.endswith("The bananas are in the")
    assert adv[f"{transfer}-reality"].answer.correct_answers == ["yellow"]
    assert adv[f"{transfer}-belief"].answer.correct_answers == ["red"]
    assert adv[f"{transfer}-belief_2"].story.endswith("she will first look for the bananas in the")


def test_adv_csfb_bad_truth_field_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "kosinski_tom" / "adv_csfb", tmp_path / "adv")
    path = edit_lines(
        folder / "unexpected_transfer.jsonl",
        lambda lines: [*lines[:4], lines[4].replace('"truth": "o', '"truth": "x'), *lines[5:]],
    )
    assert str(fails_cleanly("adv_csfb", folder)).startswith(f"{path}:5: truth: 'x")
