"""A held-out pass at several client concurrencies: same sets, same server, side by side.

The closed loop's held-out pass (ToMi *test* targets and controls, BigToM forward belief; each
scored by rules on a greedy reply and by log-prob over its options) runs once per
``llm.concurrency`` in ``--concurrencies``, on one embedded server (or ``--base-url``), with the
request cache off. The server's prefix cache is emptied before every arm (vLLM's
``/reset_prefix_cache``, served in its dev mode, which this bench's embedded server runs in), so
no arm reuses another's prompts; arms run in mirrored order across rounds.

Prints each arm's seconds per round, items/s, the ratio to the first arm, and the lowest
concurrency the client fell to (below the asked one: it met overload and backed off).

    python bench/heldout_concurrency.py                    # 8,16,32,64; 200 ToMi + 100 BigToM
    python bench/heldout_concurrency.py --concurrencies 8,64 --rounds 1 --tomi 40 --bigtom 20
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

from closed_loop import BENCHMARKS, balanced, bigtom_forward_belief
from provenance import machine_load, recorded
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import DatasetRef, EmbeddedServerSettings, Settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.evaluation import EvalSummary, run_evaluation
from tomflywheel.flywheel._round import heldout_refs
from tomflywheel.llm import embedded_server
from tomflywheel.llm._reload import reset_prefix_cache


def heldout_sets(work: Path, args: argparse.Namespace) -> list[DatasetRef]:
    """The closed loop's held-out sets as a round measures them (``heldout_refs``)."""
    tomi = load_benchmark("tomi", BENCHMARKS / "tomi" / "tomi_balanced_story_types", split="test")
    files = {
        "tomi_test_heldout": balanced(tomi, args.tomi),
        "bigtom_heldout": bigtom_forward_belief(
            load_benchmark("bigtom", BENCHMARKS / "bigtom"), args.bigtom
        ),
    }
    heldout = []
    for name, samples in files.items():
        if samples:
            write_jsonl_atomic(work / f"{name}.jsonl", samples)
            heldout.append({"path": str(work / f"{name}.jsonl"), "judge": "rules"})
    return heldout_refs(Settings.model_validate({"flywheel": {"heldout": heldout}}))


def one_pass(
    base_url: str, model: str, sets: list[DatasetRef], concurrency: int, work: Path
) -> tuple[float, EvalSummary]:
    """Seconds of one held-out pass (predict, judge, metric), and its summary."""
    reset_prefix_cache(base_url.removesuffix("/v1"))
    settings = Settings.model_validate(
        {
            "server": "external",
            "llm": {
                "base_urls": [base_url],
                "model": model,
                "concurrency": concurrency,
                "cache": False,
            },
            "eval": {"datasets": sets, "results_dir": str(work)},
        }
    )
    started = time.perf_counter()
    summary = run_evaluation(settings, stages=("predict", "judge", "metric"))
    return time.perf_counter() - started, summary


def measure(base_url: str, model: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sets = heldout_sets(work, args)
        items = (args.tomi + args.bigtom) * 2  # each item by rules and by log-prob
        print(
            f"held-out pass: {args.tomi} ToMi test + {args.bigtom} BigToM items, each by rules "
            f"and by log-prob ({items} scorings); {args.rounds} round(s), arms in mirrored "
            f"order, prefix cache emptied before each arm; load average before {machine_load()}"
        )
        seconds: dict[int, list[float]] = {c: [] for c in args.concurrencies}
        lowest = {concurrency: concurrency for concurrency in args.concurrencies}
        for round_ in range(args.rounds):
            order = args.concurrencies if round_ % 2 == 0 else args.concurrencies[::-1]
            for concurrency in order:
                took, summary = one_pass(
                    base_url, model, sets, concurrency, work / f"r{round_}-c{concurrency}"
                )
                seconds[concurrency].append(took)
                low = int(summary.usage.get("concurrency_lowest") or concurrency)
                lowest[concurrency] = min(low, lowest[concurrency])
                print(f"round {round_ + 1} concurrency {concurrency:3d}: {took:6.1f} s", flush=True)
    first = statistics.mean(seconds[args.concurrencies[0]])
    for concurrency, runs in seconds.items():
        mean = statistics.mean(runs)
        print(
            f"concurrency {concurrency:3d}: {mean:6.1f} s per pass ({items / mean:5.2f} "
            f"scorings/s)  x{first / mean:.2f} of concurrency {args.concurrencies[0]}  "
            f"lowest concurrency reached {lowest[concurrency]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--concurrencies",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[8, 16, 32, 64],
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tomi", type=int, default=200, help="ToMi test items (half targets)")
    parser.add_argument("--bigtom", type=int, default=100, help="BigToM forward-belief items")
    parser.add_argument("--base-url", help="an existing vLLM server in dev mode; default: embedded")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--out", type=Path, help="also write what is printed here")
    args = parser.parse_args()
    if not BENCHMARKS.is_dir():
        sys.exit(f"needs the public ToMi and BigToM files at {BENCHMARKS}")
    title = "held-out pass by client concurrency"
    with recorded(args.out, title) if args.out else contextlib.nullcontext():
        if args.base_url:
            measure(args.base_url, args.model, args)
            return
        started = time.perf_counter()
        settings = EmbeddedServerSettings(served_model_name=args.model)
        # swappable: vLLM's dev mode, which serves /reset_prefix_cache
        with embedded_server(settings, swappable=True) as server:
            print(f"embedded server ready in {time.perf_counter() - started:.1f} s")
            measure(server.base_url, args.model, args)


if __name__ == "__main__":
    main()
