"""The shortcut audit of the public benchmarks (ToMi, Hi-ToM, BigToM) and of the bundled sets.

For each question family: items, chance, the best non-ToM heuristic (accuracy and 95% Wilson
interval), the held-out surface probe, and which heuristics exceed chance + 10 points. Reads
``$TOMFLYWHEEL_BENCHMARKS`` (default ``../shared/benchmarks``); prints a markdown table.

    .venv/bin/python bench/shortcut_audit.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tomflywheel.audit import PROBE, audit_samples
from tomflywheel.datasets import load_benchmark
from tomflywheel.schema import read_samples

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TOMFLYWHEEL_BENCHMARKS") or ROOT.parent / "shared" / "benchmarks")


def _sets() -> dict[str, list]:
    sets = {}
    sources = {
        "ToMi test": ("tomi", SHARED / "tomi" / "tomi_balanced_story_types", {"split": "test"}),
        "Hi-ToM": ("hitom", SHARED / "hitom" / "Hi-ToM_data.json", {}),
        "BigToM": ("bigtom", SHARED / "bigtom", {}),
    }
    for label, (name, path, options) in sources.items():
        if path.exists():
            sets[label] = list(load_benchmark(name, path, **options))
        else:
            print(f"skipped {label}: {path} not found", file=sys.stderr)
    for path in sorted((ROOT / "data").glob("*/*.jsonl")):
        sets[f"bundled {path.stem}"] = list(read_samples(path))
    return sets


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def main() -> None:
    print("| set | family | n | chance % | best heuristic (acc %, 95% CI) | probe % | flagged |")
    print("|---|---|---:|---:|---|---:|---|")
    for label, samples in _sets().items():
        started = time.perf_counter()
        report = audit_samples(samples, margin=0.10, min_items=20)
        for family, n in report.families.items():
            rows = [r for r in report.rows if r.family == family]
            heuristics = [r for r in rows if r.heuristic != PROBE and r.accuracy is not None]
            probe = next((r for r in rows if r.heuristic == PROBE), None)
            best = max(heuristics, key=lambda r: (r.accuracy, r.heuristic), default=None)
            chance = next((r.chance for r in rows if r.chance is not None), None)
            best_text = (
                f"{best.heuristic} ({_pct(best.accuracy)}, "
                f"{_pct(best.ci95[0])}–{_pct(best.ci95[1])})"
                if best and best.ci95
                else "–"
            )
            flagged = ", ".join(r.heuristic for r in rows if r.flagged) or (
                "" if any(r.asks_mind for r in rows) else "(world question)"
            )
            print(
                f"| {label} | {family.split(' · ')[-1]} | {n} | {_pct(chance)} | {best_text} | "
                f"{_pct(probe.accuracy) if probe else '–'} | {flagged} |"
            )
        print(
            f"{label}: {len(samples)} samples audited in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
