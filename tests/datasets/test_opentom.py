"""OpenToM: stories joined with the seven question files, on a release written by the test."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.datasets.opentom_files import FILE_NAMES, SEEN, UNSEEN, dump, write_opentom
from tomflywheel.cli import app
from tomflywheel.datasets import get_task, import_dataset, load_benchmark
from tomflywheel.schema import QAKind, read_samples


@pytest.fixture
def release(tmp_path: Path) -> Path:
    return write_opentom(tmp_path / "opentom_data")


def _by_id(samples):
    return {s.id: s for s in samples}


def test_every_story_gets_its_23_questions_grouped_as_opentom_reports_them(release):
    samples = load_benchmark("opentom", release)
    assert len(samples) == 46
    assert Counter(s.meta["question_type"] for s in samples) == {
        "location_coarse_fo": 4,
        "location_coarse_so": 4,
        "location_fine_fo": 8,
        "location_fine_so": 4,
        "fullness_fo": 8,
        "fullness_so": 8,
        "accessibility_fo": 4,
        "accessibility_so": 4,
        "attitude": 2,
    }
    # Sorted by story id, then in file order: the unseen story's ids come second.
    assert samples[0].id == f"opentom-{SEEN}-location_cg_fo-0"
    assert samples[23].id == f"opentom-{UNSEEN}-location_cg_fo-0"
    assert {s.meta["story_id"] for s in samples} == {SEEN, UNSEEN}
    assert all(s.story == f"Short story {UNSEEN}: Cleo moves the plum." for s in samples[23:])


def test_kinds_follow_the_official_evaluator(release):
    samples = _by_id(load_benchmark("opentom", release))
    coarse = samples[f"opentom-{UNSEEN}-location_cg_fo-1"]
    assert coarse.kind is QAKind.SINGLE_CHOICE
    assert (coarse.answer.correct_answers, coarse.answer.wrong_answers) == (["Yes"], ["No"])
    assert coarse.meta["perspective"] == "observer"
    assert coarse.meta["observed"] is False
    fullness = samples[f"opentom-{UNSEEN}-multihop_so-3"]
    assert fullness.answer.correct_answers == ["equally full"]
    assert fullness.answer.wrong_answers == ["more full", "less full"]
    assert fullness.meta["options"] == ["more full", "equally full", "less full"]
    assert fullness.meta["container"] == "new"
    assert samples[f"opentom-{UNSEEN}-multihop_so-0"].meta["container"] == "original"
    access = samples[f"opentom-{UNSEEN}-multihop_fo-5"]
    assert (access.meta["question_type"], access.meta["label"]) == (
        "accessibility_fo",
        "equally accessible",
    )
    attitude = samples[f"opentom-{SEEN}-attitude-0"]
    assert attitude.answer.correct_answers == ["negative"]
    assert attitude.meta["order"] is None
    assert attitude.question.endswith("to a storage bin, assuming that you observed the action?")


def test_fine_location_is_open_with_both_places_as_candidates(release):
    samples = _by_id(load_benchmark("opentom", release))
    narrator = samples[f"opentom-{UNSEEN}-location_fg_fo-1"]
    assert narrator.kind is QAKind.OPEN
    assert narrator.answer.correct_answers == ["treasure_chest"]
    assert (narrator.meta["perspective"], narrator.meta["tom"]) == ("narrator", False)
    assert narrator.meta["candidates"] == ["treasure_chest", "the fridge"]
    assert narrator.meta["label"] == "original"
    observer = samples[f"opentom-{UNSEEN}-location_fg_fo-3"]
    assert observer.answer.correct_answers == ["treasure_chest"]
    assert observer.meta["question_file"] == "location_fg_fo_new"
    # "a storage bin" equals the new place once the article is dropped.
    assert samples[f"opentom-{SEEN}-location_fg_so-1"].meta["label"] == "new"


def test_the_corrected_fine_files_win_and_the_old_ones_are_read_when_alone(release):
    (release / "location_fg_fo_new.json").unlink()
    samples = _by_id(load_benchmark("opentom", release))
    # The old file gives the unseen observer the new place (the error the _new file fixed).
    old = samples[f"opentom-{UNSEEN}-location_fg_fo-3"]
    assert old.answer.correct_answers == ["the fridge"]
    assert old.meta["question_file"] == "location_fg_fo"
    assert samples[f"opentom-{UNSEEN}-location_fg_so-1"].meta["question_file"] == (
        "location_fg_so_new"
    )


def test_repository_and_hugging_face_layouts(tmp_path):
    repo = tmp_path / "OpenToM"
    write_opentom(repo / "data" / "opentom_data", old_fine_files=False)
    assert len(load_benchmark("opentom", repo)) == 46
    hf = tmp_path / "hf"
    write_opentom(hf / "opentom_data", hugging_face_names=True, old_fine_files=False)
    assert len(load_benchmark("opentom", hf)) == 46


def test_long_narratives_are_the_stories_of_the_long_file(release, tmp_path):
    summary = import_dataset(
        "opentom", release, narrative="long", datasets_dir=tmp_path / "datasets"
    )
    assert summary.out == tmp_path / "datasets" / "opentom_long.jsonl"
    samples = list(read_samples(summary.out))
    assert summary.count == len(samples) == 23
    assert {s.story for s in samples} == {f"Long story {UNSEEN}: Cleo moves the plum."}
    assert samples[0].id == f"opentom-long-{UNSEEN}-location_cg_fo-0"
    assert samples[0].meta["narrative"] == "long"
    assert summary.counts["question_type"]["fullness_fo"] == 4


def test_the_task_reports_macro_f1_per_question_type():
    task = get_task("opentom")
    assert task.macro_f1_by == ("question_type",)
    assert task.prompt_kind == "mixed"
    assert ("question_type",) in task.groupings


def _edit(path: Path, edit) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document)
    dump(path, document)


def test_a_bad_coarse_answer_names_file_story_and_field(release, fails_cleanly):
    path = release / FILE_NAMES["location_cg_so"]
    _edit(path, lambda d: d[UNSEEN][1].update(answer="Maybe"))
    error = fails_cleanly("opentom", release)
    assert str(error) == f"{path}: {UNSEEN}[1].answer: 'Maybe' is not one of Yes, No"


def test_a_story_missing_from_a_question_file_is_named(release, fails_cleanly):
    path = release / FILE_NAMES["multihop_so"]
    _edit(path, lambda d: d.pop(SEEN))
    error = fails_cleanly("opentom", release)
    assert str(error) == f"{path}: {SEEN}: no questions for story {SEEN} of meta_data.json"


def test_a_missing_question_file_is_named(release, fails_cleanly):
    (release / "multihop_fo.json").unlink()
    assert str(fails_cleanly("opentom", release)) == f"{release}: missing multihop_fo.json"


def test_a_record_in_the_wrong_file_is_refused(release, fails_cleanly):
    path = release / FILE_NAMES["attitude"]
    _edit(path, lambda d: d[SEEN][0].update(type="location-fo"))
    error = fails_cleanly("opentom", release)
    assert str(error) == f"{path}: {SEEN}[0].type: 'location-fo' in a 'attitude' file"


def test_accessibility_answers_read_as_the_official_evaluator_does(release):
    path = release / FILE_NAMES["multihop_fo"]

    def edit(document):
        document[SEEN][4]["answer"] = ["corrupted", "less accessible"]
        document[SEEN][5]["answer"] = "more accessible|less accessible"

    _edit(path, edit)
    samples = _by_id(load_benchmark("opentom", release))
    assert samples[f"opentom-{SEEN}-multihop_fo-4"].answer.correct_answers == ["less accessible"]
    assert samples[f"opentom-{SEEN}-multihop_fo-5"].answer.correct_answers == ["equally accessible"]


def test_a_missing_metadata_file_is_named(tmp_path, fails_cleanly):
    (tmp_path / "empty").mkdir()
    error = fails_cleanly("opentom", tmp_path / "empty")
    assert "no meta_data.json / metadata.json here or in opentom_data" in str(error)


def test_cli_import_with_long_narratives(release, tmp_path):
    out = tmp_path / "o.jsonl"
    result = CliRunner().invoke(
        app,
        ["datasets", "import", "opentom", str(release), "--narrative", "long", "--out", str(out)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "23 samples of opentom written to" in result.output
    assert "by question_type" in result.output
    assert sum(1 for _ in out.open(encoding="utf-8")) == 23
