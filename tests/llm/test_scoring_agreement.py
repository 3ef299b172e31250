"""The in-process ``causal`` backend agrees with the server path on the same model folder.

Both score the same two-candidate ToMi items with the bundled SmolLM2: the embedded server
serves ``ensure_default_model()``'s folder (in bfloat16, or float32 on a CPU without native
bf16: ``embedded.dtype: auto``), the in-process backend loads that folder (in float32), so
scores differ by rounding only. A slice keeps the test short on a
loaded CPU; ``bench/scoring_backends.py`` runs the same comparison on hundreds of items.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tomflywheel.asking import scoring_request, scoring_sample
from tomflywheel.config import EvalSettings, LLMSettings, ScoringSettings
from tomflywheel.datasets import get_task, load_benchmark
from tomflywheel.llm import ContentClient, build_scorer, ensure_default_model

ITEMS = int(os.environ.get("TOMFLYWHEEL_AGREEMENT_ITEMS", "8"))
TOLERANCE = 0.3
"""Nats per option: bfloat16 (a server with native bf16) vs float32 (here) rounding over ~150
context tokens."""


async def _served(settings: LLMSettings, work: list) -> list:
    async with ContentClient(settings) as client:
        return await build_scorer(ScoringSettings(), client=client).score(work)


@pytest.mark.vllm
def test_in_process_causal_scores_match_the_server(benchmarks: Path, llm_settings: LLMSettings):
    samples = load_benchmark("tomi_2cand", benchmarks / "tomi")[:ITEMS]
    task, settings = get_task("tomi_2cand"), EvalSettings()
    work = [
        scoring_request(s, 0, settings=settings, task=task, scored=scoring_sample(s)).pairs
        for s in samples
    ]
    assert all(len(pairs) == 2 for pairs in work)
    served = asyncio.run(_served(llm_settings, work))
    local_settings = ScoringSettings(backend="causal", model=ensure_default_model(), device="cpu")
    local = asyncio.run(build_scorer(local_settings).score(work))
    same, diffs = 0, []
    for a, b in zip(served, local, strict=True):
        assert not isinstance(a, Exception) and not isinstance(b, Exception)
        # The same tokens are scored on both paths (located by the same character offsets).
        assert [s.n_tokens for s in a] == [s.n_tokens for s in b]
        va, vb = [s.logprob for s in a], [s.logprob for s in b]
        same += (va[0] >= va[1]) == (vb[0] >= vb[1])
        diffs += [abs(x - y) for x, y in zip(va, vb, strict=True)]
    print(f"same argmax {same}/{len(work)}; max |diff| {max(diffs):.4f} nats")
    assert same >= 0.99 * len(work)
    assert max(diffs) <= TOLERANCE
