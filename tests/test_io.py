import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st
from yaml import YAMLError

from tomflywheel._io import (
    JsonlAppender,
    atomic_write_chunks,
    atomic_write_json,
    is_whole_line,
    iter_jsonl,
    json_line_bytes,
    jsonl_bytes,
    read_jsonl,
    repair_partial_tail,
    to_json_line,
    write_jsonl_atomic,
)
from tomflywheel._yaml import load_yaml
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample, read_samples


def _sample(i: int) -> Sample:
    return Sample.model_validate(
        {
            "id": f"s-{i}",
            "story": f"Story {i} with ünïcode.",
            "question": "Where is the apple?",
            "answer": {"correct_answers": ["box"], "wrong_answers": []},
            "meta": {"dataset": "t"},
        }
    )


def test_appended_records_read_back_in_order(tmp_path):
    path = tmp_path / "out" / "s.jsonl"
    with JsonlAppender(path) as out:
        out.extend(_sample(i) for i in range(3))
    with JsonlAppender(path) as out:
        out.append(_sample(3))
    assert [s.id for s in read_samples(path)] == ["s-0", "s-1", "s-2", "s-3"]


def test_reading_names_file_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = _sample(0).model_dump_json()
    bad = json.loads(good)
    bad["answer"]["correct_answers"] = []
    path.write_text(good + "\n\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        list(read_samples(path))
    assert str(caught.value).startswith(f"{path}:3: answer.correct_answers: ")
    assert caught.value.line == 3
    assert caught.value.field == "answer.correct_answers"


def test_invalid_json_is_reported_with_its_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(_sample(0).model_dump_json() + "\n{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.jsonl:2: invalid JSON"):
        list(read_jsonl(path))


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (b'{"x": NaN}', "nan"),  # the standard parser's extension, which orjson refuses
        (b'{"x": "\\ud800"}', "\ud800"),  # a lone surrogate escape
        (b'{"x": 123456789012345678901234567890}', "123456789012345678901234567890"),
        (b'{"x": "\xc3\xa9t\xc3\xa9", "x": 2}', "2"),  # a repeated key: the last one
    ],
)
def test_lines_the_fast_parser_refuses_read_as_the_standard_parser_reads_them(
    tmp_path, line, value
):
    path = tmp_path / "edge.jsonl"
    path.write_bytes(line + b"\n\n" + line + b"\n")
    objects = [obj for _, obj in iter_jsonl(path)]
    assert len(objects) == 2 and [str(obj["x"]) for obj in objects] == [value, value]
    assert objects[0] == {"x": json.loads(line)["x"]} or value == "nan"


def test_invalid_utf8_is_reported_with_its_line_after_the_fast_path(tmp_path):
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "\xff"}\n')
    with pytest.raises(DataError, match=r"bytes\.jsonl:2: .*UTF-8"):
        list(read_jsonl(path))


def test_unknown_field_is_an_error(tmp_path):
    path = tmp_path / "extra.jsonl"
    record = json.loads(_sample(0).model_dump_json())
    record["answers"] = ["typo"]
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"extra\.jsonl:1: answers: Extra inputs"):
        list(read_samples(path))


