"""The closed loop on real held-out data: does the admitted data lift belief tracking?

SmolLM2-135M-Instruct on the embedded vLLM server (or ``--base-url``). For each admitted-data
budget of the learning curve (``--budgets``) one flywheel round runs: evaluate the synthesis
seeds (a ToMi *val* slice and half of Hi-ToM's stories), diagnose, synthesize with the
targets-first plan, filter and admit (shortcut balance enforced), fine-tune the base model,
and measure the held-out sets before and after. Held-out sets are never seeds:

- ToMi *test*, half targets (belief questions whose gold differs from reality) and half
  controls, split again into convention-free items (the engine's principled ``default`` answer
  is ToMi's gold) and convention-dependent ones (ToMi's generator convention decides);
- Hi-ToM, the other half of its stories, across orders 0-4;
- BigToM forward belief, false-belief (targets) and true-belief (controls) stories:
  out of domain for the ToMi-style generator (transfer).

Scored by rules (generation) and by log-prob over the answer options; never by an LLM judge of
the model under training. Prints, per budget, held-out set and scoring: accuracy before and
after with Wilson 95% intervals for targets, controls and convention-free targets; the paired
lift with its 95% interval (on the same items, clustered by story); the reality-bias rate and the
heuristic that best explains the model's answers, before and after; admitted samples and the
CPU time of each budget.

    python bench/closed_loop.py                            # the CPU default: budget 500
    python bench/closed_loop.py --budgets 125,250,500,1000 # the learning curve
    python bench/closed_loop.py --answer-profile benchmark # ToMi's convention in synthesis
    python bench/closed_loop.py --budgets 1000 --audit-margin 0   # exact balance at admission
    python bench/closed_loop.py --hitom 0 --precisions fp32,bf16-mixed \
        --out bench/results/closed_loop_round.txt          # the round's time, fp32 vs bf16
    python bench/closed_loop.py --hitom 0 --precisions auto \
        --out bench/results/closed_loop_round_defaults.txt # the round's time at the defaults

Measured figures: ``bench/results/closed_loop_curve.txt`` (the learning curve),
``bench/results/closed_loop_round.txt``, ``closed_loop_round_defaults.txt`` and
``closed_loop_round_swap.txt`` (the round's time) and docs/flywheel.md. The client keeps
``--concurrency`` requests in flight (64, as ``llm.concurrency``; the runs recorded before this
default used 8).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml

from loop_settings import loop_settings
from provenance import machine_load, recorded
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.artifacts import AdmissionAudit, Experiment
from tomflywheel.audit import audit_item
from tomflywheel.config import AuditSettings, parse_settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.flywheel import (
    first_verdicts,
    is_control,
    load_manifest,
    paired_part,
    run_flywheel,
    story_key,
)
from tomflywheel.schema import Sample, read_samples
from tomflywheel.stats import wilson_interval

AUDIT_MARGIN = AuditSettings().margin
"""The admission audit's default margin over chance (``filter.audit.margin``)."""
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


def hitom_halves(samples: list[Sample]) -> tuple[list[Sample], list[Sample]]:
    """Hi-ToM split by story (every other story): seeds and held-out never share one."""
    stories: dict[str, int] = {}
    halves: tuple[list[Sample], list[Sample]] = ([], [])
    for sample in samples:
        index = stories.setdefault(sample.story, len(stories))
        halves[index % 2].append(sample)
    return halves


