"""A run killed (SIGKILL) mid-training resumes from its last checkpoint and ends as if never
stopped; a checkpoint of other data or settings is refused."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.train.conftest import basket_or_box, contrary_samples, tomi_style_samples
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import EvalSettings
from tomflywheel.errors import ConfigError
from tomflywheel.train import MANIFEST_NAME, TrainSettings, train_model
from tomflywheel.train._checkpoints import checkpoint_folder, complete_checkpoints
from tomflywheel.train._launch import PROGRESS_PREFIX

pytest.importorskip("trl")

# LoRA (dropout draws random numbers, so resuming must restore the RNG too), linear decay.
SETTINGS = TrainSettings(
    steps=10, batch_size=2, learning_rate=2e-3, seed=11, max_length=384, threads=1,
    lora={"enabled": True, "rank": 4, "dropout": 0.1},
)  # fmt: skip


def _spec(data: Path, base: Path, out: Path, settings: TrainSettings) -> dict:
    return {
        "data": str(data), "base": str(base), "out": str(out), "overwrite": False,
        "settings": settings.model_dump(mode="json"),
        "eval_settings": EvalSettings().model_dump(mode="json"),
    }  # fmt: skip


def _killed_and_resumed(
    tmp_path: Path, data: Path, base: Path, settings: TrainSettings, *, kill_after: int
) -> dict:
    """Run the worker with checkpoints, SIGKILL it once step ``kill_after`` is logged, rerun
    the same command; the finished run's manifest."""
    out = tmp_path / "run"
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(_spec(data, base, out, settings)), encoding="utf-8")
    command = [sys.executable, "-m", "tomflywheel.train._worker", str(spec)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as first:
        assert first.stdout is not None
        for line in first.stdout:
            if (
                line.startswith(PROGRESS_PREFIX)
                and json.loads(line[len(PROGRESS_PREFIX) :])["done"] >= kill_after
            ):
                first.send_signal(signal.SIGKILL)
                break
        first.wait()
    assert first.returncode == -signal.SIGKILL
    assert not out.exists()
    assert complete_checkpoints(checkpoint_folder(out))

    again = subprocess.run(command, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    # Done: the checkpoints are gone, the model is in place.
    assert not checkpoint_folder(out).exists()
    return json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))


def test_a_killed_run_resumes_and_ends_with_the_same_losses(tmp_path, tiny_model):
    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, tomi_style_samples(8))
    reference = train_model(
        data, base=tiny_model, out=tmp_path / "reference", settings=SETTINGS,
        eval_settings=EvalSettings(),
    )  # fmt: skip
    # Step 5 is logged after step 4's checkpoint was written: kill it mid-run.
    manifest = _killed_and_resumed(
        tmp_path, data, tiny_model, SETTINGS.model_copy(update={"save_steps": 2}), kill_after=5
    )
    assert manifest["resumed_from_step"] >= 4
    assert manifest["steps"] == 10
    assert manifest["losses"] == reference.losses
    assert manifest["learning_rates"] == reference.learning_rates


def test_a_killed_grpo_run_resumes_and_samples_as_if_never_stopped(tmp_path, candidate_model):
    # The replies after the resume are drawn from the restored generator state: same rewards.
    data = tmp_path / "basket.jsonl"
    write_jsonl_atomic(data, basket_or_box(8, "test-grpo-resume", always_basket=True))
    settings = TrainSettings(
        method="grpo", steps=6, batch_size=4, learning_rate=3e-3, seed=3, threads=2,
        max_length=128, grpo={"generations": 4, "max_completion_tokens": 4},
    )  # fmt: skip
    reference = train_model(
        data, base=candidate_model, out=tmp_path / "reference", settings=settings,
        eval_settings=EvalSettings(),
    )  # fmt: skip
    manifest = _killed_and_resumed(
        tmp_path, data, candidate_model, settings.model_copy(update={"save_steps": 2}),
        kill_after=3,
    )  # fmt: skip
    assert manifest["method"] == "grpo" and manifest["resumed_from_step"] == 2
    assert manifest["grpo"]["rewards"] == reference.rewards
    assert manifest["losses"] == reference.losses


def test_a_killed_early_stopping_run_resumes_its_patience_and_its_best_weights(
    tmp_path, candidate_model
):
    # Validated after every step, its loss rising from the first: the best is step 1, and the
    # run stops at step 1 + patience only if the resumed run remembers both.
    settings = TrainSettings(
        steps=12, batch_size=4, learning_rate=2e-2, lr_schedule="constant", warmup_ratio=0.0,
        seed=4, threads=2, max_length=128,
        validation_share=1 / 3, validation_every=1, early_stopping=5,
    )  # fmt: skip
    data = tmp_path / "contrary.jsonl"
    write_jsonl_atomic(data, contrary_samples(settings.validation_share, settings.seed))
    reference = train_model(
        data, base=candidate_model, out=tmp_path / "reference", settings=settings,
        eval_settings=EvalSettings(),
    )  # fmt: skip
    assert reference.manifest["validation"]["weights_from_step"] == 1 and reference.steps == 6
    manifest = _killed_and_resumed(tmp_path, data, candidate_model, settings, kill_after=3)
    assert manifest["resumed_from_step"] >= 2
    assert manifest["steps"] == 6 and manifest["losses"] == reference.losses
    assert manifest["validation"] == reference.manifest["validation"]
    saved = (tmp_path / "run" / "model.safetensors").read_bytes()
    assert saved == (tmp_path / "reference" / "model.safetensors").read_bytes()


def test_checkpoints_of_other_settings_are_refused(tmp_path):
    from tomflywheel.train._checkpoints import resume_point, write_fingerprint

    folder = tmp_path / "model.checkpoints"
    write_fingerprint(folder, {"settings": {"seed": 1}})
    (folder / "checkpoint-2").mkdir()
    (folder / "checkpoint-2" / "trainer_state.json").write_text("{}", encoding="utf-8")
    (folder / "checkpoint-4").mkdir()  # killed while being written: no trainer state
    assert resume_point(folder, {"settings": {"seed": 1}}, overwrite=False) == (
        folder / "checkpoint-2"
    )
    with pytest.raises(ConfigError, match="checkpoints of a run with other data or settings"):
        resume_point(folder, {"settings": {"seed": 2}}, overwrite=False)
    assert resume_point(folder, {"settings": {"seed": 2}}, overwrite=True) is None
    assert not (folder / "checkpoint-2").exists()
