"""One closed round on this CPU: evaluate, synthesize and admit, fine-tune, re-evaluate.

SmolLM2-135M-Instruct on the embedded vLLM server. Synthesis seeds: a ToMi *val* slice and a
Hi-ToM slice; held-out sets (never seeds): a ToMi *test* slice and another Hi-ToM slice, each
scored by generation and by log-prob over its answer options (format-free). ToMi slices are
half targets (belief questions on false-belief stories), half controls; Hi-ToM slices cycle
through orders, story lengths and deception. Prints before/after accuracy on all items,
targets and controls, sample counts, and wall time per stage. Defaults finish in about 32
minutes here; larger settings are flags (for GPU machines).

    python bench/closed_loop.py                          # CPU defaults
    python bench/closed_loop.py --samples 200 --budget 400 --steps 300 --batch-size 16
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import parse_settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.flywheel import is_control, load_manifest, run_flywheel
from tomflywheel.report import lift_rows
from tomflywheel.schema import Sample

BENCHMARKS = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks"


def balanced(samples: list[Sample], n: int) -> list[Sample]:
    """The first ``n // 2`` targets and the first ``n - n // 2`` controls, in file order."""
    wanted = {False: n // 2, True: n - n // 2}  # by is_control
    chosen = []
    for sample in samples:
        if wanted[control := is_control(sample)]:
            wanted[control] -= 1
            chosen.append(sample)
    return chosen


def slices(work: Path, n: int) -> dict[str, Path]:
    """ToMi: half targets, half controls. Hi-ToM: every 20th item, which cycles through the
    orders 0-4 (0 is the reality control), story lengths 1-3 and deception; seeds and held-out
    items come from different stories."""
    tomi = BENCHMARKS / "tomi" / "tomi_balanced_story_types"
    hitom = load_benchmark("hitom", BENCHMARKS / "hitom" / "Hi-ToM_data.json")
    files = {
        "tomi_val_seed": balanced(load_benchmark("tomi", tomi, split="val"), n),
        "hitom_seed": hitom[0::20][: n // 2],
        "tomi_test_heldout": balanced(load_benchmark("tomi", tomi, split="test"), n),
        "hitom_heldout": hitom[10::20][: n // 2],
    }
    paths = {}
    for name, samples in files.items():
        paths[name] = work / f"{name}.jsonl"
        write_jsonl_atomic(paths[name], samples)
    return paths


def config(work: Path, paths: dict[str, Path], args: argparse.Namespace) -> dict:
    server = (
        {"server": "external", "llm": {"base_urls": [args.base_url], "model": args.model}}
        if (args.base_url)
        else {"server": "embedded", "llm": {}}
    )
    server["llm"].update(concurrency=args.concurrency, cache_path=str(work / "requests.sqlite"))
    return {
        **server,
        "eval": {
            "datasets": [{"path": str(paths["tomi_val_seed"])}, {"path": str(paths["hitom_seed"])}],
            "results_dir": str(work / "results"),
            "datasets_dir": str(work / "none"),
        },
        "feedback": {
            "budget": args.budget,
            "min_per_weakness": 4,
            "cross_check_rate": 0.0,
            "max_llm_diagnoses": 20,
        },
        "filter": {
            "rubric": {"min_clarity": 1, "min_solvability": 1, "require_tom": False},
            "repair": {"attempts": 0},
        },
        "train": {
            "steps": args.steps,
            "batch_size": args.micro_batch,
            "gradient_accumulation": max(1, args.batch_size // args.micro_batch),
            "gradient_checkpointing": args.micro_batch < args.batch_size,
            "max_length": args.max_length,
            "learning_rate": args.learning_rate,
            "seed": 0,
        },
        "flywheel": {
            "runs_dir": str(work / "runs"),
            "train_dir": str(work / "train"),
            "train": True,
            "heldout": [
                {"path": str(paths["tomi_test_heldout"])},
                {"path": str(paths["hitom_heldout"])},
            ],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=60, help="ToMi items per slice")
    parser.add_argument("--budget", type=int, default=96, help="candidates to synthesize")
    parser.add_argument("--steps", type=int, default=40, help="fine-tuning steps")
    parser.add_argument("--batch-size", type=int, default=8, help="samples per optimizer step")
    parser.add_argument("--micro-batch", type=int, default=4, help="samples per forward pass")
    parser.add_argument("--max-length", type=int, default=640, help="longest training sample")
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--base-url", help="evaluate the base model on an existing server")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--keep", type=Path, help="keep the work folder here")
    args = parser.parse_args()
    if not BENCHMARKS.is_dir():
        sys.exit(f"needs the public ToMi and Hi-ToM files at {BENCHMARKS}")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        paths = slices(work, args.samples)
        settings = parse_settings(yaml.safe_dump(config(work, paths, args)))
        started = time.perf_counter()
        result = run_flywheel(settings, run_dir=work / "runs" / "closed")
        total = time.perf_counter() - started
        summary = result.rounds[0]
        manifest = load_manifest(result.run_dir)
        print(
            f"\nclosed loop on SmolLM2-135M-Instruct, {args.samples} ToMi + {args.samples // 2} "
            f"Hi-ToM items per slice; {args.steps} steps x batch {args.batch_size}"
        )
        print(f"{'dataset':24} {'part':9} {'n':>4} {'before%':>8} {'after%':>7} {'lift':>7}")
        for _round, dataset, part, n, before, after, lift, note in lift_rows(result.rounds):
            print(f"{dataset:24} {part:9} {n:>4} {before:>8} {after:>7} {lift:>7} {note}")
        f = summary["filter"]
        trained = summary["trained"] or {}
        print(
            f"candidates {summary['candidates']['total']} · admitted {f['admitted']} · "
            f"rejected {f['rejected']} {json.dumps(f['reject_reasons'])}"
        )
        print(
            f"trained on {trained.get('samples')} samples: loss {trained.get('first_loss'):.3f} -> "
            f"{trained.get('last_loss'):.3f}"
        )
        print(
            "wall time per stage: "
            + ", ".join(
                f"{name} {stage.seconds:.0f}s" for name, stage in manifest.round(1).stages.items()
            )
            + f"; total {total:.0f}s"
        )


if __name__ == "__main__":
    main()
