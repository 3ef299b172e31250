"""Re-verify a whole file of traced samples, one walk per story, reading only what it needs.

A generated file repeats each story's trace on every question about it (18 lines a story for
tgtom), and most of a line is fields the check never reads. So each line is decoded into the few
fields verification needs, the story's JSON is kept as raw bytes and parsed once per run of lines
that share it, and all of a story's questions are answered by one walk per verifier.
"""

from __future__ import annotations

import codecs
import multiprocessing
from collections.abc import Generator, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from tomflywheel._io import not_utf8_at
from tomflywheel.errors import DataError
from tomflywheel.world.model import QuestionSpec, Story
from tomflywheel.world.physics import get_profile
from tomflywheel.world.samples._trace import Verification, judge_answers, verify_trace
from tomflywheel.world.verifiers import Answerer


class _Trace(msgspec.Struct):
    story: msgspec.Raw
    question: dict[str, Any]
    profile: str = "default"


class _Meta(msgspec.Struct):
    trace: _Trace | None = None


class _Answer(msgspec.Struct):
    correct_answers: list[str]


class _Line(msgspec.Struct):
    id: str
    answer: _Answer
    meta: _Meta


_DECODER = msgspec.json.Decoder(_Line)
_REPLAY_ERRORS = (KeyError, ValueError, IndexError, TypeError)


@dataclass(frozen=True, slots=True)
class LineVerification:
    """One line's outcome: where it is, which sample, what the verifiers found."""

    line: int
    id: str
    verification: Verification


@dataclass
class _Story:
    """Consecutive lines that share one story (the same trace bytes and profile)."""

    key: tuple[bytes, str]
    lines: list[tuple[int, _Line, _Trace]]


Span = tuple[int, int]
"""A stretch of the file: first byte, end byte (exclusive)."""


def verify_file(path: Path, *, workers: int = 1) -> Iterator[LineVerification]:
    """Re-derive every sample of a JSONL file from its ``meta.trace`` with both verifiers.

    A line is ok when the forward tracker and the temporal belief graph agree and their answer
    is among its correct answers (as :func:`verify_sample` judges); a line without a trace, or
    whose trace does not read or replay, is not ok and says why. Outcomes come in file order.

    Args:
        path: The JSONL file.
        workers: Processes. Above 1, the file is cut at line starts into stretches verified
            in forked workers (a story cut in two is walked twice; the outcomes are the same).

    Raises:
        DataError: A line is not JSON, or lacks ``id``, ``answer.correct_answers`` or ``meta``
            (names file, line and field).
    """
    path = Path(path)
    forkable = "fork" in multiprocessing.get_all_start_methods()
    spans = _spans(path, 4 * workers) if workers > 1 and forkable else []
    if len(spans) < 2:  # one stretch: the whole file, its lines numbered from 1
        yield from _verify_span(path, (0, path.stat().st_size))
        return
    # fork: the workers inherit the loaded engine instead of importing it again.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(min(workers, len(spans)), mp_context=context) as pool:
        futures = [pool.submit(_verified_span, path, span) for span in spans]
        before = 0  # lines in the stretches before: a worker numbers its own from 1
        for future in futures:
            rows, lines, error = future.result()
            if error is not None:  # sent as fields: DataError's arguments do not pickle back
                line, field, reason = error
                raise DataError(path, None if line is None else before + line, field, reason)
            for line, sample_id, *verification in rows:
                yield LineVerification(before + line, sample_id, Verification(*verification))
            before += lines


