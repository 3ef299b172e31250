"""Experiment tracking: metrics also logged to TensorBoard, W&B or MLflow, offline.

``open_tracker(settings, run)`` yields a :class:`Tracker` whose ``log(scalars, step)`` writes
to the backend ``tracking.to`` names (``none``: nothing, the default). The backends' libraries
are imported only when chosen; a missing one is a ``ConfigError`` saying what to install.
Nothing is sent anywhere: TensorBoard event files and MLflow's file store are local, and W&B
runs in offline mode (``wandb sync`` uploads later, if ever).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

from tomflywheel.config import TrackingSettings
from tomflywheel.errors import ConfigError

_UNSAFE = re.compile(r"[^\w.-]+")


class Tracker(Protocol):
    """Where scalars go."""

    def log(self, scalars: Mapping[str, float], step: int = 0) -> None:
        """Record ``scalars`` (name -> value) at ``step``."""


class _Nowhere:
    def log(self, scalars: Mapping[str, float], step: int = 0) -> None:
        return None


class _TensorBoard:
    def __init__(self, folder: Path) -> None:
        from tensorboardX import SummaryWriter

        self.writer = SummaryWriter(logdir=str(folder))

    def log(self, scalars: Mapping[str, float], step: int = 0) -> None:
        for name, value in scalars.items():
            self.writer.add_scalar(name, value, global_step=step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


class _WandB:
    def __init__(self, folder: Path, run: str) -> None:
        import wandb

        folder.mkdir(parents=True, exist_ok=True)
        self.run = wandb.init(
            project="tomflywheel", name=run, dir=str(folder), mode="offline", reinit=True
        )

    def log(self, scalars: Mapping[str, float], step: int = 0) -> None:
        self.run.log(dict(scalars), step=step)

    def close(self) -> None:
        self.run.finish()


class _MLflow:
    def __init__(self, folder: Path, run: str) -> None:
        import mlflow

        mlflow.set_tracking_uri((folder / "mlruns").resolve().as_uri())
        self.mlflow = mlflow
        self.run = mlflow.start_run(run_name=run)

    def log(self, scalars: Mapping[str, float], step: int = 0) -> None:
        self.mlflow.log_metrics(dict(scalars), step=step)

    def close(self) -> None:
        self.mlflow.end_run()


_INSTALL = {"tensorboard": "tensorboardX", "wandb": "wandb", "mlflow": "mlflow"}


@contextlib.contextmanager
def open_tracker(settings: TrackingSettings, run: str) -> Iterator[Tracker]:
    """A tracker for one evaluation or flywheel run (``run`` names its folder or run).

    Raises:
        ConfigError: The backend's library is not installed.
    """
    if settings.to == "none":
        yield _Nowhere()
        return
    folder = Path(settings.dir)
    try:
        if settings.to == "tensorboard":
            tracker: Any = _TensorBoard(folder / _UNSAFE.sub("_", run))
        elif settings.to == "wandb":
            tracker = _WandB(folder, run)
        else:
            tracker = _MLflow(folder, run)
    except ImportError as err:
        package = _INSTALL[settings.to]
        raise ConfigError(
            f"tracking.to: {settings.to} needs {package} (pip install {package}): {err}"
        ) from err
    try:
        yield tracker
    finally:
        tracker.close()


def scalars(data: Any, prefix: str = "", *, skip: frozenset[str] = frozenset()) -> dict[str, float]:
    """The finite numbers in nested mappings, keyed by their path (``tomi/overall/accuracy``).

    Booleans, None, strings and lists are left out, as are sub-trees named in ``skip``.
    """
    out: dict[str, float] = {}
    if isinstance(data, Mapping):
        for key, value in data.items():
            if str(key) in skip:
                continue
            name = f"{prefix}/{key}" if prefix else str(key)
            out.update(scalars(value, name, skip=skip))
    elif isinstance(data, int | float) and not isinstance(data, bool) and math.isfinite(data):
        out[prefix] = float(data)
    return out
