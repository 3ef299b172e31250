"""The evaluation's experiment folder and what the stages write and read there.

``results/<exp_id>/`` holds the resolved-config snapshot (``config.yaml``) and, per dataset, the
evaluated samples (``samples.jsonl``, ``dataset.json``), ``prediction.jsonl``,
``judgment.jsonl`` and ``metrics.json``. A stage reads another stage's output through these
functions, never through that stage's internals.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tomflywheel._io import (
    atomic_write_json,
    atomic_write_text,
    read_jsonl,
    read_text,
    require_folder,
    timestamp_name,
    write_jsonl_atomic,
)
from tomflywheel._yaml import load_yaml
from tomflywheel.artifacts._layouts import FeedbackFolder
from tomflywheel.config import DatasetRef, Settings, parse_settings
from tomflywheel.datasets import TaskSpec, task_for_sample
from tomflywheel.errors import ConfigError, UserInputError
from tomflywheel.schema import Judgment, Prediction, Sample, read_samples

logger = logging.getLogger(__name__)

CONFIG_FILE = "config.yaml"
# Settings that change what the model is asked: a resumed experiment must not mix them.
_FINGERPRINT_KEYS = (
    ("llm", "model"),
    ("llm", "endpoint"),
    ("eval", "system_prompt"),
    ("eval", "templates"),
    ("eval", "generation"),
    ("eval", "trials"),
)


@dataclass(frozen=True)
class Experiment:
    """``results/<exp_id>/``: one folder per dataset, plus tables and the HTML report."""

    root: Path

    @property
    def exp_id(self) -> str:
        """The folder's name."""
        return self.root.name

    def dataset_dir(self, label: str) -> Path:
        """Folder of one dataset's artifacts."""
        return self.root / label

    def predictions(self, label: str) -> Path:
        """``prediction.jsonl`` of a dataset."""
        return self.dataset_dir(label) / "prediction.jsonl"

    def judgments(self, label: str) -> Path:
        """``judgment.jsonl`` of a dataset."""
        return self.dataset_dir(label) / "judgment.jsonl"

    def samples(self, label: str) -> Path:
        """``samples.jsonl``: the evaluated samples of a dataset."""
        return self.dataset_dir(label) / SAMPLES_FILE

    def metrics(self, label: str) -> Path:
        """``metrics.json`` of a dataset."""
        return self.dataset_dir(label) / "metrics.json"

    @property
    def feedback(self) -> FeedbackFolder:
        """``feedback/``: what the feedback stage wrote from this experiment."""
        return FeedbackFolder.of(self.root)

    @property
    def tables_dir(self) -> Path:
        """Markdown and CSV tables."""
        return self.root / "tables"

    @property
    def report_path(self) -> Path:
        """The self-contained HTML report."""
        return self.root / "report.html"

    def labels(self) -> list[str]:
        """Datasets that have artifacts here, sorted."""
        return sorted(p.parent.name for p in self.root.glob("*/prediction.jsonl"))