def _spans(path: Path, parts: int) -> list[Span]:
    """``parts`` stretches of about equal size, each starting at a line start."""
    size = path.stat().st_size
    spans: list[Span] = []
    start = 0
    with path.open("rb") as handle:
        for part in range(1, parts + 1):
            if start >= size:
                break
            end = size
            if part < parts:
                handle.seek(max(start, size * part // parts))
                handle.readline()  # to the next line start
                end = max(handle.tell(), start)
            if end > start:
                spans.append((start, end))
                start = end
    return spans


def _verified_span(path: Path, span: Span) -> tuple[list[tuple], int, tuple | None]:
    """A worker's stretch (lines numbered from 1): outcomes, line count, any DataError's fields.

    Outcomes go back as plain tuples: pickling tens of thousands of dataclasses costs the
    parent more than rebuilding them. Each worker counts its own lines as it reads them, so
    that no one reads the whole file before the workers start.
    """
    rows: list[tuple] = []
    outcomes = _verify_span(path, span)
    try:
        while True:
            rows.append(_row(next(outcomes)))
    except StopIteration as done:
        return rows, done.value, None
    except DataError as err:
        return [], 0, (err.line, err.field, err.reason)


def _row(outcome: LineVerification) -> tuple:
    found = outcome.verification
    return (
        outcome.line,
        outcome.id,
        found.ok,
        found.tracker_answer,
        found.graph_answer,
        found.reason,
    )


def _verify_span(path: Path, span: Span) -> Generator[LineVerification, None, int]:
    """The outcomes of a stretch's lines, numbered from 1; returns how many lines it has."""
    start, end = span
    number = 0
    offset = start  # of the line in the file, to name a bad byte as every reader does
    group: _Story | None = None
    with path.open("rb") as handle:
        for raw in _read_lines(handle, start, end):
            number += 1
            offset += len(raw)
            if raw[0] in _SPACE and not bytes(raw).strip():
                continue
            record = _decode(path, number, raw, offset - len(raw))
            trace = record.meta.trace
            key = None if trace is None else (bytes(trace.story), trace.profile)
            if group is not None and group.key != key:
                yield from _verify_story(group)
                group = None
            if trace is None or key is None:  # the same test, twice: both types narrow
                verification = Verification(False, None, None, "no meta.trace")
                yield LineVerification(number, record.id, verification)
                continue
            group = group or _Story(key, [])
            group.lines.append((number, record, trace))
    if group is not None:
        yield from _verify_story(group)
    return number


_BLOCK = 1 << 16  # small blocks reuse freed memory; large ones page in fresh memory
_SPACE = frozenset(b" \t\n\r\x0b\x0c")
"""The bytes ``bytes.strip`` removes."""


def _read_lines(handle: BinaryIO, start: int, end: int) -> Iterator[bytes | memoryview]:
    """The lines of a stretch as ``readline`` gives them, read in blocks and sliced unchanged.

    A line that crosses ``end`` is read to its end, as ``readline`` would.
    """
    handle.seek(start)
    left = end - start
    rest = b""  # a line begun in an earlier block
    while left > 0:
        block = handle.read(min(_BLOCK, left))
        if not block:
            break
        left -= len(block)
        first = 0
        if rest:
            first = block.find(b"\n") + 1
            if not first:
                rest += block
                continue
            yield rest + block[:first]
        view = memoryview(block)
        cut = block.find(b"\n", first) + 1
        while cut:
            yield view[first:cut]
            first = cut
            cut = block.find(b"\n", first) + 1
        rest = block[first:]
    if rest:
        yield rest + handle.readline()


def _decode(path: Path, number: int, raw: bytes | memoryview, offset: int) -> _Line:
    try:
        # msgspec skips the fields it does not decode (the story) without checking their bytes.
        codecs.decode(raw, "utf-8")
    except UnicodeDecodeError as err:
        raise not_utf8_at(path, number, offset + err.start) from err
    try:
        return _DECODER.decode(raw)
    except msgspec.ValidationError as err:  # "... - at `$.answer.correct_answers`"
        message, _, where = str(err).partition(" - at `$.")
        field = where.rstrip("`") or None
        raise DataError(path, number, field, message) from err
    except msgspec.DecodeError as err:
        raise DataError(path, number, None, f"invalid JSON ({err})") from err


def _verify_story(group: _Story) -> Iterator[LineVerification]:
    try:
        story = Story.from_dict(msgspec.json.decode(group.key[0]))
        specs = [QuestionSpec.from_dict(trace.question) for _, _, trace in group.lines]
        get_profile(group.key[1])
        tracker, graph = Answerer(story, group.key[1]).answer_both(specs)
    except (*_REPLAY_ERRORS, msgspec.DecodeError):
        # Something in the group does not read or replay: judge each line alone, which names it.
        for number, record, trace in group.lines:
            yield LineVerification(number, record.id, _verify_alone(record, trace))
        return
    for (number, record, _), a, b in zip(group.lines, tracker, graph, strict=True):
        verification = judge_answers(a, b, record.answer.correct_answers)
        yield LineVerification(number, record.id, verification)


def _verify_alone(record: _Line, trace: _Trace) -> Verification:
    try:
        story = msgspec.json.decode(trace.story)
    except msgspec.DecodeError as err:
        return Verification(False, None, None, f"unreadable trace: {err}")
    as_dict = {"story": story, "question": trace.question, "profile": trace.profile}
    return verify_trace(as_dict, record.answer.correct_answers)