def bigtom_forward_belief(samples: list[Sample], n: int) -> list[Sample]:
    """BigToM forward-belief stories: ``n // 2`` false-belief targets, the rest true-belief."""
    wanted = {"false": n // 2, "true": n - n // 2}
    chosen = []
    for sample in samples:
        meta = sample.meta
        if meta.get("direction") != "forward" or meta.get("variable") != "belief":
            continue
        if meta.get("init_belief") != 0 or not wanted.get(meta.get("belief"), 0):
            continue
        wanted[meta["belief"]] -= 1
        tom = meta["belief"] == "false"
        chosen.append(sample.model_copy(update={"meta": {**meta, "tom": tom}}))
    return chosen


def slices(work: Path, args: argparse.Namespace) -> dict[str, Path]:
    """Seed and held-out files, written once into the work folder."""
    tomi = BENCHMARKS / "tomi" / "tomi_balanced_story_types"
    hitom_seed, hitom_heldout = hitom_halves(
        load_benchmark("hitom", BENCHMARKS / "hitom" / "Hi-ToM_data.json")
    )
    bigtom = load_benchmark("bigtom", BENCHMARKS / "bigtom")
    files = {
        "tomi_val_seed": balanced(load_benchmark("tomi", tomi, split="val"), args.seeds),
        "hitom_seed": hitom_seed[: args.hitom_seeds],
        "tomi_test_heldout": balanced(load_benchmark("tomi", tomi, split="test"), args.tomi),
        "hitom_heldout": hitom_heldout[: args.hitom],
        "bigtom_heldout": bigtom_forward_belief(bigtom, args.bigtom),
    }
    paths = {}
    for name, samples in files.items():
        if not samples:
            continue  # a size of 0 leaves this held-out set out
        paths[name] = work / f"{name}.jsonl"
        write_jsonl_atomic(paths[name], samples)
    return paths


def config(
    work: Path, paths: dict[str, Path], args: argparse.Namespace, budget: int, precision: str
) -> dict:
    """One round's settings for a budget: ``--epochs`` passes over what is admitted."""
    heldout = ("tomi_test_heldout", "hitom_heldout", "bigtom_heldout")
    return loop_settings(
        args,
        cache_path=work / "requests.sqlite",
        folder=work,
        seeds=[paths[name] for name in ("tomi_val_seed", "hitom_seed") if name in paths],
        heldout=[paths[name] for name in heldout if name in paths],
        runs_dir=work / "runs",
        train_dir=work / f"train_{budget}{_suffix(args)}",
        feedback={"budget": budget, "answer_profile": args.answer_profile},
        # epochs, not steps from the budget: admission may add complements beyond it
        train={
            "epochs": args.epochs,
            "max_length": args.max_length,
            "learning_rate": args.learning_rate,
            "precision": precision,
            "attention": args.attention,
            "seed": 0,
        },
        audit_margin=args.audit_margin,
    )


def _suffix(args: argparse.Namespace) -> str:
    """Run-folder suffix of the settings that differ from the defaults (none for those)."""
    suffix = "" if args.answer_profile == "principled" else f"_{args.answer_profile}"
    if args.audit_margin != AUDIT_MARGIN:
        suffix += f"_margin{args.audit_margin:g}"
    return suffix


def parts(samples: list[Sample]) -> dict[str, set[str]]:
    """Item ids per part: targets and controls, each split by convention where the engine reads.

    Convention-free: the engine's principled answer is the benchmark's gold; convention-dep.:
    the benchmark's labelling convention decides (ToMi's second-order no-ToM items).
    """
    out: dict[str, set[str]] = defaultdict(set)
    for sample in samples:
        role = "controls" if is_control(sample) else "targets"
        out[role].add(sample.id)
        free = audit_item(sample).convention_free
        if free is not None:
            out[f"{role}, convention-{'free' if free else 'dep.'}"].add(sample.id)
    return out


def _pct(right: int, n: int) -> str:
    if not n:
        return "–"
    low, high = wilson_interval(right, n) or (math.nan, math.nan)
    return f"{100 * right / n:5.1f} [{100 * low:4.1f},{100 * high:5.1f}]"


def _shortcuts(experiment: Experiment, label: str) -> tuple[str, str]:
    path = experiment.metrics(label)
    if not path.exists():
        return "–", "–"
    found = json.loads(path.read_text(encoding="utf-8")).get("shortcuts") or {}
    bias = (found.get("reality_bias") or {}).get("accuracy")
    return ("–" if bias is None else f"{100 * bias:.1f}%"), str(found.get("best_explained_by"))


def report(run_dir: Path, budget: int, admitted: int, seconds: float) -> None:
    """The table of one budget: every held-out set, both scorings, every part."""
    round_dir = run_dir / "round_1"
    before, after = (
        Experiment(round_dir / "heldout_before"),
        Experiment(round_dir / "heldout_after"),
    )
    print(f"\n== budget {budget}: admitted {admitted}; the round took {seconds / 60:.1f} min here")
    print(
        f"{'held-out set':28} {'part':26} {'n':>4} {'before% [95% CI]':>20} "
        f"{'after% [95% CI]':>20} {'lift pts [95% CI]':>22}"
    )
    for samples_path in sorted(before.root.glob("*/samples.jsonl")):
        label = samples_path.parent.name
        if not after.judgments(label).exists():
            continue
        first, second = first_verdicts(before, label), first_verdicts(after, label)
        samples = list(read_samples(samples_path))
        clusters = {s.id: story_key(s) for s in samples}
        for part, ids in sorted(parts(samples).items()):
            b = {i: first[i] for i in ids if i in first}
            a = {i: second[i] for i in ids if i in second}
            paired = paired_part(b, a, clusters, ids)
            lift, low, high = (paired.lift, paired.low, paired.high) if paired else (math.nan,) * 3
            print(
                f"{label:28} {part:26} {len(b):>4} {_pct(sum(b.values()), len(b)):>20} "
                f"{_pct(sum(a.values()), len(a)):>20} "
                f"{100 * lift:+6.1f} [{100 * low:+5.1f},{100 * high:+5.1f}]"
            )
        bias_before, best_before = _shortcuts(before, label)
        bias_after, best_after = _shortcuts(after, label)
        print(
            f"{'':28} reality bias {bias_before} -> {bias_after}; best-explaining heuristic "
            f"{best_before} -> {best_after}"
        )


def _audit_line(audit: AdmissionAudit | None) -> str:
    """The admitted set's audit in a few words: families and the shortcuts still flagged."""
    flagged = audit.admitted.flagged if audit else []
    families = len(audit.admitted.families) if audit else 0
    return f"{families} families, {len(flagged)} flagged" + (
        f" ({'; '.join(flagged)})" if flagged else ""
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budgets", default="500", help="admitted-data budgets, comma-separated")
    parser.add_argument("--seeds", type=int, default=120, help="ToMi val seed items")
    parser.add_argument(
        "--hitom-seeds",
        type=int,
        default=0,
        help="Hi-ToM seed items (default none: its stories are longer than --max-length 640, "
        "so every synthesized Hi-ToM sample would be dropped from training)",
    )
    parser.add_argument("--tomi", type=int, default=200, help="held-out ToMi test items")
    parser.add_argument("--hitom", type=int, default=100, help="held-out Hi-ToM items")
    parser.add_argument("--bigtom", type=int, default=100, help="held-out BigToM items")
    parser.add_argument("--epochs", type=float, default=1.0, help="passes over admitted data")
    parser.add_argument("--batch-size", type=int, default=8, help="samples per optimizer step")
    parser.add_argument(
        "--micro-batch",
        type=int,
        default=8,
        help="samples per forward pass (below --batch-size: gradient checkpointing, ~30%% slower)",
    )
    parser.add_argument("--max-length", type=int, default=640, help="longest training sample")
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument(
        "--precisions",
        default="auto",
        help="training precisions to compare, comma-separated (train.precision: auto, fp32, "
        "bf16-mixed); with several, each runs its rounds from scratch in its own folder and "
        "cache, and the round times are compared at the end",
    )
    parser.add_argument(
        "--answer-profile",
        choices=("principled", "benchmark"),
        default="principled",
        help="answer rules of synthesized ToMi-style stories (feedback.answer_profile)",
    )
    parser.add_argument(
        "--audit-margin",
        type=float,
        default=AUDIT_MARGIN,
        help="how far above chance admission lets a shortcut answer a family (filter.audit.margin)",
    )
    parser.add_argument(
        "--attention",
        choices=("auto", "sdpa", "eager"),
        default="auto",
        help="training attention kernel (train.attention; auto: eager for short SFT on a CPU)",
    )
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--base-url", help="evaluate the base model on an existing server")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--keep", type=Path, help="keep the work folder here (and resume)")
    parser.add_argument(
        "--out", type=Path, help="also write what is printed here, under the command and commit"
    )
    args = parser.parse_args()
    if not BENCHMARKS.is_dir():
        sys.exit(f"needs the public ToMi, Hi-ToM and BigToM files at {BENCHMARKS}")
    output = (
        recorded(args.out, "closed loop: one flywheel round per budget and training precision")
        if args.out
        else contextlib.nullcontext()
    )
    with output, tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        compare_rounds(work, args)


def compare_rounds(work: Path, args: argparse.Namespace) -> None:
    """Every budget's round under every training precision; their wall times side by side."""
    paths = slices(work, args)
    print(
        f"closed loop on SmolLM2-135M-Instruct: seeds {args.seeds} ToMi val + "
        f"{args.hitom_seeds} Hi-ToM; held-out {args.tomi} ToMi test, {args.hitom} Hi-ToM, "
        f"{args.bigtom} BigToM; rules and log-prob scoring only; "
        f"synthetic answers: {args.answer_profile}; batch {args.batch_size}, micro-batch "
        f"{args.micro_batch}, attention {args.attention}; client concurrency {args.concurrency}; "
        f"load average before (1, 5, 15 min) {machine_load()}"
    )
    precisions = args.precisions.split(",")
    budgets = [int(b) for b in args.budgets.split(",")]
    walls: dict[tuple[int, str], float] = {}
    for precision in precisions:
        # several precisions: each its own folder and request cache, so none reuses the
        # other's answers and every round is timed from scratch
        arm = work / precision if len(precisions) > 1 else work
        arm.mkdir(parents=True, exist_ok=True)
        for budget in budgets:
            walls[budget, precision] = run_round(arm, paths, args, budget, precision)
    if len(precisions) == 1:
        return
    print(
        "\nround wall time by training precision, each from scratch on the same seeds (the "
        "server's greedy answers to them can differ on a few items between fresh servers, so "
        "the admitted data can differ a little):"
    )
    for budget in budgets:
        first = walls[budget, precisions[0]]
        arms = "; ".join(
            f"{p} {walls[budget, p] / 60:.1f} min (x{first / walls[budget, p]:.2f} the speed "
            f"of {precisions[0]})"
            for p in precisions
        )
        print(f"budget {budget}: {arms}")


def run_round(
    work: Path, paths: dict[str, Path], args: argparse.Namespace, budget: int, precision: str
) -> float:
    """One round for a budget and a training precision: prints its tables, returns its wall time."""
    settings = parse_settings(yaml.safe_dump(config(work, paths, args, budget, precision)))
    started = time.perf_counter()
    run_dir = work / "runs" / f"budget_{budget}{_suffix(args)}"
    result = run_flywheel(settings, run_dir=run_dir)
    wall = time.perf_counter() - started
    summary = result.rounds[0]
    print(f"\n-- training precision {precision}")
    report(result.run_dir, budget, summary.filter.admitted, wall)
    trained = summary.trained.as_json() if summary.trained else {}
    manifest = load_manifest(result.run_dir)
    stages = ", ".join(
        f"{name} {stage.seconds:.0f}s" for name, stage in manifest.round(1).stages.items()
    )
    print(
        f"trained {trained.get('steps')} steps on {trained.get('samples')} samples "
        f"(loss {trained.get('first_loss')} -> {trained.get('last_loss')}); "
        f"admission audit: {_audit_line(summary.admission_audit)} (in full: "
        f"{result.run_dir / 'round_1' / 'summary.json'}); "
        f"stages: {stages}"
    )
    return wall


if __name__ == "__main__":
    main()