def test_partial_tail_is_tolerated_only_when_asked(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text(_sample(0).model_dump_json() + "\n" + '{"id": "s-1", "sto', encoding="utf-8")
    assert [s["id"] for s in read_jsonl(path, tolerate_partial_tail=True)] == ["s-0"]
    with pytest.raises(DataError, match=r"cut\.jsonl:2"):
        list(read_jsonl(path))


def test_opening_an_appender_cuts_a_partial_last_line(tmp_path):
    path = tmp_path / "cut.jsonl"
    whole = _sample(0).model_dump_json() + "\n"
    path.write_text(whole + '{"id": "s-1", "sto', encoding="utf-8")
    with JsonlAppender(path) as out:
        out.append(_sample(1))
    assert [s.id for s in read_samples(path)] == ["s-0", "s-1"]


def test_a_last_record_without_its_newline_is_read_and_kept(tmp_path):
    # A kill between a record and its newline: the reader counts the record as done, so the
    # appender must keep it (it used to cut it, and a resume then lost the record for good).
    path = tmp_path / "cut.jsonl"
    path.write_text(
        _sample(0).model_dump_json() + "\n" + _sample(1).model_dump_json(), encoding="utf-8"
    )
    assert [s["id"] for s in read_jsonl(path, tolerate_partial_tail=True)] == ["s-0", "s-1"]
    assert repair_partial_tail(path) == 0
    with JsonlAppender(path) as out:
        out.append(_sample(2))
    assert [s.id for s in read_samples(path)] == ["s-0", "s-1", "s-2"]


@pytest.mark.parametrize(
    ("tail", "whole"),
    [
        (b'{"id": "s-1"}', True),
        (b'{"id": "s-1"', False),
        (b'{"id": "}"', False),  # a brace inside a string does not close the object
        (b'{"id": "\xc3', False),  # cut inside a multi-byte character
        (b"   ", False),
        (b"", False),
    ],
)
def test_the_tail_rule_is_the_same_for_reader_and_appender(tmp_path, tail, whole):
    assert is_whole_line(tail) is whole
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"id": "s-0"}\n' + tail)
    read = [r["id"] for r in read_jsonl(path, tolerate_partial_tail=True)]
    repair_partial_tail(path)
    assert read == (["s-0", "s-1"] if whole else ["s-0"])
    assert [r["id"] for r in read_jsonl(path)] == read
    assert path.read_bytes().endswith(b"\n")


def test_repair_of_a_file_with_no_newline_empties_it(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"id": "s-', encoding="utf-8")
    assert repair_partial_tail(path) == len('{"id": "s-')
    assert path.read_bytes() == b""


def test_repair_finds_the_last_newline_beyond_one_chunk(tmp_path):
    # The backward scan reads 64 KiB at a time; a long last line spans several chunks.
    path = tmp_path / "long.jsonl"
    head = b'{"id": "s-0"}\n'
    path.write_bytes(head + b'{"story": "' + b"x" * 200_000)
    assert repair_partial_tail(path) == 200_000 + len('{"story": "')
    assert path.read_bytes() == head


@given(cut=st.integers(min_value=0, max_value=10_000))
def test_a_write_killed_at_any_byte_resumes_to_the_same_file(tmp_path_factory, cut):
    folder = tmp_path_factory.mktemp("kill")
    records = [_sample(i) for i in range(6)]
    reference = folder / "reference.jsonl"
    write_jsonl_atomic(reference, records)
    full = reference.read_bytes()
    killed = folder / "killed.jsonl"
    killed.write_bytes(full[: cut % (len(full) + 1)])
    # Resume in the production order: read the ids already done, then open the appender
    # (which settles the tail) and append the rest.
    done = {r["id"] for r in read_jsonl(killed, tolerate_partial_tail=True)}
    with JsonlAppender(killed) as out:
        out.extend(r for r in records if r.id not in done)
    assert killed.read_bytes() == full


def test_atomic_json_write_replaces_the_whole_file(tmp_path):
    path = tmp_path / "m.json"
    atomic_write_json(path, {"a": 1})
    atomic_write_json(path, {"b": 2})
    assert json.loads(path.read_text(encoding="utf-8")) == {"b": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_chunks_given_as_files_are_copied_in_place_between_byte_chunks(tmp_path):
    first, second = tmp_path / "1.part", tmp_path / "2.part"
    first.write_bytes(b"from a file\n" * 5000)  # larger than one write buffer
    second.write_bytes(b"")
    out = tmp_path / "out" / "all.jsonl"
    atomic_write_chunks(out, [b"head\n", first, b"middle\n", second, first, b"tail\n"])
    body = b"from a file\n" * 5000
    assert out.read_bytes() == b"head\n" + body + b"middle\n" + body + b"tail\n"


def test_a_missing_chunk_file_leaves_the_earlier_file_whole(tmp_path):
    out = tmp_path / "kept.jsonl"
    out.write_bytes(b"earlier\n")
    with pytest.raises(FileNotFoundError):
        atomic_write_chunks(out, [b"new\n", tmp_path / "absent.part"])
    assert out.read_bytes() == b"earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.jsonl"]


def test_a_large_write_is_synced_in_the_background_as_it_goes(tmp_path, monkeypatch):
    import tomflywheel._atomic as atomic

    synced: list[int] = []  # file sizes at each background sync
    monkeypatch.setattr(atomic._Writeback, "STEP", 1000)
    monkeypatch.setattr(atomic, "_datasync", lambda fd: synced.append(os.fstat(fd).st_size))
    part = tmp_path / "block.part"
    part.write_bytes(b"b" * 1500)
    out = tmp_path / "out.jsonl"
    atomic_write_chunks(out, [b"a" * 600, b"a" * 600, part, b"c" * 10])
    assert out.read_bytes() == b"a" * 1200 + b"b" * 1500 + b"c" * 10
    # Each sync saw everything written before it (the buffer flushed first).
    assert synced and all(size in (1200, 2700) for size in synced)


def test_a_failure_after_a_background_sync_leaves_the_earlier_file_whole(tmp_path, monkeypatch):
    import tomflywheel._atomic as atomic

    monkeypatch.setattr(atomic._Writeback, "STEP", 10)

    def chunks():
        yield b"x" * 100
        raise RuntimeError("generator failed")

    out = tmp_path / "kept.jsonl"
    out.write_bytes(b"earlier\n")
    with pytest.raises(RuntimeError, match="generator failed"):
        atomic_write_chunks(out, chunks())
    assert out.read_bytes() == b"earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.jsonl"]


