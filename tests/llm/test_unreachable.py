"""A server nobody answers: the client waits ``unreachable_after_s``, then says how to resume."""

from __future__ import annotations

import asyncio

import pytest

from tomflywheel.config import LLMSettings
from tomflywheel.errors import ServerError
from tomflywheel.llm import ContentClient, free_port


def test_an_unreachable_server_is_given_up_after_the_configured_time_with_how_to_resume():
    settings = LLMSettings(
        base_urls=[f"http://127.0.0.1:{free_port()}/v1"],  # nothing listens there
        model="m",
        cache=False,
        unreachable_after_s=0.5,
        backoff_initial_s=0.05,
        backoff_max_s=0.1,
    )

    async def go() -> ContentClient:
        async with ContentClient(settings) as client:
            with pytest.raises(ServerError) as caught:
                await client.chat([{"role": "user", "content": "Hi"}], max_tokens=1)
            assert "unreachable" in str(caught.value)
            assert "run the same command again to resume" in str(caught.value)
            return client

    client = asyncio.run(go())
    # Refused connections are not overload: nothing to slow down for, only to wait for.
    assert client.stats.slow_downs == 0 and client.stats.retries >= 2
    assert client.stats.failures == 1
