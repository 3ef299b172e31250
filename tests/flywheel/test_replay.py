"""A round's training data: new admitted samples plus a seeded share of earlier ones."""

from __future__ import annotations

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.artifacts import FeedbackOutputs, TrainingMix
from tomflywheel.flywheel._replay import round_training_data
from tomflywheel.schema import Answer, Sample, read_samples


def _planned(tmp_path):
    """A round's feedback outputs with a plan (its candidates file never written)."""
    return FeedbackOutputs(candidates=tmp_path / "no-candidates.jsonl", plan_id="new")


def _sample(i: int, plan: str) -> Sample:
    return Sample(
        id=f"s{i:02d}",
        story="1 Ava entered the kitchen.",
        question="Where is Ava?",
        answer=Answer(correct_answers=["kitchen"]),
        meta={"lineage": {"plan_id": plan}},
    )


def _admitted(tmp_path):
    path = tmp_path / "admitted.jsonl"
    write_jsonl_atomic(
        path, [_sample(i, "old") for i in range(10)] + [_sample(10 + i, "new") for i in range(4)]
    )
    return path


def test_full_replay_trains_on_the_admitted_file_as_it_is(tmp_path):
    admitted = _admitted(tmp_path)
    data, mix = round_training_data(
        admitted, tmp_path / "out.jsonl", replay=1.0, key="r:2", feedback=_planned(tmp_path)
    )
    assert data == admitted and not (tmp_path / "out.jsonl").exists()
    assert mix == TrainingMix(new=4, earlier=10, replayed=10)


def test_a_replay_share_keeps_every_new_sample_and_a_seeded_share_of_earlier_ones(tmp_path):
    admitted = _admitted(tmp_path)
    runs = [
        round_training_data(
            admitted, tmp_path / f"out{n}.jsonl", replay=0.3, key="r:2", feedback=_planned(tmp_path)
        )
        for n in range(2)
    ]
    (first, mix), (second, _) = runs
    ids = [s.id for s in read_samples(first)]
    assert mix == TrainingMix(new=4, earlier=10, replayed=3)
    assert ids[-4:] == ["s10", "s11", "s12", "s13"] and len(ids) == 7
    assert ids == sorted(ids), "file order is kept"
    assert first.read_bytes() == second.read_bytes(), "same key, same bytes"
    none, mix = round_training_data(
        admitted, tmp_path / "none.jsonl", replay=0.0, key="r:2", feedback=_planned(tmp_path)
    )
    assert [s.id for s in read_samples(none)] == ["s10", "s11", "s12", "s13"]
    assert mix.replayed == 0


def test_without_lineage_new_samples_are_the_rounds_candidates(tmp_path):
    admitted = tmp_path / "admitted.jsonl"
    plain = [s.model_copy(update={"meta": {}}) for s in (_sample(i, "x") for i in range(6))]
    write_jsonl_atomic(admitted, plain)
    candidates = tmp_path / "candidates.jsonl"
    write_jsonl_atomic(candidates, plain[4:])
    data, mix = round_training_data(
        admitted,
        tmp_path / "out.jsonl",
        replay=0.0,
        key="r:2",
        feedback=FeedbackOutputs(candidates=candidates),
    )
    assert [s.id for s in read_samples(data)] == ["s04", "s05"]
    assert mix == TrainingMix(new=2, earlier=4, replayed=0)
