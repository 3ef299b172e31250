"""Several data-parallel training processes: started with torchrun, watched from this one.

The parent writes the run's arguments to a file, starts ``torch.distributed.run`` on
``tomflywheel.train._worker`` and relays the main process's progress lines; each process runs
``train_model`` under the distributed environment torchrun sets (Accelerate picks the backend:
NCCL on GPUs, gloo on a CPU).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tomflywheel.errors import ConfigError

PROGRESS_PREFIX = "tomflywheel-progress "
"""A worker's stdout line that reports one step: the prefix, then JSON (done, total, loss)."""


def world_size() -> int:
    """Processes of the distributed run this one belongs to (1 outside one)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def is_main_process() -> bool:
    """Whether this process writes the run's outputs (rank 0, or not distributed at all)."""
    return os.environ.get("RANK", "0") == "0"


def report_progress(done: int, total: int, loss: float) -> None:
    """Print one step's progress for the launching process to read (main process only)."""
    if is_main_process():
        line = json.dumps({"done": done, "total": total, "loss": loss})
        print(f"{PROGRESS_PREFIX}{line}", flush=True)


def launch_processes(
    spec: dict[str, Any],
    processes: int,
    *,
    threads: int | None,
    on_progress: Callable[[int, int, float], None] | None,
) -> None:
    """Run the training described by ``spec`` in ``processes`` processes; wait for them.

    Args:
        spec: ``train_model``'s arguments as JSON (see ``_worker``).
        processes: How many processes (``--nproc-per-node``).
        threads: CPU threads per process (default 1: the processes share the cores).
        on_progress: Called with the main process's (done, total, loss) after each step.

    Raises:
        ConfigError: A process failed; the message ends with the end of its error output.
    """
    with tempfile.TemporaryDirectory(prefix="tomflywheel-train-") as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        errors = Path(tmp) / "stderr.log"
        env = dict(os.environ, OMP_NUM_THREADS=str(threads or 1))
        command = [
            sys.executable, "-m", "torch.distributed.run", "--standalone",
            f"--nproc-per-node={processes}", "-m", "tomflywheel.train._worker", str(spec_path),
        ]  # fmt: skip
        with (
            errors.open("w", encoding="utf-8") as stderr,
            subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env
            ) as process,
        ):
            assert process.stdout is not None
            for line in process.stdout:
                if line.startswith(PROGRESS_PREFIX) and on_progress is not None:
                    step = json.loads(line.removeprefix(PROGRESS_PREFIX))
                    on_progress(step["done"], step["total"], step["loss"])
            code = process.wait()
        if code != 0:
            tail = errors.read_text(encoding="utf-8", errors="replace")[-3000:]
            raise ConfigError(
                f"training in {processes} processes failed (exit code {code}):\n{tail}"
            )
