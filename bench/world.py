"""World-engine speed against the tgtom benchmark's public scripts, as whole processes.

Two jobs, each timed as the processes a user would run (start-up and imports included), our
side and the reference side alternating over ``--repeat`` rounds; wall time and peak memory
(the largest resident set of the job's processes) per side:

(a) generate ``--n`` stories with all 12 question types: ``tomflywheel datasets generate tgtom``
    (its default, one worker process per core; and ``--workers 1``, one process, as a second
    row) against the reference's ``gen_v10.py`` followed by its four question scripts
    (``higher_order_beliefs_v10.py``, ``counterfactual_beliefs_v10.py``,
    ``causal_beliefs_v10.py``, ``common_knowledge_v10.py``), which run in one process each;
(b) check them with two independent verifiers: ``world_check.py`` beside this file, a script
    calling ``world.verify_file`` (every question re-derived by the forward tracker and by the
    temporal belief graph from the samples' traces, compared with the gold; one worker process
    per core, and one process as a second row) against the reference's ``verify_v10.py`` and
    ``verify_graph_v10.py``.

The reference is not part of this repository: ``--reference DIR`` names a checkout of
``singularity4/TemporalGraph-ToM`` (the folder holding ``scripts/``). Its scripts read and write
hard-coded ``/mnt/user-data/outputs/...`` paths, some ``v10/`` and some ``v11/data/`` for the same
files; the bench runs copies whose only change is that both point to one temporary folder (and
``gen_v10.py``'s story count is ``--n``).
Without ``--reference`` only our side runs, and the output says that no ratio was measured.

    python bench/world.py --reference ~/src/TemporalGraph-ToM      # both sides, ratios
    python bench/world.py                                          # ours only

Before the timed rounds, both sides' Python files are compiled to bytecode once, as an install
does: a machine that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every imported
module of ours again in every process (the reference's scripts run as ``__main__``, which Python
never caches, and import only the standard library).

The table goes to ``bench/results/world.txt`` (``--out``) under the command and commit.
"""

from __future__ import annotations

import argparse
import compileall
import filecmp
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import tomflywheel
from provenance import recorded

GENERATE_SCRIPTS = (
    "gen_v10.py",
    "higher_order_beliefs_v10.py",
    "counterfactual_beliefs_v10.py",
    "causal_beliefs_v10.py",
    "common_knowledge_v10.py",
)
CHECK_SCRIPTS = ("verify_v10.py", "verify_graph_v10.py")
_DATA = "/mnt/user-data/outputs/v11/data"
_CODE = "/mnt/user-data/outputs/v10"


@dataclass
class Run:
    """One job's processes: summed wall time, the largest peak resident set."""

    wall_s: float = 0.0
    peak_mib: float = 0.0

    def add(self, other: Run) -> None:
        self.wall_s += other.wall_s
        self.peak_mib = max(self.peak_mib, other.peak_mib)


