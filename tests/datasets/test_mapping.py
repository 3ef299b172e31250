"""The generic importer: JSON / JSONL / CSV data described by a YAML mapping."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

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
            "name: x\nfields: {story: s, correct: a}\ntask: {judge: magic}\n",
            "task.judge: Input should be",
        ),
        ("name: x\nfields: [story\n", "invalid YAML"),
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
