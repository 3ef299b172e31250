"""Server log-prob scoring: items/s of the request forms, side by side on one server.

Four arms score the same ToMi items (the pairs the evaluation sends: every shuffled option
after the rendered context), alternating over rounds so a drift in the server's speed hits all:

- ``per-option``: one request per option (``echo``, ``logprobs=1``, ``max_tokens=1``);
- ``item, top-1``: one request per item with all its options, the same body otherwise;
- ``item, echo-only``: one request per item, ``logprobs=0``, ``max_tokens=0`` (what
  ``ServerScorer`` sent before the generation form);
- ``generation``: what ``ServerScorer`` and the evaluation send now: the item's texts
  tokenized (``/tokenize``), then greedy generation requests after the context that return
  the continuation tokens' log-probs (``logprob_token_ids``), served by the prefix cache.

vLLM never reads its prefix cache for prompt log-prob requests, so the echo arms cost the same
each round. The generation arm reads it; each (arm, round) sends its own ``cache_salt``, so no
arm reuses what another arm or an earlier round left in the cache: within one pass the
options of an item (and the questions of a story) share their context, as in an evaluation.
The embedded server's KV blocks are ``--block-size`` tokens (the project's default, 32; pass
128 for the CPU build's own, on which short prompts fill no block to share). Prints items/s
per arm, the ratios to ``per-option`` and to ``item, echo-only``, and the largest score
difference between arms (they must agree); the table goes to
``bench/results/logprob_scoring.txt`` (``--out``) under the command and commit.

    python bench/logprob_scoring.py --base-url http://127.0.0.1:8199/v1 --model NAME
    python bench/logprob_scoring.py                 # starts the embedded server
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from provenance import recorded
from serving import SaltedClient, add_server_arguments, measure_on_server
from tomflywheel.asking import scoring_request, scoring_sample
from tomflywheel.config import EvalSettings, LLMSettings
from tomflywheel.datasets import load_benchmark, task_for_sample
from tomflywheel.llm import ContentClient, continuation_logprob, run_batch
from tomflywheel.llm._logprob import score_by_echo
from tomflywheel.llm._scorers import ServerScorer
from tomflywheel.llm._token_scoring import FEATURE
from tomflywheel.schema import Sample

Item = Sequence[tuple[str, str]]
TOMI = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "tomi"


def scoring_pairs(sample: Sample) -> Item:
    """The (context, option) pairs the evaluation scores for a sample's first trial."""
    scored = scoring_sample(sample)
    settings, task = EvalSettings(), task_for_sample(sample)
    return scoring_request(sample, 0, settings=settings, task=task, scored=scored).pairs


def tomi_items(source: Path, n: int) -> list[Item]:
    """The scoring pairs of the first ``n`` ToMi test items."""
    return [scoring_pairs(s) for s in load_benchmark("tomi", source, split="test")[:n]]


async def _top1(client: ContentClient, pairs: Item) -> list[float]:
    reply = await client.complete(
        [c + o for c, o in pairs], echo=True, logprobs=1, max_tokens=1, temperature=0.0
    )
    choices = sorted(reply.raw["choices"], key=lambda choice: choice["index"])
    return [
        continuation_logprob(choice["logprobs"], len(c))[0]
        for (c, _), choice in zip(pairs, choices, strict=True)
    ]


async def per_option(client: ContentClient, items: list[Item]) -> list[list[float]]:
    async def one(item: Item) -> list[float]:
        scores = await asyncio.gather(*(_top1(client, [pair]) for pair in item))
        return [score[0] for score in scores]

    return await run_batch(items, one, concurrency=client.concurrency)  # type: ignore[return-value]


async def item_top1(client: ContentClient, items: list[Item]) -> list[list[float]]:
    return await run_batch(items, lambda item: _top1(client, item), concurrency=client.concurrency)  # type: ignore[return-value]


