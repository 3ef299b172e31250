"""Records appended as replies arrive end in dataset order, with the bytes of an ordered run."""

from __future__ import annotations

from tomflywheel._io import JsonlAppender
from tomflywheel.artifacts import read_predictions
from tomflywheel.evaluation._order import restore_dataset_order
from tomflywheel.schema import Answer, Prediction, Sample

SAMPLES = [
    Sample(id=f"s{i}", story="s", question="q", answer=Answer(correct_answers=["a"]))
    for i in range(3)
]


def _prediction(sample_id: str, trial: int) -> Prediction:
    # Floats and unicode: what a re-serialization could change if it were not the model's own.
    return Prediction(
        sample_id=sample_id,
        trial=trial,
        mode="generate",
        endpoint="chat",
        raw_output=f"dans la cuisine ✓ {sample_id}",
        option_logprobs=[-1e-05, -0.1 + 0.2],
        latency_s=0.30000000000000004,
    )


def _write(path, records) -> None:
    with JsonlAppender(path) as appender:
        appender.extend(records)


def test_arrival_order_is_sorted_by_sample_then_trial_to_the_bytes_of_an_ordered_run(tmp_path):
    ordered = [_prediction(f"s{i}", t) for i in range(3) for t in range(2)]
    arrived = [ordered[n] for n in (3, 0, 5, 1, 4, 2)]
    _write(tmp_path / "ordered.jsonl", ordered)
    _write(tmp_path / "arrived.jsonl", arrived)
    assert restore_dataset_order(tmp_path / "arrived.jsonl", SAMPLES, read_predictions) is True
    assert (tmp_path / "arrived.jsonl").read_bytes() == (tmp_path / "ordered.jsonl").read_bytes()


def test_a_file_already_in_order_is_left_untouched(tmp_path):
    path = tmp_path / "prediction.jsonl"
    _write(path, [_prediction(f"s{i}", 0) for i in range(3)])
    inode = path.stat().st_ino
    assert restore_dataset_order(path, SAMPLES, read_predictions) is False
    assert path.stat().st_ino == inode  # not even rewritten with the same bytes


def test_records_of_samples_not_in_the_dataset_go_last_in_their_file_order(tmp_path):
    path = tmp_path / "prediction.jsonl"
    _write(path, [_prediction(i, 0) for i in ("x9", "s2", "x1", "s0")])
    restore_dataset_order(path, SAMPLES, read_predictions)
    assert [p.sample_id for p in read_predictions(path)] == ["s0", "s2", "x9", "x1"]
