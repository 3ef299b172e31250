"""One process of a multi-process run: ``python -m tomflywheel.train._worker SPEC.json``.

Started by ``launch_processes`` through torchrun; runs ``train_model`` with the spec's
arguments and prints the main process's progress on stdout for the launcher.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.train._launch import report_progress
from tomflywheel.train._sft import train_model


def main(spec_path: str) -> None:
    """Train as the spec says (every process runs this; rank 0 writes the folder)."""
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    train_model(
        Path(spec["data"]),
        base=Path(spec["base"]),
        out=Path(spec["out"]),
        settings=TrainSettings.model_validate(spec["settings"]),
        eval_settings=EvalSettings.model_validate(spec["eval_settings"]),
        on_progress=report_progress,
        overwrite=spec["overwrite"],
    )


if __name__ == "__main__":
    main(sys.argv[1])