def run_process(command: list[str], cwd: Path) -> Run:
    """Run one process to its end; its wall time and peak RSS (``wait4`` of that child)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=False
    )
    stderr = process.stderr.read() if process.stderr else b""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        tail = stderr.decode("utf-8", "replace")[-2000:]
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{tail}")
    return Run(wall, usage.ru_maxrss / 1024)  # Linux reports kilobytes


def prepare_reference(reference: Path, work: Path, n: int) -> Path:
    """Copies of the reference scripts reading and writing under ``work`` instead of /mnt."""
    source = reference / "scripts" if (reference / "scripts").is_dir() else reference
    code = work / "code"  # the scripts, their data and the verify_v10 they import, together
    code.mkdir(parents=True)
    for name in GENERATE_SCRIPTS + CHECK_SCRIPTS:
        path = source / name
        if not path.is_file():
            raise SystemExit(f"--reference: {path} not found")
        text = path.read_text(encoding="utf-8")
        text = text.replace(_DATA, str(code)).replace(_CODE, str(code))
        if name == "gen_v10.py":
            text, count = re.subn(r"def main\(n=\d+", f"def main(n={n}", text)
            if count != 1:
                raise SystemExit(f"--reference: {path}: no 'def main(n=...' to set --n")
        if "/mnt/user-data" in text:
            raise SystemExit(f"--reference: {path} names another /mnt/user-data path")
        (code / name).write_text(text, encoding="utf-8")
    return code


def compile_bytecode(*folders: Path) -> None:
    """Compile every Python file under the folders once (into their ``__pycache__``)."""
    for folder in folders:
        if not compileall.compile_dir(folder, quiet=1):
            raise SystemExit(f"{folder}: a Python file does not compile")


def reference_job(code: Path, scripts: tuple[str, ...]) -> Run:
    run = Run()
    for name in scripts:
        run.add(run_process([sys.executable, str(code / name)], code))
    return run


def ours_generate(out: Path, n: int, seed: int, workers: int) -> Run:
    command = [sys.executable, "-m", "tomflywheel", "datasets", "generate", "tgtom"]
    options = ["--n", str(n), "--seed", str(seed), "--workers", str(workers), "-o", str(out)]
    return run_process([*command, *options], out.parent)


def ours_check(path: Path, workers: int) -> Run:
    script = Path(__file__).resolve().with_name("world_check.py")
    return run_process([sys.executable, str(script), str(path), str(workers)], path.parent)


def _row(job: str, side: str, run: Run, rounds: int, n: int) -> str:
    wall = run.wall_s / rounds
    rate = n / wall
    return f"{job:9s} {side:10s} {wall:7.2f} s  {rate:8.0f} stories/s  peak {run.peak_mib:6.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=1000, help="stories")
    parser.add_argument("--seed", type=int, default=0, help="our generator's seed")
    parser.add_argument("--repeat", type=int, default=5, help="alternated rounds per side")
    parser.add_argument("--reference", type=Path, help="a TemporalGraph-ToM checkout")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "results" / "world.txt"
    )
    args = parser.parse_args()

    load = os.getloadavg()  # before the runs: a busy machine slows both sides, not equally
    keys = ("gen ours", "gen ours-1", "gen ref", "check ours", "check ours-1", "check ref")
    totals = {key: Run() for key in keys}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        code = prepare_reference(args.reference, work / "ref", args.n) if args.reference else None
        ours, ours_one = work / "tgtom.jsonl", work / "tgtom-1.jsonl"
        compile_bytecode(Path(tomflywheel.__file__).parent, *([code] if code else []))
        for round_ in range(args.repeat):
            sides = ["ours", "ref"] if round_ % 2 == 0 else ["ref", "ours"]
            for side in sides:
                if side == "ours":
                    totals["gen ours"].add(ours_generate(ours, args.n, args.seed, 0))
                    totals["gen ours-1"].add(ours_generate(ours_one, args.n, args.seed, 1))
                    # Compared in chunks: this process's size counts in its children's peaks.
                    if not filecmp.cmp(ours, ours_one, shallow=False):
                        raise SystemExit("one worker and several wrote different bytes")
                    totals["check ours"].add(ours_check(ours, 0))
                    totals["check ours-1"].add(ours_check(ours, 1))
                elif code is not None:
                    totals["gen ref"].add(reference_job(code, GENERATE_SCRIPTS))
                    totals["check ref"].add(reference_job(code, CHECK_SCRIPTS))

    title = "world engine against the tgtom benchmark's public scripts, as whole processes"
    with recorded(args.out, title):
        print(f"load average before the runs (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, "
              f"{load[2]:.2f} on {os.cpu_count()} CPUs")  # fmt: skip
        flag = "set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "not set"
        print(f"bytecode: both sides' files compiled once before the runs "
              f"(PYTHONDONTWRITEBYTECODE is {flag} here)")  # fmt: skip
        print(f"{args.n} stories, {args.repeat} alternated rounds per side, mean wall per round; "
              f"ours: {len(os.sched_getaffinity(0))} worker processes, ours-1: one")  # fmt: skip
        for job in ("gen", "check"):
            print(_row(job, "ours", totals[f"{job} ours"], args.repeat, args.n))
            print(_row(job, "ours-1", totals[f"{job} ours-1"], args.repeat, args.n))
            if code is not None:
                print(_row(job, "reference", totals[f"{job} ref"], args.repeat, args.n))
                ratio = totals[f"{job} ref"].wall_s / totals[f"{job} ours"].wall_s
                print(f"{job:9s} ours is {ratio:.2f}x the reference's speed (wall time ratio)")
                one = totals[f"{job} ref"].wall_s / totals[f"{job} ours-1"].wall_s
                print(f"{job:9s} ours-1 is {one:.2f}x the reference's speed (one process)")
        if code is None:
            print("no --reference: the reference scripts were NOT run and no ratio is measured")


if __name__ == "__main__":
    main()