def _pick(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        data = data.get(key, {}) if isinstance(data, dict) else {}
    return data


def open_experiment(settings: Settings, exp_dir: Path | None, *, create: bool = True) -> Experiment:
    """Create a new experiment, or resume ``exp_dir`` after checking it used the same settings.

    Args:
        settings: The run's settings (their snapshot becomes ``config.yaml``).
        exp_dir: The folder; ``None`` names a new one under ``eval.results_dir``.
        create: Write the folder and its ``config.yaml`` now. ``False`` only checks, so a start
            that fails its pre-flight leaves the folder as it was (``save_config`` writes later).

    Raises:
        ConfigError: ``exp_dir`` was run with settings that change the prompts or the model.
    """
    if exp_dir is None:
        exp_dir = settings.eval.results_dir / timestamp_name(settings.eval.results_dir)
    experiment = Experiment(Path(exp_dir))
    snapshot = settings.snapshot()
    config_path = experiment.root / CONFIG_FILE
    if config_path.exists():
        earlier = load_yaml(read_text(config_path)) or {}
        changed = [
            ".".join(path)
            for path in _FINGERPRINT_KEYS
            if _pick(earlier, path) != _pick(snapshot, path)
        ]
        if changed:
            raise ConfigError(
                f"{config_path}: this experiment was run with other settings "
                f"({', '.join(changed)}); use a new --exp-dir"
            )
    elif create:
        save_config(settings, experiment)
    return experiment


def save_config(settings: Settings, experiment: Experiment) -> None:
    """Write the experiment's ``config.yaml`` (the resolved settings) unless it has one."""
    config_path = experiment.root / CONFIG_FILE
    if config_path.exists():
        return
    experiment.root.mkdir(parents=True, exist_ok=True)
    snapshot = settings.snapshot()
    atomic_write_text(config_path, yaml.safe_dump(snapshot, sort_keys=False, allow_unicode=True))


def experiment_settings(exp_dir: Path) -> Settings:
    """The settings an experiment was run with (from its snapshot).

    Raises:
        ConfigError: The folder is not an experiment.
    """
    path = Path(exp_dir) / CONFIG_FILE
    if not path.exists():
        raise ConfigError(f"{exp_dir}: not an experiment folder (no {CONFIG_FILE})")
    return parse_settings(read_text(path), path)


@dataclass(frozen=True)
class LoadedDataset:
    """A dataset ready to run: its samples (after filters), task spec and judging method."""

    ref: DatasetRef
    task: TaskSpec
    judge: str
    samples: list[Sample]

    @property
    def label(self) -> str:
        """Folder name in the experiment."""
        return self.ref.label


SAMPLES_FILE = "samples.jsonl"
DATASET_FILE = "dataset.json"


def save_selection(experiment: Experiment, dataset: LoadedDataset) -> None:
    """Keep the evaluated samples and how they were judged beside the artifacts.

    The experiment then stands alone: metrics and reports re-run from the folder even if the
    dataset file has moved.
    """
    folder = experiment.dataset_dir(dataset.label)
    write_jsonl_atomic(folder / SAMPLES_FILE, dataset.samples)
    atomic_write_json(
        folder / DATASET_FILE,
        {
            "label": dataset.label,
            "source": str(dataset.ref.path),
            "task": dataset.task.name,
            "judge": dataset.judge,
            "n_samples": len(dataset.samples),
        },
    )


def load_saved_datasets(
    experiment: Experiment, labels: list[str] | None = None
) -> list[LoadedDataset]:
    """The datasets an experiment evaluated, from its own folder.

    Raises:
        ConfigError: No evaluated dataset in the folder (or a requested label is missing).
    """
    require_folder(experiment.root, "experiment folder")
    found = sorted(p.parent.name for p in experiment.root.glob(f"*/{DATASET_FILE}"))
    wanted = labels or found
    missing = [label for label in wanted if label not in found]
    if missing or not wanted:
        raise UserInputError(
            f"{experiment.root}: no evaluated dataset {', '.join(missing) or ''} here "
            f"(found: {', '.join(found) or 'none'})"
        )
    loaded = []
    for label in wanted:
        folder = experiment.dataset_dir(label)
        info = json.loads((folder / DATASET_FILE).read_text(encoding="utf-8"))
        samples = list(read_samples(folder / SAMPLES_FILE))
        loaded.append(
            LoadedDataset(
                ref=DatasetRef(path=folder / SAMPLES_FILE, name=label),
                task=task_for_sample(samples[0]),
                judge=info["judge"],
                samples=samples,
            )
        )
    return loaded


def read_predictions(path: Path) -> list[Prediction]:
    """Predictions of a dataset (a partial last line from a crash is ignored)."""
    if not path.exists():
        return []
    return list(read_jsonl(path, Prediction, tolerate_partial_tail=True))


def read_judgments(path: Path) -> list[Judgment]:
    """Judgments of a dataset (a partial last line from a crash is ignored)."""
    if not path.exists():
        return []
    return list(read_jsonl(path, Judgment, tolerate_partial_tail=True))
