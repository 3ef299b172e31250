"""An embedded server starts on the first request the request cache cannot answer.

The "model" is a folder without ``config.json``, so a start fails at once with a ConfigError,
before any process is spawned: the tests see when a start is tried, and that it is tried once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tomflywheel.config import Settings
from tomflywheel.errors import ConfigError
from tomflywheel.llm import ContentClient, RequestCache, llm_endpoint, request_key

ANSWER = {"choices": [{"message": {"role": "assistant", "content": "the box"}}]}
CACHED = {"messages": [{"role": "user", "content": "Where is the ball?"}], "max_tokens": 4}
MISSED = {"messages": [{"role": "user", "content": "Where is the cup?"}], "max_tokens": 4}


def _settings(tmp_path: Path) -> Settings:
    not_a_model = tmp_path / "model"
    not_a_model.mkdir()
    return Settings.model_validate(
        {
            "server": "embedded",
            "embedded": {"model": str(not_a_model)},
            "llm": {"cache_path": str(tmp_path / "requests.sqlite")},
        }
    )


def _fill_cache(settings: Settings) -> None:
    body = {"model": settings.embedded.served_model_name, **CACHED}
    cache = RequestCache(settings.llm.resolved_cache_path())
    cache.put(request_key("/chat/completions", body), ANSWER, 0.5)
    cache.close()


def test_answers_in_the_cache_start_no_server_and_a_miss_tries_one_start(tmp_path: Path):
    settings = _settings(tmp_path)
    _fill_cache(settings)
    said: list[str] = []

    async def ask() -> None:
        async with ContentClient(served) as client:
            response, _, cached = await client.request("/chat/completions", CACHED)
            assert cached and response == ANSWER
            assert not [m for m in said if m.startswith("starting")]  # no server for a hit
            results = await asyncio.gather(
                *(client.request("/chat/completions", MISSED) for _ in range(3)),
                return_exceptions=True,
            )
            assert all(isinstance(r, ConfigError) for r in results), results
            with pytest.raises(ConfigError, match=r"config\.json"):
                await client.request("/chat/completions", MISSED)

    with llm_endpoint(settings, said.append) as served:
        asyncio.run(ask())
    assert len([m for m in said if m.startswith("starting")]) == 1, said


def test_an_eager_endpoint_starts_before_yielding(tmp_path: Path):
    settings = _settings(tmp_path)
    with pytest.raises(ConfigError, match=r"config\.json"), llm_endpoint(settings, lazy=False):
        pytest.fail("an endpoint whose server cannot start must not be yielded")
