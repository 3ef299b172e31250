"""The generic importer: JSON / JSONL / CSV data described by a YAML mapping."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.datasets.opentom_files import SEEN, UNSEEN, write_opentom
from tomflywheel.datasets import import_dataset, load_benchmark, task_for_sample
from tomflywheel.errors import ConfigError
from tomflywheel.schema import QAKind, read_samples

RECORDS = [
    {
        "qid": "a1",
        "context": "Sally puts the ball in the basket.",
        "q": "Where will Sally look?",
        "choices": ["basket", "box", "bag"],
        "gold": "A",
        "kind": "fb",
        "pair": "p1",
    },
    {
        "qid": "a2",
        "context": "Anne moves the ball to the box.",
        "q": "Where is the ball?",
        "choices": ["basket", "box"],
        "gold": "B",
        "kind": "reality",
        "pair": "p1",
    },
]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    return _write(tmp_path / "data.jsonl", "".join(json.dumps(r) + "\n" for r in RECORDS))


MAPPING = """\
name: toy_bench
fields:
  id: qid
  story: context
  question: q
  options: choices
  label: gold
  label_format: letter
  meta: {question_type: kind, pair: pair}
task:
  judge: rules
  groupings: [[question_type]]
  all_correct_by: pair
"""


def test_jsonl_with_options_and_letter_labels(jsonl, tmp_path):
    mapping = _write(tmp_path / "toy.yaml", MAPPING)
    first, second = load_benchmark("mapping", jsonl, mapping=mapping)
    assert first.id == "toy_bench-a1"
    assert first.story == "Sally puts the ball in the basket."
    assert first.question == "Where will Sally look?"
    assert first.answer.correct_answers == ["basket"]
    assert first.answer.wrong_answers == ["box", "bag"]
    assert second.answer.correct_answers == ["box"]
    assert second.kind is QAKind.SINGLE_CHOICE
    assert first.meta["question_type"] == "fb"
    assert first.meta["source_line"] == 1
    task = task_for_sample(first)
    assert task.groupings == (("question_type",),)
    assert task.all_correct_by == "pair"
    assert task.prompt_kind == "mixed"


def test_csv_with_correct_and_wrong_columns_and_the_default_output(tmp_path):
    path = tmp_path / "data.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["story", "question", "right", "wrong1", "wrong2"])
        writer.writerow(["A story, with a comma.", "Q?", "yes", "no", ""])
    mapping = _write(
        tmp_path / "m.yaml",
        "name: csv_bench\n"
        "fields: {story: story, question: question, correct: right, wrong: [wrong1, wrong2]}\n",
    )
    summary = import_dataset("mapping", path, mapping=mapping, datasets_dir=tmp_path / "datasets")
    assert summary.out == tmp_path / "datasets" / "csv_bench.jsonl"
    [sample] = list(read_samples(summary.out))
    assert sample.id == "csv_bench-00000"
    assert sample.story == "A story, with a comma."
    assert (sample.answer.correct_answers, sample.answer.wrong_answers) == (["yes"], ["no"])
    assert sample.meta["source_line"] == 2


def test_json_records_path_and_open_answers(tmp_path):
    path = _write(
        tmp_path / "d.json", json.dumps({"data": {"items": [{"s": "x", "a": ["one", "1"]}]}})
    )
    mapping = _write(
        tmp_path / "m.yaml", "name: j\nrecords: data.items\nfields: {story: s, correct: a}\n"
    )
    [sample] = load_benchmark("mapping", path, mapping=mapping)
    assert sample.kind is QAKind.OPEN
    assert sample.answer.correct_answers == ["one", "1"]
    assert sample.question == ""
    assert task_for_sample(sample).prompt_kind == "open"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\nfields: {question: q, correct: a}\n", "fields.story: Field required"),
        (
            "name: x\nfields: {story: s, storyy: t, correct: a}\n",
            "fields.storyy: Extra inputs are not permitted",
        ),
        ("name: x\nfields: {story: s}\n", "fields: Value error, give either 'correct'"),
        ("name: tomi\nfields: {story: s, correct: a}\n", "name: 'tomi' is a built-in dataset"),
        (
            "name: x\nfields: {story: s, correct: a}\ntask: {groupings: [[kind]]}\n",
            "task.groupings: 'kind' is not a key of fields.meta",
        ),
        (
            "name: x\nfields: {story: s, correct: a}\ntask: {macro_f1_by: [family]}\n",
            "task.macro_f1_by: 'family' is not a key of fields.meta",
        ),
        (
            "name: x\nfields: {story: s, correct: a}\ntask: {judge: magic}\n",
            "task.judge: Input should be",
        ),
        ("name: x\nfields: [story\n", "invalid YAML"),
        # YAML itself lets the last of two equal keys win silently.
        ("name: x\nfields: {story: s, correct: a}\nname: y\n", ":3: invalid YAML (duplicate key"),
    ],
)
def test_mapping_errors_name_the_file_and_key(jsonl, tmp_path, text, message):
    mapping = _write(tmp_path / "bad.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_benchmark("mapping", jsonl, mapping=mapping)
    assert str(info.value).startswith(str(mapping))
    assert message in str(info.value)


def test_a_record_missing_a_mapped_field_is_named(jsonl, tmp_path, fails_cleanly):
    mapping = _write(tmp_path / "toy.yaml", MAPPING)
    lines = jsonl.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[1])
    del record["context"]
    jsonl.write_text(lines[0] + json.dumps(record) + "\n", encoding="utf-8")
    assert str(fails_cleanly("mapping", jsonl, mapping=mapping)) == f"{jsonl}:2: context: missing"


def test_a_label_naming_no_option_is_named(jsonl, tmp_path, fails_cleanly):
    mapping = _write(tmp_path / "toy.yaml", MAPPING)
    jsonl.write_text(json.dumps({**RECORDS[1], "gold": "D"}) + "\n", encoding="utf-8")
    assert (
        str(fails_cleanly("mapping", jsonl, mapping=mapping))
        == f"{jsonl}:1: gold: 'D' names none of the 2 options"
    )


def test_duplicate_ids_are_refused(jsonl, tmp_path, fails_cleanly):
    mapping = _write(tmp_path / "toy.yaml", MAPPING)
    jsonl.write_text(
        json.dumps(RECORDS[0]) + "\n" + json.dumps(RECORDS[0]) + "\n", encoding="utf-8"
    )
    assert (
        str(fails_cleanly("mapping", jsonl, mapping=mapping))
        == f"{jsonl}: id: duplicate sample id 'toy_bench-a1'"
    )


OPENTOM_ATTITUDE = """\
name: opentom_attitude
layout: dict_of_lists
key_field: story_id
join: {file: meta_data.json, layout: dict, by: story_id, as: story}
fields:
  story: story.narrative
  question: question
  correct: answer
  meta: {observed: story.observed, mover: story.plot_info.mover}
