"""Where a run keeps its checkpoints, and which one a restarted run resumes from."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_json
from tomflywheel.artifacts import ModelFolder
from tomflywheel.errors import ConfigError

FINGERPRINT_NAME = "run.json"
"""What the checkpoints were trained on: data hash, base model, settings, prompts."""

_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
_NOT_TRAINING = ("threads", "save_steps", "report_to")
"""Settings that change how a run is watched or paced, never what it learns."""


def checkpoint_folder(out: Path) -> Path:
    """The folder beside ``out`` that holds a run's checkpoints (``<out>.checkpoints``)."""
    return ModelFolder(Path(out)).checkpoints


def run_fingerprint(
    *, data_sha256: str, base: Path, settings: dict[str, Any], prompts: dict[str, Any]
) -> dict[str, Any]:
    """What must not change for a checkpoint to be resumed."""
    return {
        "data_sha256": data_sha256,
        "base_model": str(Path(base).resolve()),
        "settings": {k: v for k, v in settings.items() if k not in _NOT_TRAINING},
        "prompts": prompts,
    }


def complete_checkpoints(folder: Path) -> list[Path]:
    """Checkpoints in step order; one killed while being written (no trainer state) is left out."""
    if not folder.is_dir():
        return []
    found = [
        (int(match.group(1)), path)
        for path in folder.iterdir()
        if (match := _CHECKPOINT.match(path.name)) and (path / "trainer_state.json").is_file()
    ]
    return [path for _, path in sorted(found)]


def resume_point(folder: Path, fingerprint: dict[str, Any], *, overwrite: bool) -> Path | None:
    """The last complete checkpoint of an earlier run of the same training, or None.

    Raises:
        ConfigError: ``folder`` holds checkpoints of a run with other data or settings, and
            ``overwrite`` is false (with it, they are discarded).
    """
    checkpoints = complete_checkpoints(folder)
    if not checkpoints:
        return None
    stored_path = folder / FINGERPRINT_NAME
    stored = json.loads(stored_path.read_text("utf-8")) if stored_path.is_file() else None
    if stored == fingerprint:
        return checkpoints[-1]
    if not overwrite:
        raise ConfigError(
            f"{folder}: checkpoints of a run with other data or settings; delete the folder "
            "(or pass --overwrite) to start over"
        )
    clear_checkpoints(folder)
    return None


def write_fingerprint(folder: Path, fingerprint: dict[str, Any]) -> None:
    """Record what the checkpoints in ``folder`` will be trained on."""
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_json(folder / FINGERPRINT_NAME, fingerprint)


def clear_checkpoints(folder: Path) -> None:
    """Remove the checkpoints and the fingerprint; the folder too when nothing else is left."""
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if _CHECKPOINT.match(path.name) or path.name.startswith("tmp-checkpoint-"):
            shutil.rmtree(path, ignore_errors=True)
    (folder / FINGERPRINT_NAME).unlink(missing_ok=True)
    (folder / "README.md").unlink(missing_ok=True)  # TRL's model card, written with each checkpoint
    if not any(folder.iterdir()):
        folder.rmdir()