def test_same_records_give_the_same_bytes(tmp_path):
    write_jsonl_atomic(tmp_path / "a.jsonl", [_sample(i) for i in range(3)])
    write_jsonl_atomic(tmp_path / "b.jsonl", [_sample(i) for i in range(3)])
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: 1\nb: 2\na: 3\n", "duplicate key 'a' on lines 1 and 3"),
        ("top:\n  k: 1\n  j: 2\n  k: 3\n", "duplicate key 'k' on lines 2 and 4"),
        ("- {a: 1, a: 2}\n", "duplicate key 'a' twice on line 1"),
        ("1: a\n0x1: b\n", "duplicate key 1 on lines 1 and 2"),  # equal once parsed
    ],
)
def test_yaml_with_a_key_given_twice_is_refused(text, problem):
    with pytest.raises(YAMLError) as caught:
        load_yaml(text)
    assert caught.value.problem == problem


def test_yaml_merge_keys_may_override_and_equal_keys_may_sit_in_other_mappings():
    text = "base: &b {x: 1, y: 2}\nz:\n  <<: *b\n  x: 5\nw: {x: 1}\n"
    assert load_yaml(text) == {"base": {"x": 1, "y": 2}, "z": {"x": 5, "y": 2}, "w": {"x": 1}}


@given(st.text(), st.dictionaries(st.text(), st.integers() | st.text(), max_size=3))
def test_a_lines_bytes_are_its_text_and_a_newline(story, meta):
    # Serialized straight to bytes (models) or from json.dumps (dicts): the same as the text.
    answer = {"correct_answers": ["a"]}
    sample = Sample(id="s", story=story, question="q?", answer=answer, meta=meta)
    for record in (sample, {"story": story, **meta}):
        assert json_line_bytes(record) == (to_json_line(record) + "\n").encode("utf-8")
    assert jsonl_bytes([sample, sample]) == (2 * json_line_bytes(sample), 2)
