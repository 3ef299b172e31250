"""The ``sentences`` format and the BLiMP, EWoK and entity-tracking importers.

The fixtures are written here in each benchmark's public format (field names as in
nyu-mll/blimp, ewok-core and the BabyLM evaluation pipeline); the sentences are made up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tomflywheel.datasets import is_sentences_file, load_benchmark
from tomflywheel.errors import DataError


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


SENTENCES = [
    {
        "sentences": ["The cat sat on the mat.", "The cat sat on the hat."],
        "completions": [" mat.", " hat."],
        "label": 0,
        "UID": "nouns",
        "field": "semantics",
    },
    {
        "sentences": ["Dogs bark.", "Dogs barks.", "Dogs barking."],
        "completions": ["Dogs bark.", "Dogs barks.", "Dogs barking."],
        "label": 0,
        "UID": "agreement",
    },
]


def test_sentences_records_become_samples_with_the_right_sentence_as_gold(tmp_path):
    path = write_jsonl(tmp_path / "mine.jsonl", SENTENCES)
    samples = load_benchmark("sentences", path)
    assert [s.id for s in samples] == ["sentences-mine-00000", "sentences-mine-00001"]
    first, second = samples
    assert first.answer.correct_answers == ["The cat sat on the mat."]
    assert first.answer.wrong_answers == ["The cat sat on the hat."]
    assert first.meta["UID"] == "nouns" and first.meta["field"] == "semantics"
    assert first.meta["completions"] == [" mat.", " hat."]
    assert second.answer.wrong_answers == ["Dogs barks.", "Dogs barking."]
    # The story is the options' shared context, or the sentences when they share none.
    assert first.story == "The cat sat on the"
    assert second.story == "Dogs bark.\nDogs barks.\nDogs barking."
    assert is_sentences_file(path)


@pytest.mark.parametrize(
    ("edit", "field", "reason"),
    [
        (lambda r: r.pop("UID"), "UID", "missing"),
        (lambda r: r.update(label=2), "label", "is not an index"),
        (lambda r: r.update(label="0"), "label", "expected int"),
        (lambda r: r.update(completions=[" mat.", " cap."]), "completions[1]", "does not end"),
        (lambda r: r.update(completions=[" mat."]), "completions", "1 completions for 2"),
        (lambda r: r.update(sentences=["A.", "A."], completions=["A.", "A."]), "sentences", "same"),
    ],
)
def test_a_bad_sentences_record_names_file_line_and_field(tmp_path, edit, field, reason):
    bad = json.loads(json.dumps(SENTENCES[0]))
    edit(bad)
    path = write_jsonl(tmp_path / "bad.jsonl", [SENTENCES[1], bad])
    with pytest.raises(DataError) as info:
        load_benchmark("sentences", path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: {field}:"), message
    assert reason in message


def test_blimp_pairs_score_whole_sentences_with_the_good_one_right(tmp_path):
    folder = tmp_path / "blimp"
    record = {
        "sentence_good": "Who should Derek hug after shocking Richard?",
        "sentence_bad": "Who should Derek hug Richard after shocking?",
        "field": "syntax_semantics",
        "linguistics_term": "island_effects",
        "UID": "adjunct_island",
        "pair_id": 7,
    }
    write_jsonl(folder / "adjunct_island.jsonl", [record])
    # A BabyLM supplement file: only the two sentences, the file names the UID.
    write_jsonl(folder / "hypernym.jsonl", [{"sentence_good": "A b.", "sentence_bad": "B a."}])
    samples = load_benchmark("blimp", folder)
    assert [s.id for s in samples] == ["blimp-adjunct_island-7", "blimp-hypernym-0"]
    first, second = samples
    assert first.meta["completions"] == first.meta["sentences"]
    assert first.answer.correct_answers == [record["sentence_good"]]
    assert first.meta["field"] == "syntax/semantics"
    assert (second.meta["UID"], second.meta["field"]) == ("hypernym", "supplement")


def test_blimp_without_a_good_sentence_fails_with_its_line(tmp_path, fails_cleanly):
    path = write_jsonl(tmp_path / "x.jsonl", [{"sentence_bad": "B a.", "UID": "x"}])
    error = fails_cleanly("blimp", path)
    assert str(error).startswith(f"{path}:1: sentence_good: missing")


EWOK = {
    "Domain": "social-properties",
    "ContextType": "short",
    "ContextDiff": "antonym",
    "TargetDiff": "property",
    "Context1": "Ali is kind.",
    "Context2": "Ali is cruel.",
    "Target1": "Ali helps people.",
    "Target2": "Ali hurts people.",
}


def test_ewok_scores_each_target_after_the_first_context(tmp_path):
    samples = load_benchmark("ewok", write_jsonl(tmp_path / "ewok.jsonl", [EWOK]))
    (sample,) = samples
    assert sample.meta["sentences"] == [
        "Ali is kind. Ali helps people.",
        "Ali is kind. Ali hurts people.",
    ]
    assert sample.meta["completions"] == [" Ali helps people.", " Ali hurts people."]
    assert sample.answer.correct_answers == ["Ali is kind. Ali helps people."]
    assert (sample.meta["UID"], sample.meta["target_contrast"]) == ("social-properties", "property")


def test_ewok_reads_the_release_csv_too(tmp_path):
    path = tmp_path / "ewok.csv"
    header = list(EWOK)
    rows = [",".join(header), ",".join(f'"{EWOK[k]}"' for k in header)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    (sample,) = load_benchmark("ewok", path)
    assert sample.meta["completions"] == [" Ali helps people.", " Ali hurts people."]


def test_ewok_without_a_target_fails_with_its_line(tmp_path, fails_cleanly):
    record = {k: v for k, v in EWOK.items() if k != "Target2"}
    path = write_jsonl(tmp_path / "e.jsonl", [EWOK, record])
    assert str(fails_cleanly("ewok", path)).startswith(f"{path}:2: Target2: missing")


def test_entity_tracking_options_follow_the_prefix_and_the_uid_counts_operations(tmp_path):
    record = {
        "input_prefix": "Box 0 contains the apple. Move the apple to Box 1. Box 1 contains",
        "options": [" the apple.", " nothing.", " the bell."],
        "numops": 1,
    }
    path = write_jsonl(tmp_path / "regular.jsonl", [record])
    (sample,) = load_benchmark("entity_tracking", path)
    assert sample.meta["UID"] == "regular_1_ops"
    assert sample.meta["sentences"][0] == record["input_prefix"] + " the apple."
    assert sample.answer.correct_answers == [record["input_prefix"] + " the apple."]
    assert len(sample.answer.wrong_answers) == 2


def test_entity_tracking_with_a_non_string_option_fails_with_its_field(tmp_path, fails_cleanly):
    path = write_jsonl(
        tmp_path / "r.jsonl", [{"input_prefix": "Box", "options": ["a", 3], "numops": 0}]
    )
    assert str(fails_cleanly("entity_tracking", path)).startswith(f"{path}:1: options[1]:")
