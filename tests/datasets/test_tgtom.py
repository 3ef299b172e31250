"""TGToM importer: 12 question types over 100 stories, answers encoded as strings."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tomflywheel.datasets import load_benchmark
from tomflywheel.datasets._common import Loc
from tomflywheel.datasets._tgtom import encode
from tomflywheel.errors import DataError


@pytest.fixture(scope="module")
def samples(benchmarks: Path):
    return load_benchmark("tgtom", benchmarks / "tgtom")


def test_1812_items_of_12_question_types(samples):
    assert len(samples) == 1812
    types = Counter(s.meta["question_type"] for s in samples)
    assert types == {
        "Q1": 712,
        **{q: 100 for q in ("Q0", "Q2", "Q3", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q13")},
    }
    assert len({s.id for s in samples}) == 1812


def test_targeted_counts_yes_rates_and_q8_kinds_match_the_data_notes(samples):
    targeted = Counter(s.meta["question_type"] for s in samples if s.meta["targeted"])
    assert targeted == {"Q5": 93, "Q6": 17, "Q7": 51, "Q10": 64, "Q11": 76, "Q13": 31}
    yes = Counter(
        s.meta["question_type"] for s in samples if s.answer.correct_answers[0].startswith("yes: ")
    )
    assert yes == {"Q9": 12, "Q11": 61, "Q13": 29}
    assert Counter(s.meta["gold"]["kind"] for s in samples if s.meta["question_type"] == "Q8") == {
        "move": 66,
        "comm": 34,
    }
    assert {
        s.meta["targeted"] for s in samples if s.meta["question_type"] in ("Q0", "Q1", "Q8", "Q9")
    } == {None}


def test_story_0_answers_and_fields(samples):
    story0 = {s.id: s for s in samples if s.meta["story_id"] == 0}
    gold = {key.removeprefix("tgtom-000-"): s.answer.correct_answers for key, s in story0.items()}
    assert gold["Q0"] == ["blue_container"]
    assert gold["Q1-Scarlett"] == ["green_drawer"]
    assert gold["Q2"] == ["green_crate"]
    assert gold["Q3"] == ["help: Lucas; hide: none"]
    assert gold["Q5"] == ["orange_bin"]
    assert gold["Q7"] == ["help: Scarlett; hide: Harper"]
    assert gold["Q8"] == ["13"]
    assert gold["Q9"] == ["no"]
    assert gold["Q10"] == ["blue_container"]
    assert gold["Q11"] == ["yes: blue_container"]
    q8 = story0["tgtom-000-Q8"]
    assert q8.meta["gold"] == {
        "line": 13,
        "kind": "move",
        "description": "Ava moved the carrot to the blue_container",
        "resulting_belief": "blue_container",
    }
    assert q8.question.endswith("from the story.\nAnswer format: the line number only.")
    assert story0["tgtom-000-Q1-Scarlett"].meta["agent"] == "Scarlett"
    assert story0["tgtom-000-Q2"].meta["chain_depth"] == 6
    assert story0["tgtom-000-Q7"].meta["chain_depth"] == 5
    assert story0["tgtom-000-Q10"].meta["targeted"] is True
    assert story0["tgtom-000-Q0"].story.startswith(
        "1 Scarlett, Lily, Lucas, Ava, Olivia, Harper and Logan entered the den.\n"
        "2 The carrot is in the black_trunk."
    )
    assert all(not s.answer.wrong_answers for s in story0.values())


def test_encodings_of_structured_answers():
    loc = Loc(Path("q.jsonl"), 1)
    assert encode("intent", None, loc, "Q7.answer") == "none"
    assert (
        encode("intent", {"help_target": None, "hide_target": "Ava"}, loc, "Q7.answer")
        == "help: none; hide: Ava"
    )
    assert (
        encode(
            "common_knowledge",
            {"common_knowledge": False, "shared_location": None},
            loc,
            "Q9.answer",
        )
        == "no"
    )
    with pytest.raises(
        DataError, match=r"q.jsonl:1: Q9.answer: not a valid common_knowledge answer"
    ):
        encode(
            "common_knowledge",
            {"common_knowledge": True, "shared_location": None},
            loc,
            "Q9.answer",
        )


def test_an_inconsistent_common_knowledge_answer_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "tgtom", tmp_path / "tgtom")
    path = edit_lines(
        folder / "common_knowledge_v10.jsonl",
        lambda lines: [
            *lines[:7],
            lines[7].replace('"common_knowledge": false', '"common_knowledge": true', 1),
            *lines[8:],
        ],
    )
    assert str(fails_cleanly("tgtom", folder)).startswith(
        f"{path}:8: Q9.answer: not a valid common_knowledge answer"
    )


def test_a_truncated_question_file_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "tgtom", tmp_path / "tgtom")
    path = edit_lines(folder / "causal_beliefs_v10.jsonl", lambda lines: lines[:99])
    assert str(fails_cleanly("tgtom", folder)) == f"{path}: id: no question record for story 99"
