"""A write killed at any byte, resumed in the production order: read what is done, then append.

Each artifact a stage resumes from (predictions, judgments, diagnoses, verdicts, admitted
samples) is read with the stage's own reader, then reopened with ``JsonlAppender``; no record
the reader counted as done may be removed, and the resumed file must equal an uninterrupted one.
"""

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel

from tomflywheel._io import JsonlAppender, write_jsonl_atomic
from tomflywheel.artifacts import read_judgments, read_predictions
from tomflywheel.feedback._diagnose import read_diagnoses
from tomflywheel.filter.admit import TrainStore
from tomflywheel.schema import (
    CheckResult,
    CheckStatus,
    Diagnosis,
    Judgment,
    MethodRef,
    Prediction,
    QualityAttempt,
    QualityDecision,
    QualityVerdict,
    Sample,
    Verdict,
)


def _sample(i: int) -> Sample:
    # Non-ASCII text: a kill may fall inside a multi-byte character.
    return Sample.model_validate(
        {
            "id": f"s-{i}",
            "story": f"Anne put the äpfel {i} in the box. Then she left; Max moved them.",
            "question": "Where will Anne look for the äpfel?",
            "answer": {"correct_answers": ["box"], "wrong_answers": ["basket"]},
            "meta": {"dataset": "t", "filter": {"input_hash": f"h-{i}"}},
        }
    )


def _prediction(i: int) -> Prediction:
    return Prediction(
        sample_id=f"s-{i}",
        mode="generate",
        endpoint="chat",
        messages=[{"role": "user", "content": 'Where? {"braces": 1}'}],
        raw_output="The box. }",
        usage={"prompt_tokens": 12, "completion_tokens": 3},
    )


def _judgment(i: int) -> Judgment:
    return Judgment(
        sample_id=f"s-{i}",
        verdict=Verdict.CORRECT,
        method=MethodRef(name="rules", args={"match": "first_line"}),
        answer="box",
    )


def _diagnosis(i: int) -> Diagnosis:
    return Diagnosis(
        dataset="t",
        sample_id=f"s-{i}",
        reason="incorrect",
        method="symbolic",
        category=None,
        evidence="Max moved the äpfel while Anne was away.",
    )


def _verdict(i: int) -> QualityVerdict:
    check = CheckResult(check="schema", status=CheckStatus.PASSED)
    return QualityVerdict(
        sample_id=f"s-{i}",
        input_hash=f"h-{i}",
        input_file="candidates.jsonl",
        line=i + 1,
        origin="symbolic",
        decision=QualityDecision.ACCEPTED,
        attempts=[QualityAttempt(attempt=0, checks=[check])],
        config_hash="c",
        sample=_sample(i),
    )


def _store(path: Path) -> TrainStore:
    return TrainStore(path.parent, path.stem)


def _admitted_ids(path: Path) -> set[str]:
    with _store(path) as store:
        return {s.id for s in store.load().admitted}


def _verdict_ids(path: Path) -> set[str]:
    store = TrainStore(path.parent.parent, path.stem)
    return {v.sample_id for v in store.verdicts()}


# (file, record maker, the stage's own reader of the ids already done)
KINDS: dict[str, tuple[str, Callable[[int], BaseModel], Callable[[Path], set[str]]]] = {
    "predictions": (
        "prediction.jsonl",
        _prediction,
        lambda p: {r.sample_id for r in read_predictions(p)},
    ),
    "judgments": ("judgment.jsonl", _judgment, lambda p: {r.sample_id for r in read_judgments(p)}),
    "diagnoses": (
        "diagnoses.jsonl",
        _diagnosis,
        lambda p: {r.sample_id for r in read_diagnoses(p)},
    ),
    "verdicts": ("verdicts/train.jsonl", _verdict, _verdict_ids),
    "admitted": ("train.jsonl", _sample, _admitted_ids),
}

RECORDS = 3


def _id(record: BaseModel) -> str:
    return str(getattr(record, "sample_id", None) or record.id)


def _resume_at(
    tmp: Path, name: str, full: bytes, cut: int, make: Callable[[int], BaseModel], done_of
) -> None:
    """Cut the file at ``cut``, resume as the stage does, and check nothing was lost."""
    path = tmp / f"cut-{cut}" / name
    path.parent.mkdir(parents=True)
    path.write_bytes(full[:cut])
    records = [make(i) for i in range(RECORDS)]
    done = done_of(path)
    with JsonlAppender(path) as out:
        # What the reader counted is still there once the appender has settled the tail.
        kept = path.read_bytes()
        for record in records:
            if _id(record) in done:
                assert record.model_dump_json().encode("utf-8") + b"\n" in kept, cut
        out.extend(r for r in records if _id(r) not in done)
    assert path.read_bytes() == full, cut


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_kill_at_every_byte_of_the_last_record_loses_nothing(tmp_path, kind):
    name, make, done_of = KINDS[kind]
    reference = tmp_path / "reference.jsonl"
    write_jsonl_atomic(reference, [make(i) for i in range(RECORDS)])
    full = reference.read_bytes()
    last_start = full.rstrip(b"\n").rfind(b"\n") + 1
    cuts = range(last_start, len(full) + 1)
    for cut in cuts:
        _resume_at(tmp_path, name, full, cut, make, done_of)
    # Every byte of the last record's write, newline included, and the untouched file.
    assert len(cuts) == len(full) - last_start + 1
