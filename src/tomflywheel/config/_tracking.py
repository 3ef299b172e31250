"""Where metrics are also logged for a dashboard: nowhere (default), TensorBoard, W&B, MLflow."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from tomflywheel.config._base import Strict

TrackingBackend = Literal["none", "tensorboard", "wandb", "mlflow"]


class TrackingSettings(Strict):
    """Experiment tracking: evaluation metrics, and each flywheel round's accuracy and lift.

    Everything is written offline under ``dir``; nothing is sent anywhere (W&B runs in offline
    mode, MLflow to a local file store). The files of the run are the record either way.
    """

    to: TrackingBackend = "none"
    """``none``, ``tensorboard`` (event files; ``tensorboard --logdir <dir>``), ``wandb``
    (offline; needs ``pip install wandb``) or ``mlflow`` (file store; needs ``pip install
    mlflow``)."""
    dir: Path = Path("runs/tracking")
    """Where the tracking files go, one sub-folder per evaluation or flywheel run."""
