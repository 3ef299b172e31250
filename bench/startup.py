"""Start-up time of the ``tomflywheel`` command, measured as whole processes.

Runs each command ``--runs`` times, alternating between them so that a change in the machine's
load touches all alike, and prints the fastest and the median wall time of each, beside a bare
``python -c pass`` (the interpreter's own start-up). Also lists the heavy libraries that
importing the CLI loads (none is the aim: each is imported where a command uses it).

    python bench/startup.py              # 10 runs of each
    python bench/startup.py --runs 20
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("sklearn", "scipy", "torch", "transformers", "vllm", "ray", "pandas", "openai", "numpy")


def commands(scratch: Path) -> dict[str, list[str]]:
    """The commands timed, by label."""
    python = sys.executable
    tool = [python, "-m", "tomflywheel"]
    return {
        "python -c pass": [python, "-c", "pass"],
        "import tomflywheel.cli": [python, "-c", "import tomflywheel.cli"],
        "tomflywheel --help": [*tool, "--help"],
        "datasets generate tomi --n 1": [
            *tool,
            "datasets",
            "generate",
            "tomi",
            "--n",
            "1",
            "--out",
            str(scratch / "one.jsonl"),
        ],
    }


def heavy_loaded() -> list[str]:
    """The heavy libraries that ``import tomflywheel.cli`` loads, in a fresh process."""
    probe = f"import sys, tomflywheel.cli; print(*[m for m in {HEAVY!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="Runs of each command.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        timed = commands(Path(folder))
        times: dict[str, list[float]] = {label: [] for label in timed}
        for _ in range(args.runs):
            for label, argv in timed.items():
                start = time.perf_counter()
                subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
                times[label].append(time.perf_counter() - start)
    print(f"{'command':<32} {'fastest s':>10} {'median s':>10}   ({args.runs} runs each)")
    for label, values in times.items():
        print(f"{label:<32} {min(values):>10.3f} {statistics.median(values):>10.3f}")
    print(f"heavy libraries loaded by importing the CLI: {', '.join(heavy_loaded()) or 'none'}")


if __name__ == "__main__":
    main()
