"""Soak: many requests through a fault-injecting proxy; nothing may be lost, doubled or changed.

A clean run sends N greedy requests straight to the server; a faulty run sends the same N
through a proxy on 127.0.0.1 that delays requests beyond a busy threshold, drops connections,
answers 503 with Retry-After, and in the middle kills the server (the embedded one, restarted
by its supervisor) or, with ``--base-url``, cuts every connection for ``--outage-s`` (a server
shared with others must not be killed). Prints completed, lost (must be 0), duplicated (must be
0), whether the answers equal the clean run's, slow-downs, p50/p99 latency, and wall times.

    .venv/bin/python bench/soak.py                       # 200 requests at concurrency 64
    .venv/bin/python bench/soak.py --full                # 2,000 at concurrency 128
    .venv/bin/python bench/soak.py --base-url http://127.0.0.1:8765/v1 --model smollm2-135m-instruct
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the proxy lives with the tests

from tests.llm._proxy import Faults, ProxyLog, fault_proxy

from tomflywheel.config import EmbeddedServerSettings, LLMSettings
from tomflywheel.llm import ContentClient, VLLMServer, embedded_server, run_batch


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="requests per run")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--full", action="store_true", help="the full size: 2,000 at 128")
    parser.add_argument("--base-url", help="an existing server (default: start the embedded one)")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--drop", type=float, default=0.05, help="share of dropped connections")
    parser.add_argument("--unavailable", type=float, default=0.05, help="share of 503 answers")
    parser.add_argument("--delay-s", type=float, default=2.0, help="delay when busy")
    parser.add_argument("--busy-above", type=int, default=16, help="in flight before delays")
    parser.add_argument("--outage-s", type=float, default=10.0, help="cut length (--base-url)")
    parser.add_argument("--timeout-s", type=float, default=5.0, help="first request deadline")
    args = parser.parse_args()
    if args.full:
        args.n, args.concurrency = 2000, 128
    return args


async def _run(
    settings: LLMSettings, prompts: list[str], max_tokens: int, midway: asyncio.Event | None
) -> tuple[list[str | None], list[int], list[float], float, ContentClient]:
    """Send every prompt; returns texts, indices in the order written, latencies, wall, client."""
    texts: list[str | None] = [None] * len(prompts)
    written: list[int] = []
    latencies: list[float] = []
    client = ContentClient(settings)

    async def ask(index: int) -> str:
        started = time.perf_counter()
        reply = await client.chat(
            [{"role": "user", "content": prompts[index]}], max_tokens=max_tokens, temperature=0.0
        )
        latencies.append(time.perf_counter() - started)
        return reply.text

    def record(index: int, _item: int, result: object) -> None:
        written.append(index)
        texts[index] = result if isinstance(result, str) else None
        if midway is not None and len(written) == len(prompts) // 2:
            midway.set()

    started = time.perf_counter()
    await run_batch(range(len(prompts)), ask, concurrency=settings.concurrency, on_result=record)
    wall = time.perf_counter() - started
    await client.close()
    return texts, written, latencies, wall, client


async def _fault_at_midway(
    midway: asyncio.Event, server: VLLMServer | None, log: ProxyLog, outage_s: float
) -> str:
    await midway.wait()
    if server is not None and server._process is not None:
        os.killpg(server._process.pid, signal.SIGKILL)  # the whole server, without warning
        return "server killed (SIGKILL of its process group), supervisor restarts it"
    log.down = True
    await asyncio.sleep(outage_s)
    log.down = False
    return f"every connection cut for {outage_s:.0f} s"


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


async def main() -> None:
    """Run clean, then faulty, and print the figures."""
    args = _args()
    server: VLLMServer | None = None
    base_url = args.base_url
    if base_url is None:
        server = embedded_server(EmbeddedServerSettings(served_model_name=args.model))
        server.start()
        server.wait_ready()
        server.supervise(lambda message: print(f"  [server] {message.splitlines()[0]}"))
        base_url = server.base_url
    settings = LLMSettings(
        base_urls=[base_url],
        model=args.model,
        concurrency=args.concurrency,
        cache=False,
        timeout_s=args.timeout_s,
        unreachable_after_s=600.0,
        backoff_max_s=5.0,
    )
    prompts = [f"Name one animal whose name starts with the letter {i % 26 + 65:c}. ({i})"
               for i in range(args.n)]  # fmt: skip
    try:
        print(f"soak: {args.n} requests at concurrency {args.concurrency} against {base_url}")
        clean, _, clean_lat, clean_wall, _ = await _run(settings, prompts, args.max_tokens, None)
        print(f"  clean run: {clean_wall:.1f} s")
        faults = Faults(
            delay_s=args.delay_s,
            busy_above=args.busy_above,
            drop=args.drop,
            unavailable=args.unavailable,
            retry_after_s=1.0,
            seed=1,
        )
        async with fault_proxy(base_url, faults) as (url, log):
            midway = asyncio.Event()
            fault = asyncio.create_task(_fault_at_midway(midway, server, log, args.outage_s))
            faulty = settings.model_copy(update={"base_urls": [url]})
            texts, written, lat, wall, client = await _run(faulty, prompts, args.max_tokens, midway)
            what = await fault
    finally:
        if server is not None:
            server.stop()
    completed = len(set(written))
    same = sum(a == b for a, b in zip(texts, clean, strict=True))
    stats = client.stats
    print(f"  fault at midway: {what}")
    print(f"  proxy: {dict(sorted(log.counts.items()))}")
    print(f"completed        {completed} / {args.n}")
    print(f"lost             {args.n - completed}")
    print(f"duplicated       {len(written) - completed}")
    print(f"identical        {'yes' if same == args.n else 'no'} ({same} of {args.n} as clean)")
    print(f"slow-downs       {stats.slow_downs} (in-flight limit lowest "
          f"{stats.concurrency_lowest}, at the end {stats.concurrency_now})")  # fmt: skip
    print(f"retries          {stats.retries}; requests sent {stats.requests_sent}")
    print(f"latency p50/p99  {_pct(lat, 50):.2f} / {_pct(lat, 99):.2f} s "
          f"(clean {_pct(clean_lat, 50):.2f} / {_pct(clean_lat, 99):.2f} s)")  # fmt: skip
    print(f"wall time        {wall:.1f} s vs clean {clean_wall:.1f} s ({wall / clean_wall:.2f}x)")
    if server is not None:
        print(f"server restarts  {server.restarts}")


if __name__ == "__main__":
    asyncio.run(main())
