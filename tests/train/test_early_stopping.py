"""A validation loss on held-out stories, and early stopping that keeps the lowest one's weights."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from safetensors.torch import load_file
from typer.testing import CliRunner

from tests.train.conftest import contrary_samples
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.cli import app
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.train import MANIFEST_NAME, train_model
from tomflywheel.train._data import EncodedExample, split_validation

pytest.importorskip("trl")

SEED = 4
# A constant learning rate: a shorter run with the same data and seed repeats the first steps.
SETTINGS = TrainSettings(
    steps=12, batch_size=4, learning_rate=2e-2, lr_schedule="constant", warmup_ratio=0.0,
    seed=SEED, threads=2, max_length=128,
    validation_share=1 / 3, validation_every=1, early_stopping=2,
)  # fmt: skip


def _stub(sample_id: str) -> EncodedExample:
    return EncodedExample(sample_id, [], [])


def test_validation_takes_whole_stories_by_seed():
    stories = {f"s{i}": f"story {i % 10}" for i in range(40)}  # four questions per story
    examples = [_stub(i) for i in stories]
    training, validation = split_validation(examples, stories, share=0.3, seed=1)
    held = {stories[e.sample_id] for e in validation}
    assert len(held) == 3 and len(validation) == 12 and len(training) == 28
    assert held.isdisjoint(stories[e.sample_id] for e in training)
    assert [e.sample_id for e in training] == [i for i in stories if stories[i] not in held]
    again = split_validation(examples, stories, share=0.3, seed=1)
    assert again == (training, validation)
    other = split_validation(examples, stories, share=0.3, seed=2)[1]
    assert {stories[e.sample_id] for e in other} != held


def test_each_side_keeps_a_story_and_no_share_holds_nothing_out():
    stories = {"a": "one", "b": "two"}
    examples = [_stub("a"), _stub("b")]
    assert len(split_validation(examples, stories, share=0.01, seed=0)[1]) == 1
    assert len(split_validation(examples, stories, share=0.99, seed=0)[0]) == 1
    assert split_validation(examples, stories, share=0.0, seed=0) == (examples, [])
    alone = {"a": "one", "b": "one"}
    assert split_validation(examples, alone, share=0.5, seed=0) == (examples, [])


def test_early_stopping_needs_a_validation_share_and_sft():
    with pytest.raises(ValueError, match="validation_share"):
        TrainSettings(early_stopping=2)
    with pytest.raises(ValueError, match="for SFT"):
        TrainSettings(method="grpo", validation_share=0.1)
    assert TrainSettings(method="sft-grpo", validation_share=0.1, early_stopping=1)
    assert TrainSettings(steps=95).validation_interval(95) == 9
    assert TrainSettings(steps=5).validation_interval(5) == 1


@pytest.fixture(scope="module")
def stopped(candidate_model: Path, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("early-stopping")
    data = folder / "contrary.jsonl"
    write_jsonl_atomic(data, contrary_samples(SETTINGS.validation_share, SEED))
    result = train_model(
        data, base=candidate_model, out=folder / "model", settings=SETTINGS,
        eval_settings=EvalSettings(),
    )  # fmt: skip
    return data, result


def test_training_stops_when_the_validation_loss_stops_falling(stopped):
    _, result = stopped
    manifest = json.loads((result.output_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    validation = manifest["validation"]
    steps = [step for step, _ in validation["losses"]]
    losses = [loss for _, loss in validation["losses"]]
    assert validation["samples"] == 6 and manifest["data"]["samples_used"] == 12
    assert steps == list(range(1, result.steps + 1))  # one validation after every step
    assert validation["stopped_early"] and result.steps < SETTINGS.steps
    best = losses.index(min(losses))
    assert validation["weights_from_step"] == steps[best]
    assert len(losses) - 1 - best == SETTINGS.early_stopping  # patience spent, then stopped
    assert len(result.losses) == result.steps
    assert not (result.output_dir.parent / "model.checkpoints").exists()
    # the result carries the same record, typed, for the flywheel's train stage
    assert result.validation is not None and result.validation.as_json() == validation


def test_the_saved_weights_are_the_lowest_validation_losss(stopped, candidate_model, tmp_path):
    data, result = stopped
    manifest = json.loads((result.output_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    best = manifest["validation"]["weights_from_step"]
    # The same data, split and order, stopped at the best step by a step count instead.
    shorter = SETTINGS.model_copy(update={"steps": best, "early_stopping": None})
    reference = train_model(
        data, base=candidate_model, out=tmp_path / "reference", settings=shorter,
        eval_settings=EvalSettings(),
    )  # fmt: skip
    assert reference.losses == result.losses[:best]
    saved = load_file(str(result.output_dir / "model.safetensors"))
    expected = load_file(str(reference.output_dir / "model.safetensors"))
    assert saved.keys() == expected.keys()
    for name, tensor in expected.items():
        assert saved[name].equal(tensor), name


def test_the_command_refuses_early_stopping_without_a_validation_share(tmp_path):
    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, contrary_samples(SETTINGS.validation_share, SEED))
    args = ["train", "--data", str(data), "--out", str(tmp_path / "m"), "--early-stopping", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert "validation_share" in result.output
    assert not (tmp_path / "m").exists()
