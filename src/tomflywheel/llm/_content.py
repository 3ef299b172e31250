"""ContentClient: async chat and completions with caching, retries, failover and accounting."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Literal

import openai
from openai.types import Completion
from openai.types.chat import ChatCompletion
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from tomflywheel.config import LLMSettings
from tomflywheel.errors import ConfigError, LLMRequestError, ServerError
from tomflywheel.llm._cache import RequestCache, request_key
from tomflywheel.llm._endpoints import EndpointPool
from tomflywheel.llm._retry import is_retryable, wait_backoff_or_retry_after
from tomflywheel.llm._stats import UsageStats

logger = logging.getLogger(__name__)

ApiPath = Literal["chat/completions", "completions"]


@dataclass(frozen=True)
class Reply:
    """One generated text with its bookkeeping."""

    text: str
    """The generated text of the first choice."""
    finish_reason: str | None
    """Why generation stopped (``stop``, ``length``, ...)."""
    usage: dict[str, int]
    """Prompt and completion token counts as the server reported them."""
    latency_s: float
    """Wall time of the request that produced it (the original one, for a cache hit)."""
    cached: bool
    """Whether the request cache answered."""
    raw: dict[str, Any]
    """The full response body."""


class ContentClient:
    """Async client for chat and completions with everything a long evaluation needs.

    Bounded concurrency; retries with exponential backoff and jitter on connection errors,
    timeouts, 429 (honouring Retry-After) and 5xx, none on other 4xx; several base URLs with
    balancing and failover; a persistent request cache keyed by model + full request body.

    Args:
        settings: Endpoints, model, limits and cache settings (``base_urls`` and ``model`` set).
        cache: A request cache to use instead of the one ``settings`` names.
    """

    def __init__(self, settings: LLMSettings, *, cache: RequestCache | None = None) -> None:
        if not settings.base_urls:
            raise ConfigError("llm.base_urls is empty: name a server, or use server: embedded")
        if not settings.model:
            raise ConfigError("llm.model is not set (or set TOMFLYWHEEL_MODEL)")
        self.settings = settings
        self.model: str = settings.model
        api_key = settings.api_key.get_secret_value() if settings.api_key else "EMPTY"
        self._pool = EndpointPool(settings.base_urls, api_key=api_key, timeout_s=settings.timeout_s)
        if cache is None and settings.cache:
            cache = RequestCache(settings.resolved_cache_path())
        self._cache = cache
        self._semaphore = asyncio.Semaphore(settings.concurrency)
        self._inflight: dict[str, asyncio.Future[tuple[dict[str, Any], float, bool]]] = {}
        self.stats = UsageStats()

    @property
    def concurrency(self) -> int:
        """Requests allowed in flight at once."""
        return self.settings.concurrency

    async def request(
        self, path: ApiPath, body: dict[str, Any]
    ) -> tuple[dict[str, Any], float, bool]:
        """Send one request body (``model`` is filled in); returns (response, latency, cached).

        Raises:
            LLMRequestError: The server refused this request (a 4xx other than 429).
            ServerError: Every attempt failed on transport, timeout, 429 or 5xx.
        """
        body = {"model": self.model, **body}
        key = request_key(path, body)
        if self._cache is not None and (hit := self._cache.get(key)) is not None:
            self.stats.cache_hits += 1
            return hit[0], hit[1], True
        if key in self._inflight:
            # The same request is already on its way: share its answer instead of sending twice.
            response, latency, _ = await asyncio.shield(self._inflight[key])
            self.stats.cache_hits += 1
            return response, latency, True
        future: asyncio.Future[tuple[dict[str, Any], float, bool]] = (
            asyncio.get_running_loop().create_future()
        )
        self._inflight[key] = future
        try:
            async with self._semaphore:
                response, latency = await self._send_with_retries(path, body)
            if self._cache is not None:
                self._cache.put(key, response, latency)
            future.set_result((response, latency, False))
            return response, latency, False
        except BaseException as err:
            future.set_exception(err)
            future.exception()  # mark retrieved: waiters re-raise it, nobody else must
            raise
        finally:
            del self._inflight[key]

    async def _send_with_retries(
        self, path: ApiPath, body: dict[str, Any]
    ) -> tuple[dict[str, Any], float]:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.max_retries + 1),
            wait=wait_backoff_or_retry_after(
                self.settings.backoff_initial_s, self.settings.backoff_max_s
            ),
            retry=retry_if_exception(is_retryable),
            before_sleep=self._count_retry,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._send_once(path, body)
        except openai.APIStatusError as err:
            self.stats.failures += 1
            if is_retryable(err):
                raise ServerError(
                    f"{self.settings.base_urls}: HTTP {err.status_code} after "
                    f"{self.settings.max_retries + 1} attempts: {_message(err)}"
                ) from err
            raise LLMRequestError(err.status_code, _message(err)) from err
        except openai.APIConnectionError as err:
            self.stats.failures += 1
            kind = "timed out" if isinstance(err, openai.APITimeoutError) else "unreachable"
            raise ServerError(
                f"LLM server {kind} at {', '.join(self.settings.base_urls)} after "
                f"{self.settings.max_retries + 1} attempts ({err.__class__.__name__}: {err})"
            ) from err
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    async def _send_once(self, path: ApiPath, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
        endpoint = self._pool.acquire()
        ok = False
        started = time.perf_counter()
        try:
            self.stats.requests_sent += 1
            response = await endpoint.client.post(f"/{path}", cast_to=object, body=body)
            ok = True
        except openai.APIStatusError as err:
            ok = not is_retryable(err)  # a 400 says nothing about the endpoint's health
            raise
        finally:
            self._pool.release(endpoint, ok=ok)
        latency = time.perf_counter() - started
        if not isinstance(response, dict):
            raise ServerError(f"{endpoint.base_url}/{path}: expected a JSON object in reply")
        self.stats.record_response(endpoint.base_url, response.get("usage"), latency)
        return response, latency

    def _count_retry(self, state: RetryCallState) -> None:
        self.stats.retries += 1
        exc = state.outcome.exception() if state.outcome else None
        logger.info("retrying after %s (attempt %d)", exc.__class__.__name__, state.attempt_number)

    async def chat(self, messages: list[dict[str, Any]], **params: Any) -> Reply:
        """One chat completion; ``params`` go into the request body (temperature, max_tokens...)."""
        response, latency, cached = await self.request(
            "chat/completions", {"messages": messages, **params}
        )
        choice = response["choices"][0]
        return Reply(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            usage=_usage(response),
            latency_s=latency,
            cached=cached,
            raw=response,
        )

    async def complete(self, prompt: str | list[str], **params: Any) -> Reply:
        """One text completion; ``params`` go into the request body (echo, logprobs, ...)."""
        response, latency, cached = await self.request("completions", {"prompt": prompt, **params})
        choice = response["choices"][0]
        return Reply(
            text=choice.get("text") or "",
            finish_reason=choice.get("finish_reason"),
            usage=_usage(response),
            latency_s=latency,
            cached=cached,
            raw=response,
        )

    async def generate(self, prompt: str, *, system: str | None = None, **params: Any) -> Reply:
        """Generate from a plain prompt through the configured endpoint (chat or completions)."""
        if self.settings.endpoint == "completions":
            return await self.complete(prompt, **params)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        return await self.chat(messages, **params)

    async def chat_completion(self, **kwargs: Any) -> ChatCompletion:
        """An OpenAI-SDK-shaped ``chat.completions.create`` (what instructor patches)."""
        kwargs.pop("model", None)  # the client's model always wins, so cache keys stay honest
        response, _, _ = await self.request("chat/completions", kwargs)
        return ChatCompletion.model_validate(response)

    async def text_completion(self, **kwargs: Any) -> Completion:
        """An OpenAI-SDK-shaped ``completions.create``."""
        kwargs.pop("model", None)
        response, _, _ = await self.request("completions", kwargs)
        return Completion.model_validate(response)

    async def close(self) -> None:
        """Close HTTP connections and the cache."""
        await self._pool.close()
        if self._cache is not None:
            self._cache.close()

    async def __aenter__(self) -> ContentClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _usage(response: dict[str, Any]) -> dict[str, int]:
    usage = response.get("usage") or {}
    return {k: int(v) for k, v in usage.items() if k.endswith("_tokens") and isinstance(v, int)}


def _message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if body.get("message"):
            return str(body["message"])
    return str(err.message)
