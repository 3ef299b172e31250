"""The embedded server's KV-cache block size, side by side: generation and log-prob scoring.

vLLM's prefix cache reuses whole blocks only. The CPU build's own block is 128 tokens, longer
than the part most ToM prompts share (the chat template and system prompt, a story asked
several questions, the options of one item), so nothing is reused; the project's default is
32. Each arm starts its own server (``--arms``, block sizes; ``0``: vLLM's own) and times, on
the same ToMi test items:

- ``generate``: the evaluation's chat prompts (system prompt, rendered question), greedy, at
  most ``--max-tokens`` tokens;
- ``score, echo``: log-prob scoring of every option by prompt log-probs, one request per item
  (the form scoring used before; vLLM never reads its prefix cache for it);
- ``score, generation``: scoring as ``ServerScorer`` and the evaluation do now (greedy
  generation requests after the context, ``logprob_token_ids``).

Arms run in the given order, then again in reverse (``--rounds``), each round on a fresh server,
so a drift in the machine's speed hits both; each job sends its own ``cache_salt``, so none
reads what another left in the prefix cache. Prints items/s per arm and job, the ratios to the
first arm's same job and to the first arm's ``score, echo`` (scoring as it was), and the largest
score difference between forms; writes ``bench/results/server_block_size.txt``.

    python bench/server_block_size.py                     # arms 0 (vLLM's 128 on CPU) and 32
    python bench/server_block_size.py --arms 0 32 64 --n 100
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from logprob_scoring import TOMI, Item, scoring_pairs
from provenance import recorded
from serving import SaltedClient
from tomflywheel.asking import render_prompt
from tomflywheel.config import EmbeddedServerSettings, EvalSettings, LLMSettings
from tomflywheel.datasets import load_benchmark
from tomflywheel.llm import ContentClient, embedded_server, run_batch
from tomflywheel.llm._logprob import score_by_echo, score_pairs
from tomflywheel.llm._token_scoring import FEATURE
from tomflywheel.schema import Sample

MODEL = "smollm2-135m-instruct"
JOBS = ("generate", "score, echo", "score, generation")


def _messages(sample: Sample) -> list[dict[str, str]]:
    rendered = render_prompt(
        sample, completion=False, shuffled=None, settings=EvalSettings(), endpoint="chat"
    )
    return rendered.messages or []


async def _job(
    base_url: str,
    job: str,
    samples: list[Sample],
    items: list[Item],
    args: argparse.Namespace,
    *,
    salt: str,
) -> tuple[float, list[list[float]]]:
    """Seconds for one job over every item, and the scores (empty for ``generate``)."""  # fmt: skip
    settings = LLMSettings(
        base_urls=[base_url], model=MODEL, concurrency=args.concurrency, cache=False
    )
    async with SaltedClient(settings) as client:
        client.salt = salt
        score: Callable[[ContentClient, Item], Awaitable[list]] = (
            score_by_echo if job == "score, echo" else score_pairs
        )
        started = time.perf_counter()
        if job == "generate":
            await run_batch(
                samples,
                lambda s: client.chat(_messages(s), max_tokens=args.max_tokens, temperature=0.0),
                concurrency=args.concurrency,
            )
            return time.perf_counter() - started, []
        scored = await run_batch(items, lambda i: score(client, i), concurrency=args.concurrency)
        seconds = time.perf_counter() - started
        if job == "score, generation" and not client.server_features.get(FEATURE, True):
            raise SystemExit("the server turned the generation form down: nothing to compare")
        return seconds, [[s.logprob for s in item] for item in scored]


async def _arm(
    base_url: str, samples: list[Sample], items: list[Item], args: argparse.Namespace
) -> dict[str, tuple[float, list[list[float]]]]:
    warm = samples[: args.concurrency]
    await _job(base_url, "generate", warm, [], args, salt="warm-up")  # not counted
    return {job: await _job(base_url, job, samples, items, args, salt=job) for job in JOBS}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--arms", type=int, nargs="+", default=[0, 32])
    parser.add_argument("--tomi", type=Path, default=TOMI / "tomi_balanced_story_types")
    parser.add_argument("--n", type=int, default=100, help="ToMi test items")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=EvalSettings().generation.max_tokens)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "server_block_size.txt"
    )
    args = parser.parse_args()
    samples = load_benchmark("tomi", args.tomi, split="test")[: args.n]
    items = [scoring_pairs(s) for s in samples]
    load = os.getloadavg()
    seconds = {(arm, job): 0.0 for arm in args.arms for job in JOBS}
    scores: dict[tuple[int, str], list[list[float]]] = {}
    for round_ in range(args.rounds):
        for arm in args.arms if round_ % 2 == 0 else list(reversed(args.arms)):
            settings = EmbeddedServerSettings(served_model_name=MODEL, block_size=arm or None)
            with embedded_server(settings, print) as server:
                figures = asyncio.run(_arm(server.base_url, samples, items, args))
            for job, (spent, scored) in figures.items():
                seconds[arm, job] += spent
                scores[arm, job] = scored
    title = "the embedded server's KV-cache block size: generation and log-prob scoring"
    with recorded(args.out, title):
        _table(args, seconds, scores, load)


def _table(
    args: argparse.Namespace,
    seconds: dict[tuple[int, str], float],
    scores: dict[tuple[int, str], list[list[float]]],
    load: tuple[float, float, float],
) -> None:
    total = args.n * args.rounds
    print(f"load average before the runs (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, "
          f"{load[2]:.2f} on {os.cpu_count()} CPUs")  # fmt: skip
    print(
        f"{args.n} ToMi test items x {args.rounds} rounds (a fresh server per arm and round), "
        f"concurrency {args.concurrency}, generation at most {args.max_tokens} tokens"
    )
    first = args.arms[0]
    before = total / seconds[first, "score, echo"]
    for arm in args.arms:
        name = f"block {arm}" if arm else "block vLLM's"
        for job in JOBS:
            rate = total / seconds[arm, job]
            line = (
                f"{name:13s} {job:18s} {rate:6.2f} items/s ({seconds[arm, job]:6.1f} s)  "
                f"{rate / (total / seconds[first, job]):.2f}x the first arm"
            )
            if job.startswith("score"):
                line += f"  {rate / before:.2f}x scoring before (first arm, echo)"
            print(line)
    scored = [values for key, values in scores.items() if values]
    worst = max(
        abs(a - b)
        for values in scored
        for item_a, item_b in zip(values, scored[0], strict=True)
        for a, b in zip(item_a, item_b, strict=True)
    )
    print(f"largest score difference between forms and arms: {worst:.2e}")


if __name__ == "__main__":
    main()
