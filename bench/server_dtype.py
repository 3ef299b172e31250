"""The embedded CPU server's speed by weights' dtype and thread binding, side by side.

Arms: bf16 on one core (vLLM's own defaults before ``dtype: auto``), float32 on one core, and
float32 on every core (what ``dtype: auto`` and ``threads_bind: auto`` choose for a lone server
on a CPU without native bf16). Each arm starts its own server, warms it, then times lone
requests (latency) and a concurrent batch (throughput) of real ToMi prompts, every request
generating exactly ``--max-tokens`` tokens. Prints each arm and its ratio to the first, and
writes ``bench/results/server_dtype.txt`` with the command, commit and the CPU's flags.

    python bench/server_dtype.py
    python bench/server_dtype.py --arms float32:auto bfloat16:auto
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

import openai

from provenance import command, commit
from tomflywheel._cpus import NATIVE_BF16_FLAGS, cpu_flags
from tomflywheel._io import atomic_write_text
from tomflywheel.config import EmbeddedServerSettings
from tomflywheel.datasets import load_benchmark
from tomflywheel.llm import embedded_server

ROOT = Path(__file__).resolve().parents[1]
TOMI = ROOT.parent / "shared" / "benchmarks" / "tomi" / "tomi_balanced_story_types"
MODEL = "smollm2-135m-instruct"


def tomi_prompts(n: int) -> list[str]:
    """``n`` real ToMi story-and-question prompts (synthetic text when the files are absent)."""
    if not TOMI.exists():
        return [
            f"Story {i}: Anne put the ball in the box and left. Where is the ball?"
            for i in range(n)
        ]
    samples = load_benchmark("tomi", TOMI, split="val")[:n]
    return [f"{s.story}\nQuestion: {s.question}\nAnswer in a few words." for s in samples]


async def timed(
    client: openai.AsyncOpenAI, prompts: list[str], concurrency: int, tokens: int
) -> tuple[float, int]:
    """Seconds to answer every prompt at ``concurrency``, and the prompt tokens read."""
    semaphore = asyncio.Semaphore(concurrency)
    prompt_tokens = 0

    async def one(prompt: str) -> None:
        nonlocal prompt_tokens
        async with semaphore:
            reply = await client.chat.completions.create(
                model=MODEL,
                messages=[{"role": "user", "content": prompt}],
                max_tokens=tokens,
                temperature=0.0,
                extra_body={"ignore_eos": True},
            )
            prompt_tokens += reply.usage.prompt_tokens if reply.usage else 0

    started = time.perf_counter()
    await asyncio.gather(*(one(p) for p in prompts))
    return time.perf_counter() - started, prompt_tokens


async def measure_arm(base_url: str, args: argparse.Namespace, arm: int) -> dict[str, float]:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0, timeout=1800)
    # Each arm its own prompts (distinct prefixes), so no arm reads another's prefix cache.
    prompts = [f"[{arm}] {p}" for p in tomi_prompts(args.lone + args.batch + 2)]
    await timed(client, prompts[:2], 2, 4)  # warm-up
    lone, _ = await timed(client, prompts[2 : 2 + args.lone], 1, args.max_tokens)
    batch, read = await timed(client, prompts[2 + args.lone :], args.concurrency, args.max_tokens)
    await client.close()
    return {
        "lone_s": lone / args.lone,
        "batch_tokens_per_s": args.batch * args.max_tokens / batch,
        "batch_prompt_tokens": read,
        "batch_s": batch,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--arms",
        nargs="+",
        default=["bfloat16:one", "float32:one", "float32:auto"],
        help="DTYPE:BIND, BIND one of one (a single core), auto (the guard's choice)",
    )
    parser.add_argument("--lone", type=int, default=3, help="lone requests timed one by one")
    parser.add_argument("--batch", type=int, default=16, help="requests of the concurrent batch")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "server_dtype.txt")
    args = parser.parse_args()
    flags = cpu_flags()
    lines = [
        f"command: {command()}",
        f"commit: {commit()}",
        f"CPU: native bf16 flags {sorted(NATIVE_BF16_FLAGS & flags) or 'none'}; "
        f"avx512f {'yes' if 'avx512f' in flags else 'no'}",
        f"lone requests {args.lone}, batch {args.batch} at concurrency {args.concurrency}, "
        f"{args.max_tokens} generated tokens each (ignore_eos), real ToMi prompts",
        "",
        f"{'arm':16} {'lone s/request':>15} {'batch out tok/s':>16} {'batch s':>8}  ratio to first",
    ]
    print("\n".join(lines), flush=True)
    first: dict[str, float] | None = None
    for arm, spec in enumerate(args.arms):
        dtype, _, bind = spec.partition(":")
        settings = EmbeddedServerSettings(
            served_model_name=MODEL, dtype=dtype, threads_bind="0" if bind == "one" else "auto"
        )
        with embedded_server(settings, print) as server:
            figures = asyncio.run(measure_arm(server.base_url, args, arm))
        first = first or figures
        line = (
            f"{spec:16} {figures['lone_s']:15.2f} {figures['batch_tokens_per_s']:16.1f} "
            f"{figures['batch_s']:8.1f}  latency x{first['lone_s'] / figures['lone_s']:.2f}, "
            f"throughput x{figures['batch_tokens_per_s'] / first['batch_tokens_per_s']:.2f}"
        )
        print(line, flush=True)
        lines.append(line)
    atomic_write_text(args.out, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
