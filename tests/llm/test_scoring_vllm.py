"""Server log-prob scoring against the real vLLM server: every request form gives the same scores.

The default form reads each continuation's tokens from greedy generation requests after the
context (``logprob_token_ids``, the prefix cache); a continuation merging with its context goes
by the echo-only form, which matches the per-option requests scoring sent before.
"""

from __future__ import annotations

import asyncio

import pytest

from tomflywheel.llm import ContentClient, continuation_logprob
from tomflywheel.llm._logprob import score_by_echo
from tomflywheel.llm._scorers import ServerScorer
from tomflywheel.llm._token_scoring import FEATURE, continuation_token_logprobs

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

# Served in bf16 (the default on a CPU with native bf16), a token's log-prob read from a decode
# step and from a prefill round differently: up to 0.033 nats apart measured on an AMX CPU
# (float32: 1e-4). A wrong or missing token would move a score by whole nats.
SAME_SCORE = 0.1


async def _per_option_form(client: ContentClient, context: str, continuation: str) -> float:
    """What scoring sent before: one prompt, top-1 alternatives, one generated token."""
    reply = await client.complete(
        context + continuation, echo=True, logprobs=1, max_tokens=1, temperature=0.0
    )
    return continuation_logprob(reply.raw["choices"][0]["logprobs"], len(context))[0]


def test_generation_and_echo_forms_equal_the_per_option_requests(llm_settings):
    async def go():
        async with ContentClient(llm_settings) as client:
            default = await ServerScorer(client).score(ITEMS)
            echoed = [await score_by_echo(client, item) for item in ITEMS]
            walked = [
                await continuation_token_logprobs(client, item[0][0], [o for _, o in item])
                for item in ITEMS
            ]
            single = [[await _per_option_form(client, c, o) for c, o in item] for item in ITEMS]
            return default, echoed, walked, single, client.server_features

    default, echoed, walked, single, features = asyncio.run(go())
    assert features.get(FEATURE, True)  # the server was never found lacking the form
    # The story and the capitals go by generation; "box" + "es" merges, so by echo.
    assert walked[0] is not None and walked[1] is not None and walked[2] is None
    for item, scores, echo, expected in zip(ITEMS, default, echoed, single, strict=True):
        assert [s.continuation for s in scores] == [o for _, o in item]
        assert [s.logprob for s in scores] == pytest.approx(expected, abs=SAME_SCORE)
        assert [s.logprob for s in echo] == pytest.approx(expected, abs=SAME_SCORE)
        assert [s.n_tokens for s in scores] == [s.n_tokens for s in echo]
        assert all(s.n_tokens >= 1 for s in scores)
    for read, scores in zip(walked[:2], default[:2], strict=True):
        assert [(pytest.approx(s.logprob), s.n_tokens) for s in scores] == list(read)
    assert all(n >= 2 for _, n in walked[0])  # walks past the first token of each location


def test_the_echo_form_is_one_request_per_item(llm_settings):
    async def go():
        async with ContentClient(llm_settings) as client:
            for item in ITEMS:
                await score_by_echo(client, item)
            return client.stats.requests_sent

    assert asyncio.run(go()) == len(ITEMS)
