"""The LLM layer against the real embedded vLLM server (no mock of the LLM anywhere)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading

import pytest
from pydantic import BaseModel, Field

from tests.conftest import SERVED_NAME, STARTUP_S, served_requests
from tests.llm._proxy import failing_proxy
from tomflywheel.config import EmbeddedServerSettings
from tomflywheel.errors import LLMRequestError, ServerError
from tomflywheel.llm import (
    ContentClient,
    RequestCache,
    StructureClient,
    StructureFailure,
    embedded_server,
    first_token,
    free_port,
    run_batch,
    score_continuations,
)

pytestmark = pytest.mark.vllm

PROMPTS = [f"Count from {i} to {i + 3}:" for i in range(24)]


def test_chat_returns_text_usage_and_latency(llm_settings):
    async def go():
        async with ContentClient(llm_settings) as client:
            reply = await client.chat(
                [{"role": "user", "content": "Say hello."}], max_tokens=8, temperature=0.0
            )
            return reply, client.stats

    reply, stats = asyncio.run(go())
    assert reply.finish_reason in {"stop", "length"}
    assert 1 <= reply.usage["completion_tokens"] <= 8
    assert reply.usage["prompt_tokens"] > 5
    assert reply.latency_s > 0 and not reply.cached
    assert stats.requests_sent == 1 and stats.completion_tokens == reply.usage["completion_tokens"]


def _echo_batch(settings):
    async def go():
        async with ContentClient(settings) as client:

            async def ask(prompt: str):
                return await client.complete(prompt, max_tokens=4, temperature=0.0, echo=True)

            results = await run_batch(PROMPTS, ask, concurrency=client.concurrency)
            return results, client.stats

    return asyncio.run(go())


def test_a_concurrent_batch_keeps_input_order_and_a_rerun_sends_nothing(llm_settings):
    before = served_requests(llm_settings.base_urls[0])
    first, stats = _echo_batch(llm_settings)
    # echo=True: each reply starts with its own prompt, so order is checked on real output.
    assert [r.text[: len(p)] for r, p in zip(first, PROMPTS, strict=True)] == PROMPTS
    assert stats.requests_sent == len(PROMPTS) and stats.cache_hits == 0
    assert served_requests(llm_settings.base_urls[0]) - before == len(PROMPTS)

    middle = served_requests(llm_settings.base_urls[0])
    again, stats = _echo_batch(llm_settings)
    assert stats.requests_sent == 0 and stats.cache_hits == len(PROMPTS)
    assert served_requests(llm_settings.base_urls[0]) == middle  # nothing reached the server
    assert [r.text for r in again] == [r.text for r in first]
    assert all(r.cached for r in again)


class Verdict(BaseModel):
    correct: bool = Field(description="Whether the answer is right.")
    reason: str = Field(max_length=80, description="One short sentence.")


def test_a_structured_call_returns_a_validated_object(llm_settings):
    async def go():
        async with ContentClient(llm_settings) as client:
            structured = StructureClient.from_settings(client)
            return await structured.ask(
                Verdict,
                [{"role": "user", "content": "Is 2 + 2 = 4? Answer as JSON."}],
                max_tokens=64,
            )

    verdict = asyncio.run(go())
    assert isinstance(verdict, Verdict), verdict
    assert len(verdict.reason) <= 80


def test_a_reply_that_cannot_validate_is_a_counted_failure_not_a_value(llm_settings):
    class Long(BaseModel):
        text: str = Field(min_length=500)

    async def go():
        async with ContentClient(llm_settings) as client:
            structured = StructureClient(client, max_retries=1)
            result = await structured.ask(
                Long, [{"role": "user", "content": "Write one word."}], max_tokens=16
            )
            return result, client.stats

    result, stats = asyncio.run(go())
    assert isinstance(result, StructureFailure)
    assert result.attempts >= 1 and result.reason
    assert stats.requests_sent == result.attempts


def test_logprob_scoring_orders_an_unambiguous_pair(llm_settings):
    async def go():
        async with ContentClient(llm_settings) as client:
            scores = await score_continuations(
                client, "The capital of France is", [" Paris", " Banana"]
            )
            token = await first_token(client, "The capital of France is")
            return scores, token

    (paris, banana), token = asyncio.run(go())
    assert paris.logprob > banana.logprob
    assert paris.n_tokens == 1 and banana.n_tokens >= 1
    assert paris.logprob < 0
    assert token.token in token.top


def test_transient_statuses_are_retried_honouring_retry_after(llm_settings):
    failures = [(429, {"Retry-After": "0.2"}), (503, {})]

    async def go():
        async with failing_proxy(llm_settings.base_urls[0], failures) as (url, sent):
            settings = llm_settings.model_copy(update={"base_urls": [url]})
            async with ContentClient(settings) as client:
                reply = await client.chat([{"role": "user", "content": "Hi"}], max_tokens=4)
                return reply, client.stats, sent

    reply, stats, sent = asyncio.run(go())
    assert sent == [429, 503, 200]
    assert stats.retries == 2 and stats.requests_sent == 3
    assert reply.finish_reason in {"stop", "length"}


def test_a_refused_request_is_not_retried(llm_settings):
    async def go():
        async with ContentClient(llm_settings) as client:
            with pytest.raises(LLMRequestError) as caught:
                await client.chat([{"role": "user", "content": "Hi"}], max_tokens=-1)
            return caught.value, client.stats

    error, stats = asyncio.run(go())
    assert error.status == 400
    assert stats.requests_sent == 1 and stats.retries == 0 and stats.failures == 1


def test_a_dead_endpoint_fails_over_to_a_live_one(llm_settings):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    settings = llm_settings.model_copy(update={"base_urls": [dead, llm_settings.base_urls[0]]})

    async def go():
        async with ContentClient(settings) as client:
            replies = await asyncio.gather(
                *(
                    client.chat([{"role": "user", "content": f"Hi {i}"}], max_tokens=2)
                    for i in range(6)
                )
            )
            return replies, client.stats

    replies, stats = asyncio.run(go())
    assert len(replies) == 6
    assert stats.per_endpoint == {llm_settings.base_urls[0]: 6}
    assert stats.retries >= 1


def test_server_killed_mid_batch_then_a_later_run_finishes(llm_settings, tmp_path):
    """Retries, then a clear error; the cache keeps whole answers; a later run sends the rest."""
    prompts = [f"Write a short poem about the number {i}." for i in range(20)]
    own = embedded_server(
        EmbeddedServerSettings(served_model_name=SERVED_NAME, startup_timeout_s=STARTUP_S)
    )
    cache_path = tmp_path / "kill.sqlite"
    finished: list[int] = []

    with own:
        settings = llm_settings.model_copy(
            update={
                "base_urls": [own.base_url],
                "concurrency": 4,
                "cache_path": cache_path,
                # Nobody restarts this one: give up, but not before a slow machine's first
                # replies (every attempt is bounded by the patience left).
                "unreachable_after_s": 30.0,
            }
        )

        run_over = threading.Event()

        def kill_after_some() -> None:
            while len(finished) < 4 and not run_over.wait(0.05):
                pass
            os.killpg(own._process.pid, signal.SIGKILL)  # the whole server, without warning

        killer = threading.Thread(target=kill_after_some, daemon=True)
        killer.start()

        async def first_run():
            async with ContentClient(settings) as client:

                async def ask(prompt: str):
                    return await client.chat(
                        [{"role": "user", "content": prompt}], max_tokens=48, temperature=0.0
                    )

                with pytest.raises(ServerError, match=r"unreachable|HTTP 5"):
                    await run_batch(
                        prompts,
                        ask,
                        concurrency=4,
                        on_result=lambda i, *_: finished.append(i),
                    )
                return client.stats

        try:
            stats = asyncio.run(first_run())
        finally:
            run_over.set()
            killer.join()
    assert stats.retries >= 1
    done = len(finished)
    assert 4 <= done < len(prompts)
    assert len(RequestCache(cache_path)) == done  # only whole answers, nothing corrupted

    later = llm_settings.model_copy(update={"cache_path": cache_path})

    async def second_run():
        async with ContentClient(later) as client:

            async def ask(prompt: str):
                return await client.chat(
                    [{"role": "user", "content": prompt}], max_tokens=48, temperature=0.0
                )

            results = await run_batch(prompts, ask, concurrency=8)
            return results, client.stats

    results, stats = asyncio.run(second_run())
    assert len(results) == len(prompts)
    assert stats.cache_hits == done
    assert stats.requests_sent == len(prompts) - done
