"""Bounded patience: no completed request for ``unreachable_after_s`` -> one line, how to resume.

Each stuck server is real (a fault server on 127.0.0.1, ``_stub.py``), not a mock of the LLM.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.llm._stub import stuck_server
from tomflywheel.config import LLMSettings
from tomflywheel.errors import ServerError
from tomflywheel.llm import ContentClient, free_port
from tomflywheel.llm._patience import NO_CONNECTION, TIMEOUT, Patience

RESUME = "run the same command again to resume"


def _settings(base_url: str, **updates: object) -> LLMSettings:
    fields: dict[str, object] = {
        "base_urls": [base_url],
        "model": "stub-model",
        "cache": False,
        "unreachable_after_s": 1.5,
        "backoff_initial_s": 0.05,
        "backoff_max_s": 0.1,
    }
    return LLMSettings.model_validate({**fields, **updates})


def _ask_until_given_up(settings: LLMSettings, n: int = 1) -> tuple[str, ContentClient]:
    async def go() -> tuple[str, ContentClient]:
        async with ContentClient(settings) as client:
            asks = [client.chat([{"role": "user", "content": f"Hi {i}"}]) for i in range(n)]
            with pytest.raises(ServerError) as caught:
                await asyncio.gather(*asks)
            return str(caught.value), client

    return asyncio.run(go())


def test_an_unreachable_server_is_given_up_after_the_configured_time_with_how_to_resume():
    nobody = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    message, client = _ask_until_given_up(_settings(nobody, unreachable_after_s=0.5))
    assert "failed (unreachable)" in message and "0 timeouts" in message
    assert RESUME in message and "\n" not in message
    # Refused connections are not overload: nothing to slow down for, only to wait for.
    assert client.stats.slow_downs == 0 and client.stats.retries >= 2
    assert client.stats.failures == 1


@pytest.mark.parametrize("status", ["503", "429"])
def test_a_server_answering_models_but_overloaded_on_every_completion_is_given_up(status):
    with stuck_server(status) as (url, counts):  # type: ignore[arg-type]
        message, _ = _ask_until_given_up(_settings(url), n=3)
    # What the server did is in the one line (attempts still in flight when it was written
    # were answered later), with the way to resume.
    said = re.search(
        rf"no completion in 2 s: (\d+) replies were HTTP {status}, 0 timeouts \(", message
    )
    assert said is not None, message
    assert 6 <= int(said.group(1)) <= counts[status]  # retried: 3 requests, several attempts each
    assert message.startswith(f"LLM server at {url}: no completion in ")
    assert "llm.unreachable_after_s" in message and RESUME in message


def test_a_server_that_never_answers_a_completion_is_given_up_within_the_patience():
    # The request deadline (120 s) is far longer than the patience: the patience wins.
    with stuck_server("hang") as (url, counts):
        message, _ = _ask_until_given_up(_settings(url, timeout_s=120.0))
    assert counts["hang"] == 1
    assert "no completion in 2 s: 1 timeout" in message and RESUME in message


def test_health_checks_are_no_progress_and_only_a_completion_restarts_the_clock():
    now = [0.0]
    patience = Patience(10.0, clock=lambda: now[0])
    patience.started()
    now[0] = 6.0
    patience.failed("HTTP 503")
    patience.failed(TIMEOUT)
    assert patience.remaining_s() == 4.0 and not patience.exhausted()
    patience.completed()  # a completion: the clock restarts and the failures are forgotten
    now[0] = 15.0
    assert patience.remaining_s() == 1.0
    patience.failed("HTTP 429")
    patience.failed(NO_CONNECTION)
    now[0] = 16.0
    assert patience.exhausted()
    assert patience.describe() == (
        "no completion in 10 s: 1 reply was HTTP 429, 0 timeouts, 1 connection failed (unreachable)"
    )
    patience.ended()
    now[0] = 100.0
    patience.started()  # an idle client has not been waiting: a new request starts afresh
    assert patience.remaining_s() == 10.0 and patience.describe().endswith("0 timeouts")
