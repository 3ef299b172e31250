"""Server log-prob scoring against the real vLLM server: the echo-only request keeps the scores."""

from __future__ import annotations

import asyncio

import pytest

from tomflywheel.llm import ContentClient, continuation_logprob
from tomflywheel.llm._scorers import ServerScorer

pytestmark = pytest.mark.vllm

# ToMi-shaped contexts; options that tokenize into several pieces, one that merges with the
# context's last character ("box" + "es"), and a repeated context (as for one item's options).
STORY = (
    "Aria entered the front_yard.\nAiden entered the front_yard.\nThe grapefruit is in the "
    "green_bucket.\nAria moved the grapefruit to the blue_container.\nAiden exited the "
    "front_yard.\n\nQuestion: Where will Aiden look for the grapefruit?\nAnswer:"
)
ITEMS = [
    [(STORY, " green_bucket"), (STORY, " blue_container"), (STORY, " front_yard")],
    [("The capital of France is", " Paris"), ("The capital of France is", " Banana")],
    [("She put the toys in the box", "es"), ("She put the toys in the box", " quickly")],
]


async def _per_option_form(client: ContentClient, context: str, continuation: str) -> float:
    """What scoring sent before: one prompt, top-1 alternatives, one generated token."""
    reply = await client.complete(
        context + continuation, echo=True, logprobs=1, max_tokens=1, temperature=0.0
    )
    return continuation_logprob(reply.raw["choices"][0]["logprobs"], len(context))[0]


def test_batched_echo_only_scores_equal_the_per_option_requests(llm_settings):
    async def go():
        async with ContentClient(llm_settings) as client:
            batched = await ServerScorer(client).score(ITEMS)
            single = [[await _per_option_form(client, c, o) for c, o in item] for item in ITEMS]
            return batched, single, client.stats.requests_sent

    batched, single, sent = asyncio.run(go())
    assert sent == len(ITEMS) + sum(len(item) for item in ITEMS)  # one request per item
    for item, scores, expected in zip(ITEMS, batched, single, strict=True):
        assert [s.continuation for s in scores] == [o for _, o in item]
        assert [s.logprob for s in scores] == pytest.approx(expected, abs=1e-4)
        assert all(s.n_tokens >= 1 for s in scores)
