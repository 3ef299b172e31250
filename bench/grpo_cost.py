"""What a GRPO step costs here, and where its time goes.

``train_model`` with ``method: grpo`` on SmolLM2-135M-Instruct (the bundled base, full
fine-tune, fp32) over engine-generated ToMi stories (``--n`` stories, every question type),
``--steps`` steps of ``--batch-size`` replies (``--generations`` per prompt, at most
``--max-tokens`` tokens each). The bench times, inside the same run, the model's ``generate``
calls (sampling the replies) and the reward calls; the rest of a step is TRL's log-prob
forward, the backward pass and the optimizer. It prints seconds per step, tokens/s (prompt and
reply tokens through the forward pass, as TRL counts them), the mean reward per step, the
projected time of 100 steps and the load average, and writes
``bench/results/grpo_cost.txt``.

    python bench/grpo_cost.py                     # 20 steps of 8 replies (2 prompts x 4)
    python bench/grpo_cost.py --steps 100
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from provenance import recorded
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.llm import ensure_default_model
from tomflywheel.train import train_model
from tomflywheel.world import generate

ROOT = Path(__file__).resolve().parents[1]


class Timed:
    """Wraps a callable and adds up the seconds spent in it."""

    def __init__(self, function):
        self.function = function
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return self.function(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


def instrumented(timers: dict[str, Timed]):
    """Patch transformers' ``generate`` and our reward to time them (this process only)."""
    import transformers

    from tomflywheel.train import _grpo

    timers["generate"] = Timed(transformers.GenerationMixin.generate)
    original = timers["generate"]

    def generate_timed(self, *args, **kwargs):
        return original(self, *args, **kwargs)

    transformers.GenerationMixin.generate = generate_timed
    timers["reward"] = Timed(_grpo.answer_reward)
    _grpo.answer_reward = timers["reward"]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=8, help="replies per step")
    parser.add_argument("--generations", type=int, default=4, help="replies per prompt")
    parser.add_argument("--max-tokens", type=int, default=16, help="longest reply")
    parser.add_argument("--n", type=int, default=40, help="engine ToMi stories")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "grpo_cost.txt")
    args = parser.parse_args()

    timers: dict[str, Timed] = {}
    instrumented(timers)
    settings = TrainSettings(
        method="grpo", steps=args.steps, batch_size=args.batch_size, learning_rate=1e-6,
        seed=0, threads=args.threads, max_length=640,
        grpo={"generations": args.generations, "max_completion_tokens": args.max_tokens},
    )  # fmt: skip
    title = "GRPO on SmolLM2-135M-Instruct (CPU, full fine-tune, fp32): cost per step"
    with recorded(args.out, title), tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "tomi.jsonl"
        samples = list(generate("tomi", n=args.n, seed=0))
        write_jsonl_atomic(data, samples)
        load = os.getloadavg()
        result = train_model(
            data, base=ensure_default_model(), out=Path(tmp) / "model", settings=settings,
            eval_settings=EvalSettings(),
        )  # fmt: skip
        train_s = result.manifest["train_seconds"]
        per_step = train_s / result.steps
        generate_s, reward_s = timers["generate"].seconds, timers["reward"].seconds
        rest = train_s - generate_s - reward_s
        print(
            f"{result.steps} steps of {args.batch_size} replies ({args.generations} per prompt, "
            f"at most {args.max_tokens} tokens) over {len(samples)} engine ToMi samples; "
            f"{args.threads} torch threads; load average before {load[0]:.2f} "
            f"on {os.cpu_count()} CPUs"
        )
        print(f"training {train_s:.1f} s: {per_step:.2f} s per step; 100 steps ~ "
              f"{100 * per_step / 60:.1f} min (goal: 30 min)")  # fmt: skip
        print(
            f"tokens through the forward pass {result.tokens_seen:,} "
            f"({result.tokens_seen / train_s:.0f} tokens/s); reply tokens "
            f"{result.target_tokens:,} ({result.target_tokens / train_s:.1f} tokens/s)"
        )
        for name, seconds in (("generate", generate_s), ("reward", reward_s), ("rest", rest)):
            print(f"  {name:9s} {seconds:8.1f} s  {100 * seconds / train_s:5.1f}%")
        print("  (rest: TRL's log-prob forward, the backward pass, the optimizer, logging)")
        print(f"mean reward per step: {' '.join(f'{r:.2f}' for r in result.rewards)}")


if __name__ == "__main__":
    main()
