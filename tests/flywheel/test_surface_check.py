"""A round says where its training data's surface differs from the sets that measure it."""

from __future__ import annotations

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.artifacts import RoundSummary, TrainOutputs
from tomflywheel.flywheel._summary import round_notes
from tomflywheel.flywheel._surface import surface_check
from tomflywheel.world.generators import generate


def test_numbered_training_data_against_an_unnumbered_measured_set_is_a_noted_gap(tmp_path):
    exp = tmp_path / "heldout_before"
    measured = list(generate("tomi", n=4, seed=1))
    write_jsonl_atomic(exp / "tomi_dev" / "samples.jsonl", measured)
    write_jsonl_atomic(exp / "tomi_dev_logprob" / "samples.jsonl", measured)
    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, list(generate("tomi", n=4, seed=2, numbered=True)))
    found = surface_check(data, [exp])
    assert list(found.measured) == ["tomi_dev"]  # the log-prob copy is the same set
    assert found.profile.numbered == 1.0
    assert found.gaps == ["tomi_dev: line numbers on 0% of its stories, on 100% of the data's"]
    trained = TrainOutputs(
        model_dir=tmp_path / "model", served_name="m-r1", weights_sha256="0" * 64, base="m",
        data=data, steps=1, samples=4, seconds=1.0,
    )  # fmt: skip
    notes = round_notes(RoundSummary(round=1, model="m", trained=trained, surface=found))
    assert notes == [
        "the training data's surface differs from tomi_dev: line numbers on 0% of its "
        "stories, on 100% of the data's"
    ]
    write_jsonl_atomic(data, list(generate("tomi", n=4, seed=2)))
    assert surface_check(data, [exp]).gaps == []
    assert surface_check(tmp_path / "missing.jsonl", [exp]) is None