async def item_echo_only(client: ContentClient, items: list[Item]) -> list[list[float]]:
    async def one(item: Item) -> list[float]:
        return [score.logprob for score in await score_by_echo(client, item)]

    return await run_batch(items, one, concurrency=client.concurrency)  # type: ignore[return-value]


async def generation(client: ContentClient, items: list[Item]) -> list[list[float]]:
    results = await ServerScorer(client).score(items)
    return [[s.logprob for s in scores] for scores in results]  # type: ignore[union-attr]


ARMS: dict[str, Callable[[ContentClient, list[Item]], Awaitable[list[list[float]]]]] = {
    "per-option": per_option,
    "item, top-1": item_top1,
    "item, echo-only": item_echo_only,
    "generation": generation,
}


async def measure(base_url: str, model: str, args: argparse.Namespace) -> None:
    """Time every arm over the rounds, then write the table."""
    items = tomi_items(args.tomi, args.n)
    load = os.getloadavg()  # before the runs: a busy machine slows every arm
    settings = LLMSettings(
        base_urls=[base_url], model=model, concurrency=args.concurrency, cache=False
    )
    seconds = dict.fromkeys(ARMS, 0.0)
    scores: dict[str, list[list[float]]] = {}
    async with SaltedClient(settings) as client:
        for arm in ("item, echo-only", "generation"):  # warm-up, not counted
            await ARMS[arm](client, items[: args.concurrency])
        for round_ in range(args.rounds):
            order = list(ARMS) if round_ % 2 == 0 else list(reversed(ARMS))
            for arm in order:
                client.salt = f"{arm}:{round_}"
                started = time.perf_counter()
                scores[arm] = await ARMS[arm](client, items)
                seconds[arm] += time.perf_counter() - started
        if not client.server_features.get(FEATURE, True):
            print("the server turned the generation form down: that arm scored by echo")
    with recorded(args.out, "server log-prob scoring: items/s of the request forms, one server"):
        _table(items, seconds, scores, args, base_url, load)


def _table(
    items: list[Item],
    seconds: dict[str, float],
    scores: dict[str, list[list[float]]],
    args: argparse.Namespace,
    base_url: str,
    load: tuple[float, float, float],
) -> None:
    total = len(items) * args.rounds
    options = sum(len(item) for item in items)
    print(f"load average before the runs (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, "
          f"{load[2]:.2f} on {os.cpu_count()} CPUs")  # fmt: skip
    block = "the server's own" if args.base_url else (args.block_size or "vLLM's default")
    print(
        f"{len(items)} ToMi items ({options} options) x {args.rounds} rounds, "
        f"concurrency {args.concurrency}, server {base_url}, KV block size {block}"
    )
    per_option_rate = total / seconds["per-option"]
    echo_rate = total / seconds["item, echo-only"]
    for arm in ARMS:
        rate = total / seconds[arm]
        print(
            f"{arm:16s}: {rate:7.2f} items/s  ({seconds[arm]:.1f} s)  "
            f"{rate / per_option_rate:.2f}x per-option  {rate / echo_rate:.2f}x item, echo-only"
        )
    worst = max(
        abs(a - b)
        for arm in ARMS
        for item_a, item_b in zip(scores[arm], scores["item, top-1"], strict=True)
        for a, b in zip(item_a, item_b, strict=True)
    )
    same = sum(
        max(range(len(a)), key=a.__getitem__) == max(range(len(b)), key=b.__getitem__)
        for a, b in zip(scores["generation"], scores["item, echo-only"], strict=True)
    )
    print(f"largest score difference between arms: {worst:.2e}")
    print(f"items whose best option generation and echo-only agree on: {same}/{len(items)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_server_arguments(parser)
    parser.add_argument("--tomi", type=Path, default=TOMI / "tomi_balanced_story_types")
    parser.add_argument("--n", type=int, default=100, help="ToMi items")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "results" / "logprob_scoring.txt",
    )
    args = parser.parse_args()
    measure_on_server(args, measure)


if __name__ == "__main__":
    main()
