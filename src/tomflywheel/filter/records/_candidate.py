"""Candidates: input records read line by line, their origin, and the hashes that key resumes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from tomflywheel._io import utf8_errors, validation_error_field
from tomflywheel.datasets import TaskSpec, task_for_sample
from tomflywheel.errors import ConfigError, DataError
from tomflywheel.schema import Sample
from tomflywheel.world import LabelReading

Origin = Literal["symbolic", "naturalized", "free_form"]
"""Where a candidate's label comes from: the world engine, an LLM rewrite of an engine story
(the trace holds the source events), or an LLM alone."""
ORIGINS: tuple[Origin, ...] = ("symbolic", "naturalized", "free_form")


def has_trace(sample: Sample) -> bool:
    """Whether ``meta.trace`` is a world-engine trace (events and a question spec).

    Benchmark importers may keep their own traces (ToMi's is a list of step names): those do
    not count.
    """
    trace = sample.meta.get("trace")
    return isinstance(trace, Mapping) and "story" in trace and "question" in trace


def origin_of(sample: Sample) -> Origin:
    """``meta.origin`` when valid; else ``symbolic`` with a trace, ``free_form`` without."""
    declared = sample.meta.get("origin")
    if declared in ORIGINS:
        return declared  # type: ignore[no-any-return]
    return "symbolic" if has_trace(sample) else "free_form"


def record_hash(record: Mapping[str, Any] | str) -> str:
    """A stable hash of a record as read (canonical JSON), or of a raw line."""
    text = (
        record
        if isinstance(record, str)
        else json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    )
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


@dataclass(frozen=True, slots=True)
class Candidate:
    """One input record on its way through the checks.

    Args:
        index: 0-based position in the input (decides which of two duplicates is kept).
        line: 1-based line in the input file.
        record: The record as read (a dict), or the raw line when it is not JSON.
        sample: The record as a ``Sample``; None when it is not a valid one.
        error: ``(reason, detail)`` when the record is not a valid sample.
        input_hash: :func:`record_hash` of the record as read.
        attempt: 0 as given; n after the n-th rewrite (``sample`` is then the rewrite).
        task: The sample's task, resolved once when read (None: invalid record, or a malformed
            ``meta.task``).
        reading: The world engine's reading of the label of a sample without a trace (None:
            not read yet, or a trace or a naturalized sample, which other checks verify).
        label_repair: When the run relabelled the sample from the engine's answer: old and new
            label, why, profile (also in ``sample.meta.label_repair``).
    """

    index: int
    line: int
    record: dict[str, Any] | str
    sample: Sample | None
    error: tuple[str, str] | None
    input_hash: str
    attempt: int = 0
    task: TaskSpec | None = None
    reading: LabelReading | None = None
    label_repair: dict[str, Any] | None = None

    @property
    def is_completion(self) -> bool:
        """Whether it is a sentence-completion task (its prompt is the story)."""
        return self.task is not None and self.task.prompt_kind == "completion"

    @property
    def id(self) -> str:
        """The sample id, or ``line-<n>`` for a record without one."""
        if self.sample is not None:
            return self.sample.id
        if isinstance(self.record, dict) and isinstance(self.record.get("id"), str):
            return str(self.record["id"])
        return f"line-{self.line}"

    @property
    def origin(self) -> Origin:
        """The label's origin (``free_form`` for an invalid record)."""
        return origin_of(self.sample) if self.sample is not None else "free_form"


def engine_reads(candidate: Candidate) -> bool:
    """Whether ``engine_label`` verifies this candidate's label (a valid sample, no trace)."""
    sample = candidate.sample
    return sample is not None and candidate.origin == "free_form" and not has_trace(sample)


def engine_decided(candidate: Candidate) -> bool:
    """Whether the engine read the label (verified or contradicted it): no LLM judge needed."""
    reading = candidate.reading
    return reading is not None and reading.status != "unreadable"


def parse_candidate(index: int, line: int, text: str) -> Candidate:
    """Parse one input line into a candidate; a bad record becomes a candidate with an error."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        return Candidate(
            index, line, text, None, ("invalid_json", err.msg), record_hash(text.rstrip("\n"))
        )
    if not isinstance(obj, dict):
        detail = f"expected a JSON object, got {type(obj).__name__}"
        return Candidate(index, line, text, None, ("schema_invalid", detail), record_hash(text))
    try:
        sample = Sample.model_validate(obj)
    except ValidationError as err:
        field, reason = validation_error_field(err)
        error = ("schema_invalid", f"{field}: {reason}")
        return Candidate(index, line, obj, None, error, record_hash(obj))
    return Candidate(index, line, obj, sample, None, record_hash(obj), task=_task(sample))


def candidate_of(sample: Sample, index: int) -> Candidate:
    """A candidate made in the run (a complement), placed after every input line."""
    record = sample.model_dump(mode="json")
    return Candidate(index, 0, record, sample, None, record_hash(record), task=_task(sample))


def _task(sample: Sample) -> TaskSpec | None:
    try:
        return task_for_sample(sample)
    except ConfigError:
        return None


def read_candidates(path: Path) -> Iterator[Candidate]:
    """Yield every non-blank line of a JSONL file as a candidate, valid or not.

    Raises:
        DataError: The file cannot be read or is not UTF-8.
    """
    path = Path(path)
    index = 0
    try:
        with utf8_errors(path), path.open("r", encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                yield parse_candidate(index, number, text)
                index += 1
    except OSError as err:
        raise DataError(path, None, None, f"cannot read input ({err.strerror})") from err
