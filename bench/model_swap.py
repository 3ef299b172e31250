"""A round's held-out after: the trained weights swapped into the running server, or a new server.

After training, a round measures the trained model on its held-out sets. Two ways, side by side
from the same state (the base model's server running, as a round leaves it):

- ``swap``: load the trained folder's weights into the running server
  (``VLLMServer.reload``: vLLM's ``reload_weights``, then its prefix cache emptied), then the
  held-out pass on it;
- ``start``: start a second server on the trained folder beside the first (what a round did
  before, and does with ``embedded.reload_weights: false``), then the pass on it; it is stopped
  after.

Each arm's seconds include getting the model served. Between arms the running server gets the
base weights back, untimed. The sets are the closed loop's (``heldout_concurrency.heldout_sets``:
ToMi test and BigToM forward belief, by rules and by log-prob), the request cache is off, and
the arms alternate in mirrored order over ``--rounds``. Items right per set are printed per arm: the
two serve the same weights, but a server started from the trained folder reads its float32
config.json, and bf16 arithmetic depends on how requests are batched.

    python bench/model_swap.py --model-dir runs/<run>/round_1/model
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from heldout_concurrency import heldout_sets, one_pass
from provenance import machine_load, recorded
from tomflywheel.config import DatasetRef, EmbeddedServerSettings
from tomflywheel.evaluation import EvalSummary
from tomflywheel.llm import VLLMServer, ensure_default_model

BASE_NAME, TRAINED_NAME = "base", "trained"


def correct(summary: EvalSummary) -> dict[str, str]:
    """Items right per held-out set of one pass, as ``correct/n``."""
    overall = {
        outcome.label: (outcome.metrics or {}).get("overall", {}) for outcome in summary.datasets
    }
    return {label: f"{entry.get('correct')}/{entry.get('n')}" for label, entry in overall.items()}


def swap_arm(
    base: VLLMServer, trained: Path, sets: list[DatasetRef], concurrency: int, work: Path
) -> tuple[float, EvalSummary]:
    """Swap the trained weights into ``base``, measure; then the base weights back, untimed."""
    started = time.perf_counter()
    base.reload(trained)
    # Asked by the name it lists: an external endpoint's pre-flight checks it (cache off).
    pass_s, summary = one_pass(base.base_url, BASE_NAME, sets, concurrency, work)
    took = time.perf_counter() - started
    print(f"  swap:  weights in {took - pass_s:5.1f} s, pass {pass_s:5.1f} s", flush=True)
    base.reload(ensure_default_model())
    return took, summary


def start_arm(
    trained: Path, sets: list[DatasetRef], concurrency: int, work: Path
) -> tuple[float, EvalSummary]:
    """Start a second server on the trained folder beside the running one, measure, stop it."""
    settings = EmbeddedServerSettings(served_model_name=TRAINED_NAME)
    started = time.perf_counter()
    with VLLMServer(settings, model_dir=trained) as second:
        ready = time.perf_counter() - started
        pass_s, summary = one_pass(second.base_url, TRAINED_NAME, sets, concurrency, work)
    print(f"  start: server ready in {ready:5.1f} s, pass {pass_s:5.1f} s", flush=True)
    return ready + pass_s, summary


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model-dir", type=Path, required=True, help="a round's trained model")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--tomi", type=int, default=200, help="ToMi test items (half targets)")
    parser.add_argument("--bigtom", type=int, default=100, help="BigToM forward-belief items")
    parser.add_argument("--out", type=Path, help="also write what is printed here")
    args = parser.parse_args()
    if not (args.model_dir / "config.json").is_file():
        sys.exit(f"--model-dir {args.model_dir}: not a model folder (no config.json)")
    title = "held-out after: trained weights swapped into the running server vs a second server"
    with recorded(args.out, title), tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sets = heldout_sets(work, args)
        print(
            f"trained model {args.model_dir}; held-out {args.tomi} ToMi test + {args.bigtom} "
            f"BigToM items by rules and by log-prob; concurrency {args.concurrency}; "
            f"{args.rounds} rounds, arms in mirrored order; load average before {machine_load()}"
        )
        seconds: dict[str, list[float]] = {"swap": [], "start": []}
        scores: dict[str, dict[str, str]] = {}
        with VLLMServer(
            EmbeddedServerSettings(served_model_name=BASE_NAME),
            model_dir=ensure_default_model(),
            swappable=True,
        ) as base:
            for round_ in range(args.rounds):
                order = ["swap", "start"] if round_ % 2 == 0 else ["start", "swap"]
                print(f"round {round_ + 1}", flush=True)
                for arm in order:
                    out = work / f"r{round_}-{arm}"
                    if arm == "swap":
                        took, summary = swap_arm(base, args.model_dir, sets, args.concurrency, out)
                    else:
                        took, summary = start_arm(args.model_dir, sets, args.concurrency, out)
                    seconds[arm].append(took)
                    scores.setdefault(arm, correct(summary))
        swap, start = statistics.mean(seconds["swap"]), statistics.mean(seconds["start"])
        for arm, runs in seconds.items():
            each = ", ".join(f"{value:.1f}" for value in runs)
            print(f"{arm:6s} {statistics.mean(runs):6.1f} s to serve and measure ({each})")
        print(f"swap is x{start / swap:.2f} the speed of a second server")
        for name in scores["swap"]:
            print(
                f"right {name:28s} swap {scores['swap'][name]:>8s}  "
                f"start {scores['start'][name]:>8s}  (first round)"
            )


if __name__ == "__main__":
    main()
