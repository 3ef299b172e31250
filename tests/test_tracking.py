"""Experiment tracking: scalars flattened from nested metrics, TensorBoard event files written
(and read back here), a missing backend refused with what to install."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

from tomflywheel.config import TrackingSettings
from tomflywheel.errors import ConfigError
from tomflywheel.tracking import open_tracker, scalars


def read_scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar in the TensorBoard event files under ``folder``: tag -> [(step, value)]."""
    from tensorboardX.proto import event_pb2

    out: dict[str, list[tuple[int, float]]] = {}
    for path in sorted(folder.rglob("events.out.tfevents.*")):
        data = path.read_bytes()
        pos = 0
        while pos < len(data):  # TFRecord: length, its CRC, the record, its CRC
            (length,) = struct.unpack("<Q", data[pos : pos + 8])
            event = event_pb2.Event.FromString(data[pos + 12 : pos + 12 + length])
            pos += 12 + length + 4
            for value in event.summary.value:
                out.setdefault(value.tag, []).append((event.step, value.simple_value))
    return out


def test_scalars_keeps_finite_numbers_by_path():
    metrics = {
        "overall": {"accuracy": 0.5, "n": 4, "ok": True, "note": "x", "ci": [0.1, 0.9]},
        "groups": {"memory": {"accuracy": float("nan")}, "reality": {"accuracy": 1.0}},
        "usage": {"tokens": 10},
    }
    assert scalars(metrics, "eval/tomi", skip=frozenset({"usage"})) == {
        "eval/tomi/overall/accuracy": 0.5,
        "eval/tomi/overall/n": 4.0,
        "eval/tomi/groups/reality/accuracy": 1.0,
    }
    assert scalars(None) == {} and scalars(3) == {"": 3.0}


def test_tensorboard_event_files_hold_each_scalar_at_its_step(tmp_path):
    settings = TrackingSettings(to="tensorboard", dir=tmp_path / "tb")
    with open_tracker(settings, "run/1 with spaces") as tracker:
        tracker.log({"lift/tomi/targets": 12.5}, step=1)
        tracker.log({"lift/tomi/targets": 20.0, "accuracy/tomi": 0.75}, step=2)
    [folder] = (tmp_path / "tb").iterdir()
    assert folder.name == "run_1_with_spaces"
    assert read_scalars(folder) == {
        "lift/tomi/targets": [(1, 12.5), (2, 20.0)],
        "accuracy/tomi": [(2, 0.75)],
    }


def test_no_tracking_writes_nothing(tmp_path):
    with open_tracker(TrackingSettings(dir=tmp_path / "none"), "run") as tracker:
        tracker.log({"a": 1.0})
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("backend", ["wandb", "mlflow"])
def test_a_backend_not_installed_says_what_to_install(backend, tmp_path):
    if importlib.util.find_spec(backend) is not None:
        pytest.skip(f"{backend} is installed here")
    settings = TrackingSettings(to=backend, dir=tmp_path)
    with (
        pytest.raises(ConfigError, match=f"tracking.to: {backend} needs {backend}"),
        open_tracker(settings, "run"),
    ):
        pass


def test_a_flywheel_round_logs_accuracy_and_lift_without_usage_or_words():
    from tomflywheel.artifacts import RoundSummary
    from tomflywheel.flywheel._run import round_scalars

    part = {"n": 4, "accuracy": 0.5}
    lift = {
        "before": {"all": part},
        "after": {"all": part},
        "lift": {"all": 10.0, "targets": None},
        "shortcut_warning": "w",
    }
    summary = RoundSummary.model_validate(
        {
            "round": 1,
            "model": "m",
            "accuracy": {"tomi": {"task": "tomi", "overall": part, "usage": {"prompt_tokens": 9}}},
            "lift": {"tomi": lift},
            "lift_vs_base": None,
        }
    )
    assert round_scalars(summary) == {
        "accuracy/tomi/overall/n": 4.0,
        "accuracy/tomi/overall/accuracy": 0.5,
        "lift/tomi/before/all/n": 4.0,
        "lift/tomi/before/all/accuracy": 0.5,
        "lift/tomi/after/all/n": 4.0,
        "lift/tomi/after/all/accuracy": 0.5,
        "lift/tomi/lift/all": 10.0,
    }
