"""ContentClient vs the bare AsyncOpenAI client: same prompts shape, same concurrency, same server.

Prints requests/s of both and the ratio ContentClient / bare (goal >= 0.95: the client must keep
the server saturated). Each arm gets its own prompt set of identical shape (so vLLM's prefix cache
favours neither) and every request generates exactly ``--max-tokens`` tokens (``ignore_eos``).
Arms alternate over several rounds to spread any drift in the server's speed.

    python bench/llm_throughput.py                 # starts the embedded server
    python bench/llm_throughput.py --base-url http://127.0.0.1:8000/v1 --model NAME
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import openai

from serving import add_server_arguments, measure_on_server
from tomflywheel.config import LLMSettings
from tomflywheel.llm import ContentClient, run_batch


def prompts(arm: str, round_: int, n: int) -> list[str]:
    return [f"[{arm}-{round_}] Write one sentence about item number {i}." for i in range(n)]


async def bare_arm(
    base_url: str, model: str, items: list[str], concurrency: int, max_tokens: int
) -> float:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0, timeout=300)
    semaphore = asyncio.Semaphore(concurrency)

    async def one(prompt: str) -> None:
        async with semaphore:
            await client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": prompt}],
                max_tokens=max_tokens,
                temperature=0.0,
                extra_body={"ignore_eos": True},
            )

    started = time.perf_counter()
    await asyncio.gather(*(one(p) for p in items))
    elapsed = time.perf_counter() - started
    await client.close()
    return elapsed


async def content_arm(settings: LLMSettings, items: list[str], max_tokens: int) -> float:
    async with ContentClient(settings) as client:

        async def one(prompt: str) -> None:
            await client.chat(
                [{"role": "user", "content": prompt}],
                max_tokens=max_tokens,
                temperature=0.0,
                ignore_eos=True,
            )

        started = time.perf_counter()
        await run_batch(items, one, concurrency=client.concurrency)
        elapsed = time.perf_counter() - started
        assert client.stats.requests_sent == len(items), "every request must reach the server"
    return elapsed


async def measure(base_url: str, model: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = LLMSettings(
            base_urls=[base_url],
            model=model,
            concurrency=args.concurrency,
            cache_path=Path(tmp) / "requests.sqlite",  # a fresh cache: real cost of writing it
        )
        await bare_arm(base_url, model, prompts("warm", 0, args.concurrency), args.concurrency, 4)
        times = {"bare": 0.0, "content": 0.0}
        for round_ in range(args.rounds):
            times["bare"] += await bare_arm(
                base_url, model, prompts("bare", round_, args.n), args.concurrency, args.max_tokens
            )
            times["content"] += await content_arm(
                settings, prompts("content", round_, args.n), args.max_tokens
            )
    total = args.n * args.rounds
    bare_rps, content_rps = total / times["bare"], total / times["content"]
    print(
        f"requests per arm: {total} ({args.rounds} x {args.n}), concurrency {args.concurrency}, "
        f"max_tokens {args.max_tokens}"
    )
    print(f"bare AsyncOpenAI : {bare_rps:8.2f} requests/s  ({times['bare']:.1f} s)")
    print(f"ContentClient    : {content_rps:8.2f} requests/s  ({times['content']:.1f} s)")
    print(f"ratio ContentClient/bare: {content_rps / bare_rps:.3f}  (goal >= 0.95)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_server_arguments(parser)
    parser.add_argument("--n", type=int, default=128, help="requests per arm per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=16)
    args = parser.parse_args()
    measure_on_server(args, measure)


if __name__ == "__main__":
    main()
