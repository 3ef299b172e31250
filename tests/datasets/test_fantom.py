"""FANToM importer against the 2-set format fixture, plus the release's other shapes."""

from __future__ import annotations

import copy
import json
import tarfile
from collections import Counter
from pathlib import Path

import pytest

from tomflywheel.datasets import load_benchmark
from tomflywheel.schema import QAKind


@pytest.fixture(scope="module")
def fixture_file(benchmarks: Path) -> Path:
    return benchmarks / "fantom" / "fantom_v1.first2sets.json"


@pytest.fixture(scope="module")
def sets(fixture_file: Path) -> list[dict]:
    return json.loads(fixture_file.read_text(encoding="utf-8"))


def test_counts_follow_the_official_flattening(fixture_file):
    # 29 stored questions + 3 choice copies of the belief questions = 32 with the fact questions.
    assert len(load_benchmark("fantom", fixture_file, context="full", include_fact=True)) == 32
    full = load_benchmark("fantom", fixture_file, context="full")
    assert len(full) == 30
    # The short context drops the 8 yes/no questions answered no:long (2 per list per set).
    short = load_benchmark("fantom", fixture_file)
    assert len(short) == 22
    assert Counter(s.meta["question_type"] for s in short) == {
        "belief_first_order_free": 2,
        "belief_first_order_choice": 2,
        "belief_second_order_accessible_free": 1,
        "belief_second_order_accessible_choice": 1,
        "answerability_list": 2,
        "answerability_yes_no": 6,
        "info_accessibility_list": 2,
        "info_accessibility_yes_no": 6,
    }
    assert Counter(s.kind for s in short) == {
        QAKind.OPEN: 3,
        QAKind.SINGLE_CHOICE: 15,
        QAKind.MULTI_CHOICE: 4,
    }
    # "ALL*" units: set 0-0-0 inaccessible and accessible, set 0-0-1 inaccessible.
    assert Counter(s.meta["item_id"] for s in short) == {
        "0-0-0:inaccessible": 10,
        "0-0-0:accessible": 2,
        "0-0-1:inaccessible": 10,
    }


def test_set_0_0_1_field_by_field(fixture_file):
    samples = {s.id: s for s in load_benchmark("fantom", fixture_file, context="full")}
    belief = samples["fantom-full-0-0-1-belief0-choice"]
    assert (
        belief.question
        == "What does Gianna believe about whose pets Javier and Sara were discussing?"
    )
    assert belief.answer.correct_answers == [
        "Gianna believes that Javier and Sara were discussing Bruno and Chirpy's pets."
    ]
    assert belief.answer.wrong_answers == [
        "Gianna believes that Javier and Sara were discussing their own pets, Bruno and Snowflake."
    ]
    assert belief.meta["in_all"] is True
    assert belief.story.startswith("Gianna: Hey guys, speaking of pets,")
    free = samples["fantom-full-0-0-1-belief0-free"]
    assert free.kind is QAKind.OPEN
    assert free.meta["candidates"] == [*belief.answer.correct_answers, *belief.answer.wrong_answers]
    assert free.meta["in_all"] is False
    listed = samples["fantom-full-0-0-1-answerability-list"]
    assert listed.answer.correct_answers == ["Javier", "Sara"]
    assert listed.answer.wrong_answers == ["Gianna", "Alondra", "Angela"]
    assert listed.story.endswith("\n\nTarget: Whose pets were being discussed by Javier and Sara?")
    assert (
        listed.question
        == "List all the characters who know the precise correct answer to this question."
    )
    info = samples["fantom-full-0-0-1-info_accessibility-list"]
    assert info.story.endswith(
        "\n\nInformation: Whose pets were being discussed by Javier and Sara? "
        "Javier's pet Bruno and Sara's pet Snowflake were being discussed."
    )
    alondra = samples["fantom-full-0-0-1-answerability-yn1"]
    assert alondra.question == "Does Alondra know the precise correct answer to this question?"
    assert alondra.answer.correct_answers == ["no"]
    assert alondra.answer.wrong_answers == ["yes"]
    assert alondra.meta["source_answer"] == "no:long"
    assert {s.meta["set_id"] for s in samples.values()} == {"0-0-0", "0-0-1"}
    assert {s.meta["conversation_id"] for s in samples.values()} == {0}


def test_short_context_uses_the_short_conversation(fixture_file, sets):
    sample = load_benchmark("fantom", fixture_file)[0]
    assert sample.story == sets[0]["short_context"].strip()
    assert sample.meta["context"] == "short"
    assert sample.id == "fantom-short-0-0-0-belief0-free"


def test_the_release_archive_a_folder_and_pandas_columns_read_the_same(
    fixture_file, sets, tmp_path
):
    expected = [s.model_dump() for s in load_benchmark("fantom", fixture_file)]
    release = tmp_path / "fantom" / "fantom_v1.json"
    release.parent.mkdir()
    release.write_text(json.dumps(sets), encoding="utf-8")
    archive = tmp_path / "fantom.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(release, arcname="fantom/fantom_v1.json")
    columns = {key: {str(i): s[key] for i, s in enumerate(sets)} for key in sets[0]}
    pandas_file = tmp_path / "columns.json"
    pandas_file.write_text(json.dumps(columns), encoding="utf-8")
    for source in (release.parent, archive, pandas_file):
        assert [s.model_dump() for s in load_benchmark("fantom", source)] == expected


def test_other_second_order_types_and_everyone_knowing(sets, tmp_path):
    changed = copy.deepcopy(sets)
    changed[0]["beliefQAs"][1]["tom_type"] = "second-order:cyclic"
    changed[1]["answerabilityQA_list"]["wrong_answer"] = []  # every character knows: skipped
    path = tmp_path / "fantom_v1.json"
    path.write_text(json.dumps(changed), encoding="utf-8")
    samples = load_benchmark("fantom", path)
    types = Counter(s.meta["question_type"] for s in samples)
    assert types["belief_second_order_cyclic_free"] == 1
    assert types["belief_second_order_cyclic_choice"] == 1
    assert types["answerability_list"] == 1


def _write(sets: list[dict], tmp_path: Path, edit) -> Path:
    changed = copy.deepcopy(sets)
    edit(changed)
    path = tmp_path / "fantom_v1.json"
    path.write_text(json.dumps(changed, indent=4), encoding="utf-8")
    return path


def test_a_missing_nested_field_is_named(sets, tmp_path, fails_cleanly):
    path = _write(sets, tmp_path, lambda s: s[0]["beliefQAs"][1].pop("correct_answer"))
    error = fails_cleanly("fantom", path)
    assert str(error) == f"{path}: record 0: beliefQAs[1].correct_answer: missing"


def test_a_bad_yes_no_answer_is_named(sets, tmp_path, fails_cleanly):
    path = _write(
        sets, tmp_path, lambda s: s[1]["answerabilityQAs_binary"][2].update(correct_answer="maybe")
    )
    error = fails_cleanly("fantom", path)
    assert str(error).startswith(
        f"{path}: record 1: answerabilityQAs_binary[2].correct_answer: 'maybe'"
    )


def test_a_truncated_release_names_the_line(fixture_file, tmp_path, fails_cleanly):
    path = tmp_path / "fantom_v1.json"
    path.write_text(
        "\n".join(fixture_file.read_text(encoding="utf-8").splitlines()[:50]), encoding="utf-8"
    )
    assert str(fails_cleanly("fantom", path)).startswith(f"{path}:50: invalid JSON")
