"""The evaluation pipeline vs a bare AsyncOpenAI loop: same samples, same concurrency, same server.

Prints samples/s of both and the ratio pipeline / bare (goal >= 0.95). The pipeline arm runs
predict, judge (rules) and metric stages into a fresh experiment with a fresh request cache; the
bare arm sends the very same rendered prompts and keeps the replies in memory. The embedded
server is started with prefix caching off, so the arm that runs second gains nothing from the
first. Arms alternate order across rounds.

    python bench/eval_throughput.py                       # ToMi test slice, embedded server
    python bench/eval_throughput.py --samples 256 --concurrency 32
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import openai

from tomflywheel.asking import render_prompt
from tomflywheel.config import EmbeddedServerSettings, Settings
from tomflywheel.datasets import import_dataset
from tomflywheel.evaluation import run_evaluation
from tomflywheel.llm import embedded_server
from tomflywheel.schema import read_samples

BENCHMARKS = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks"


def pipeline_arm(
    base_url: str, model: str, data: Path, work: Path, args: argparse.Namespace
) -> float:
    settings = Settings.model_validate(
        {
            "server": "external",
            "llm": {
                "base_urls": [base_url],
                "model": model,
                "concurrency": args.concurrency,
                "cache_path": str(work / "requests.sqlite"),
            },
            "eval": {
                "datasets": [{"path": str(data), "judge": "rules"}],
                "results_dir": str(work / "results"),
                "generation": {"max_tokens": args.max_tokens},
            },
        }
    )
    started = time.perf_counter()
    summary = run_evaluation(settings, stages=("predict", "judge", "metric"))
    elapsed = time.perf_counter() - started
    assert summary.usage["requests_sent"] == args.samples, summary.usage
    return elapsed


async def bare_arm(base_url: str, model: str, data: Path, args: argparse.Namespace) -> float:
    settings = Settings().eval.model_copy(update={"generation": {"max_tokens": args.max_tokens}})
    samples = list(read_samples(data))
    prompts = [
        render_prompt(
            s, completion=False, shuffled=None, settings=settings, endpoint="chat"
        ).messages
        for s in samples
    ]
    client = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0, timeout=300)
    semaphore = asyncio.Semaphore(args.concurrency)
    replies: list[str] = []

    async def one(messages: list[dict[str, str]]) -> None:
        async with semaphore:
            reply = await client.chat.completions.create(
                model=model, messages=messages, max_tokens=args.max_tokens, temperature=0.0
            )
            replies.append(reply.choices[0].message.content or "")

    started = time.perf_counter()
    await asyncio.gather(*(one(m) for m in prompts))
    elapsed = time.perf_counter() - started
    await client.close()
    return elapsed


def measure(base_url: str, model: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        full = work / "tomi.jsonl"
        import_dataset(
            "tomi", BENCHMARKS / "tomi" / "tomi_balanced_story_types", out=full, split=args.split
        )
        data = work / "slice.jsonl"
        data.write_text(
            "".join(full.read_text(encoding="utf-8").splitlines(True)[: args.samples]),
            encoding="utf-8",
        )
        times = {"pipeline": 0.0, "bare": 0.0}
        for round_ in range(args.rounds):
            order = ("bare", "pipeline") if round_ % 2 == 0 else ("pipeline", "bare")
            for arm in order:
                if arm == "bare":
                    times["bare"] += asyncio.run(bare_arm(base_url, model, data, args))
                else:
                    times["pipeline"] += pipeline_arm(
                        base_url, model, data, work / f"r{round_}", args
                    )
    total = args.samples * args.rounds
    bare, pipe = total / times["bare"], total / times["pipeline"]
    print(
        f"samples per arm: {total} ({args.rounds} x {args.samples} ToMi {args.split}), "
        f"concurrency {args.concurrency}, max_tokens {args.max_tokens}"
    )
    print(f"bare AsyncOpenAI loop : {bare:7.2f} samples/s ({times['bare']:.1f} s)")
    print(f"evaluation pipeline   : {pipe:7.2f} samples/s ({times['pipeline']:.1f} s)")
    print(f"ratio pipeline/bare: {pipe / bare:.3f}  (goal >= 0.95)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base-url", help="an existing server; default: start the embedded one")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--split", default="val")
    args = parser.parse_args()
    if not BENCHMARKS.is_dir():
        sys.exit(f"needs the public ToMi files at {BENCHMARKS}")
    if args.base_url:
        measure(args.base_url.rstrip("/"), args.model, args)
        return
    settings = EmbeddedServerSettings(
        served_model_name=args.model, extra_args=["--no-enable-prefix-caching"]
    )
    with embedded_server(settings, print) as server:
        measure(server.base_url, args.model, args)


if __name__ == "__main__":
    main()