task: {groupings: [[observed]], macro_f1_by: [observed]}
"""


def test_a_dict_of_lists_joined_with_a_story_table_by_key(tmp_path):
    # OpenToM's own layout: questions keyed by story id, stories in a second file.
    folder = write_opentom(tmp_path / "opentom_data")
    skip = OPENTOM_ATTITUDE.replace("as: story}", "as: story, unmatched: skip}")
    mapping = _write(tmp_path / "m.yaml", skip)
    samples = load_benchmark("mapping", folder / "attitude.json", mapping=mapping)
    # The file holds three story ids; 99999999 has no story and is left out.
    assert [s.id for s in samples] == [f"opentom_attitude-{SEEN}-0", f"opentom_attitude-{UNSEEN}-0"]
    first = samples[0]
    assert first.story == f"Short story {SEEN}: Ana moves the kite."
    assert first.answer.correct_answers == ["negative"]
    assert first.meta["observed"] is True
    assert first.meta["mover"] == "Ana"
    assert first.meta["source_key"] == SEEN
    assert first.meta["source_record"] == 0
    assert task_for_sample(first).macro_f1_by == ("observed",)


def test_an_unmatched_key_is_an_error_naming_file_record_and_field(tmp_path, fails_cleanly):
    folder = write_opentom(tmp_path / "opentom_data")
    mapping = _write(tmp_path / "m.yaml", OPENTOM_ATTITUDE)
    error = fails_cleanly("mapping", folder / "attitude.json", mapping=mapping)
    assert str(error) == (
        f"{folder / 'attitude.json'}: record 2: story_id: "
        "no record with key '99999999' in meta_data.json"
    )


def test_a_csv_joined_with_a_jsonl_list_on_a_key_field(tmp_path):
    path = tmp_path / "questions.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["qid", "sid", "q", "a"])
        writer.writerows([["q1", "7", "Where?", "box"], ["q2", "8", "Who?", "Sam"]])
    _write(
        tmp_path / "stories.jsonl",
        json.dumps({"story_id": 8, "text": "Eight."})
        + "\n"
        + json.dumps({"story_id": 7, "text": "Seven."})
        + "\n",
    )
    mapping = _write(
        tmp_path / "m.yaml",
        "name: joined\n"
        "join: {file: stories.jsonl, key: story_id, by: sid, as: st}\n"
        "fields: {id: qid, story: st.text, question: q, correct: a}\n",
    )
    first, second = load_benchmark("mapping", path, mapping=mapping)
    # The CSV key is text and the JSONL key a number: keys are compared as text.
    assert (first.id, first.story, second.story) == ("joined-q1", "Seven.", "Eight.")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "name: x\nformat: csv\nlayout: dict\nfields: {story: s, correct: a}\n",
            "Value error, layout 'dict' needs format json",
        ),
        (
            "name: x\njoin: {file: s.jsonl, by: sid, as: st}\nfields: {story: s, correct: a}\n",
            "join: Value error, a list layout needs 'key'",
        ),
        (
            "name: x\njoin: {file: s.json, layout: dict, by: sid, as: 1st}\n"
            "fields: {story: s, correct: a}\n",
            "join.as: String should match pattern",
        ),
    ],
)
def test_layout_and_join_mistakes_name_the_key(jsonl, tmp_path, text, message):
    mapping = _write(tmp_path / "bad.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_benchmark("mapping", jsonl, mapping=mapping)
    assert message in str(info.value)


def test_a_missing_join_file_is_named(jsonl, tmp_path, fails_cleanly):
    mapping = _write(
        tmp_path / "m.yaml",
        "name: x\njoin: {file: nope.json, layout: dict, by: qid, as: st}\n"
        "fields: {story: context, correct: q}\n",
    )
    error = fails_cleanly("mapping", jsonl, mapping=mapping)
    assert str(error) == f"{tmp_path / 'nope.json'}: no such file (join.file)"
