"""In-process ``causal`` scoring vs the server path: items/s, memory, and agreement.

The same two-candidate ToMi items (``tomi_2cand``, the first ``--n``) are scored by the vLLM
server (``/v1/completions`` prompt log-probs, request cache off) and by the bundled SmolLM2
folder loaded in this process with transformers (``ensure_default_model()``: the folder the
embedded server serves). Prints items/s of each, the memory each holds (the server's processes'
resident set; this process's resident set after loading and its peak), and how well they agree:
same argmax on how many items, and the largest and mean per-option score difference.

    python bench/scoring_backends.py                      # 500 items, the shared server
    python bench/scoring_backends.py --n 50 --dtype bfloat16 --base-url http://host:8000/v1

The server runs in bfloat16 (the folder's dtype); ``--dtype`` picks the in-process one. vLLM's
prefix cache may hold prompts of an earlier run: its figure is then a warm-cache one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import time
from pathlib import Path

import psutil

from tomflywheel.asking import scoring_request, scoring_sample
from tomflywheel.config import EvalSettings, LLMSettings, ScoringSettings
from tomflywheel.datasets import get_task, load_benchmark
from tomflywheel.llm import ContentClient, build_scorer, ensure_default_model

BENCHMARKS = Path(
    os.environ.get("TOMFLYWHEEL_BENCHMARKS")
    or Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks"
)
MIB = 1024 * 1024


def items(n: int) -> list[list[tuple[str, str]]]:
    """Each item's (context, option) pairs, exactly as the evaluation builds them."""
    settings = EvalSettings()
    task = get_task("tomi_2cand")
    samples = load_benchmark("tomi_2cand", BENCHMARKS / "tomi")[:n]
    return [
        scoring_request(s, 0, settings=settings, task=task, scored=scoring_sample(s)).pairs
        for s in samples
    ]


def server_rss_mib() -> float:
    """Resident memory of the vLLM processes (API server and engine core)."""
    total = 0
    for process in psutil.process_iter(["cmdline", "name"]):
        line = " ".join(process.info["cmdline"] or [])
        if "vllm" in line.lower() or "EngineCore" in (process.info["name"] or ""):
            try:
                total += process.memory_info().rss
            except psutil.Error:
                continue
    return total / MIB


async def by_server(base_url: str, work: list[list[tuple[str, str]]]) -> list:
    settings = LLMSettings(base_urls=[base_url], model="smollm2-135m-instruct", cache=False)
    async with ContentClient(settings) as client:
        return await build_scorer(ScoringSettings(), client=client).score(work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="Two-candidate items to score.")
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--batch-size", type=int, default=8, help="In-process sequences/pass.")
    args = parser.parse_args()
    work = items(args.n)
    print(f"{len(work)} items, {sum(len(i) for i in work)} scored options")

    start = time.perf_counter()
    served = asyncio.run(by_server(args.base_url, work))
    server_s = time.perf_counter() - start
    print(
        f"server:     {len(work) / server_s:6.2f} items/s ({server_s:.1f} s); "
        f"vLLM processes hold {server_rss_mib():.0f} MiB"
    )

    rss_before = psutil.Process(os.getpid()).memory_info().rss / MIB
    settings = ScoringSettings(
        backend="causal",
        model=ensure_default_model(),
        dtype=args.dtype,
        batch_size=args.batch_size,
        device="cpu",
    )
    start = time.perf_counter()
    scorer = build_scorer(settings)
    load_s = time.perf_counter() - start
    loaded = psutil.Process(os.getpid()).memory_info().rss / MIB
    start = time.perf_counter()
    local = asyncio.run(scorer.score(work))
    local_s = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"in-process: {len(work) / local_s:6.2f} items/s ({local_s:.1f} s, +{load_s:.1f} s "
        f"load, {args.dtype}, torch threads {__import__('torch').get_num_threads()}); "
        f"model adds {loaded - rss_before:.0f} MiB, process peak {peak:.0f} MiB"
    )

    same, diffs, failed = 0, [], 0
    for a, b in zip(served, local, strict=True):
        if isinstance(a, Exception) or isinstance(b, Exception):
            failed += 1
            continue
        va, vb = [s.logprob for s in a], [s.logprob for s in b]
        same += max(range(len(va)), key=va.__getitem__) == max(range(len(vb)), key=vb.__getitem__)
        diffs += [abs(x - y) for x, y in zip(va, vb, strict=True)]
        if [s.n_tokens for s in a] != [s.n_tokens for s in b]:
            print("token counts differ:", [s.n_tokens for s in a], [s.n_tokens for s in b])
    judged = len(work) - failed
    print(
        f"agreement:  same argmax on {same}/{judged} ({100 * same / judged:.1f}%); "
        f"per-option |diff| max {max(diffs):.4f}, mean {sum(diffs) / len(diffs):.4f} nats; "
        f"{failed} failed"
    )


if __name__ == "__main__":
    main()
