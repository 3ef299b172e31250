"""Start-up time of the ``tomflywheel`` command, measured as whole processes.

Runs each command ``--runs`` times, alternating between the commands (and, with ``--baseline``,
between this checkout and an older source) so that a change in the machine's load touches all
alike, and prints the fastest and the median wall time of each, beside a bare ``python -c
pass`` (the interpreter's own start-up). Also lists the heavy libraries that importing the CLI
loads (none is the aim: each is imported where a command uses it).

    python bench/startup.py              # 10 runs of each
    python bench/startup.py --runs 20
    git archive <commit> src | tar -x -C /tmp/old
    python bench/startup.py --baseline /tmp/old/src   # that source too, side by side

What it prints is also written to ``bench/results/startup.txt`` (``--out``) under the command
and commit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import ROOT, machine_load, recorded

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


def _env(source: Path | None) -> dict[str, str] | None:
    """An environment importing the package from ``source`` (a ``src`` folder), or this one."""
    if source is None:
        return None
    return {**os.environ, "PYTHONPATH": str(source.resolve())}


def heavy_loaded(source: Path | None) -> list[str]:
    """The heavy libraries that ``import tomflywheel.cli`` loads, in a fresh process."""
    probe = f"import sys, tomflywheel.cli; print(*[m for m in {HEAVY!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=_env(source)
    )
    return done.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="Runs of each command.")
    parser.add_argument(
        "--baseline", type=Path, help="An older src folder, timed alternately with this one."
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/startup.txt")
    args = parser.parse_args()
    with recorded(args.out, "start-up of the tomflywheel command, as whole processes"):
        run(args)


def run(args: argparse.Namespace) -> None:
    """Time every command alternately, print the table and the heavy imports."""
    sources: dict[str, Path | None] = {"this": None}
    if args.baseline is not None:
        sources["baseline"] = args.baseline
    with tempfile.TemporaryDirectory() as folder:
        timed = commands(Path(folder))
        times: dict[tuple[str, str], list[float]] = {
            (label, name): [] for label in timed for name in sources
        }
        for _ in range(args.runs):
            for label, argv in timed.items():
                for name, source in sources.items():
                    start = time.perf_counter()
                    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=_env(source))
                    times[(label, name)].append(time.perf_counter() - start)
    print(f"load average before the table (1, 5, 15 min): {machine_load()}")
    print(f"{'command':<30} {'source':<9} {'fastest s':>9} {'median s':>9}   ({args.runs} runs)")
    for (label, name), values in times.items():
        ratio = ""
        if name == "this" and "baseline" in sources:
            base = statistics.median(times[(label, "baseline")])
            ratio = f"   {base / statistics.median(values):.2f}x faster than baseline (median)"
        print(f"{label:<30} {name:<9} {min(values):>9.3f} {statistics.median(values):>9.3f}{ratio}")
    for name, source in sources.items():
        heavy = ", ".join(heavy_loaded(source)) or "none"
        print(f"heavy libraries loaded by importing the CLI ({name}): {heavy}")


if __name__ == "__main__":
    main()
