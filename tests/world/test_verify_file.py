"""A whole file of traced samples re-verified at once judges each line as one sample would."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from tomflywheel.errors import DataError
from tomflywheel.world import GENERATORS, verify_file, write_generated
from tomflywheel.world.samples import verify_trace
from tomflywheel.world.samples._verify_file import _BLOCK, _read_lines, _spans


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.mark.parametrize("name", GENERATORS.names())
def test_every_generated_line_verifies(tmp_path, name: str):
    path = tmp_path / "gen.jsonl"
    count = write_generated(name, path, seed=5, n=4, controls=True)
    outcomes = list(verify_file(path))
    assert [o.line for o in outcomes] == list(range(1, count + 1))
    assert [o.id for o in outcomes] == [r["id"] for r in _lines(path)]
    assert all(o.verification.ok for o in outcomes), [o.verification.reason for o in outcomes]


def test_outcomes_equal_verifying_each_trace_alone_broken_lines_included(tmp_path):
    path = tmp_path / "gen.jsonl"
    write_generated("tgtom", path, seed=2, n=3)
    records = _lines(path)
    records[1]["answer"]["correct_answers"] = ["red_herring"]  # a wrong label
    records[4]["meta"]["trace"]["question"]["kind"] = "gossip"  # an unreadable spec
    del records[7]["meta"]["trace"]  # no trace: judged alone, between traced lines
    last = records[-1]["meta"]["trace"]["story"]["events"]
    last.append({"type": "move", "agent": "Nobody", "obj": "ghost", "container": "box"})
    _write(path, records)

    outcomes = list(verify_file(path))
    assert [o.line for o in outcomes] == list(range(1, len(records) + 1))
    for outcome, record in zip(outcomes, records, strict=True):
        trace = record["meta"].get("trace")
        if trace is None:
            assert outcome.verification.reason == "no meta.trace"
            continue
        alone = verify_trace(trace, record["answer"]["correct_answers"])
        assert outcome.verification.ok == alone.ok, outcome
        assert outcome.verification.reason == alone.reason
    failed = {o.line for o in outcomes if not o.verification.ok}
    assert {2, 5, 8} <= failed and len(failed) < len(records)


@pytest.mark.parametrize("workers", [2, 3])
def test_worker_processes_give_the_outcomes_of_one(tmp_path, workers: int):
    path = tmp_path / "gen.jsonl"
    write_generated("tgtom", path, seed=1, n=5)
    records = _lines(path)
    records[10]["answer"]["correct_answers"] = ["red_herring"]
    _write(path, records)
    one = list(verify_file(path))
    assert list(verify_file(path, workers=workers)) == one
    assert sum(not o.verification.ok for o in one) == 1


def test_spans_cut_at_line_starts(tmp_path):
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"a\nbbbb\n\ncc\nddddddd\ne")
    spans = _spans(path, 3)
    data = path.read_bytes()
    assert spans[0][0] == 0 and spans[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in pairwise(spans))
    assert all(start == 0 or data[start - 1 : start] == b"\n" for start, _ in spans)
    assert _spans(tmp_path / "lines.jsonl", 50)[-1][1] == len(data)


def test_workers_number_lines_across_stretches_as_one_process_does(tmp_path):
    # Each worker counts its own stretch's lines (blank ones too); the parent adds them up.
    path = tmp_path / "gen.jsonl"
    write_generated("tgtom", path, seed=2, n=4)
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    text[5:5] = ["\n", "  \n"]
    text[60] = '{"id": "broken", "answer": {"correct_answers": "x"}, "meta": {}}\n'
    path.write_text("".join(text), encoding="utf-8")
    with pytest.raises(DataError) as one:
        list(verify_file(path))
    with pytest.raises(DataError) as several:
        list(verify_file(path, workers=3))
    assert one.value.line == several.value.line == 61
    del text[60]
    path.write_text("".join(text), encoding="utf-8")
    lines = [outcome.line for outcome in verify_file(path, workers=3)]
    assert lines == [outcome.line for outcome in verify_file(path)]
    assert lines == [n for n, line in enumerate(text, 1) if line.strip()]


def test_workers_asked_for_without_fork_number_lines_as_one_process(tmp_path, monkeypatch):
    import tomflywheel.world.samples._verify_file as module

    path = tmp_path / "gen.jsonl"
    write_generated("tgtom", path, seed=2, n=3)
    one = list(verify_file(path))
    monkeypatch.setattr(module.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert list(verify_file(path, workers=3)) == one


def test_a_malformed_line_names_file_line_and_field(tmp_path):
    path = tmp_path / "gen.jsonl"
    write_generated("tomi", path, seed=1, n=1)
    records = _lines(path)
    records[2]["answer"]["correct_answers"] = "kitchen"  # not a list
    _write(path, records)
    with pytest.raises(DataError) as caught:
        list(verify_file(path))
    assert caught.value.line == 3 and caught.value.field == "answer.correct_answers"
    assert str(path) in str(caught.value)
    with pytest.raises(DataError) as in_worker:
        list(verify_file(path, workers=2))
    assert (in_worker.value.line, in_worker.value.field) == (3, "answer.correct_answers")
    path.write_text('{"id": "x", \n', encoding="utf-8")
    with pytest.raises(DataError, match="invalid JSON") as bad:
        list(verify_file(path))
    assert bad.value.line == 1


def test_block_reads_give_the_lines_readline_gives_across_block_edges(tmp_path):
    # Lines shorter and longer than a read block, a blank one, and no final newline.
    sizes = [10, _BLOCK - 3, 1, _BLOCK * 2 + 7, 0, 300, _BLOCK, 5]
    text = b"".join(b"x" * size + b"\n" for size in sizes) + b"tail"
    path = tmp_path / "lines.jsonl"
    path.write_bytes(text)
    with path.open("rb") as handle:
        for start, end in [(0, len(text)), (11, len(text)), (5, _BLOCK + 40), (0, 1)]:
            handle.seek(start)
            expected = []
            while handle.tell() < end and (line := handle.readline()):
                expected.append(line)
            assert [bytes(line) for line in _read_lines(handle, start, end)] == expected
