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

from tomflywheel.config import LLMSettings
from tomflywheel.errors import ConfigError, LLMRequestError, ServerError
from tomflywheel.llm._cache import RequestCache, request_key
from tomflywheel.llm._endpoints import Endpoint, EndpointPool
from tomflywheel.llm._lazy import start_lazy_servers
from tomflywheel.llm._limit import AdaptiveLimit, LatencyDeadline
from tomflywheel.llm._patience import NO_CONNECTION, TIMEOUT, Patience
from tomflywheel.llm._retry import RetryDelay, is_overload, is_retryable
from tomflywheel.llm._stats import UsageStats

logger = logging.getLogger(__name__)

ApiPath = Literal["chat/completions", "completions", "tokenize"]
"""``tokenize`` is vLLM's own route, beside ``/v1`` rather than under it."""


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

    Adaptive concurrency: timeouts, 429 and 503 halve the in-flight limit, successes raise it
    again, and deadlines grow with the latency the server shows, so a slow server slows the run
    down instead of failing it. Overload is retried (honouring Retry-After); other 5xx a
    bounded number of times; other 4xx never. The client gives up when no request has completed
    for ``unreachable_after_s`` (a server answering ``/models`` alone is not progress), saying
    what the server did meanwhile. Several base
    URLs with balancing and failover; a persistent request cache keyed by model + full body.

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
        self._limit = AdaptiveLimit(settings.concurrency)
        self._deadline = LatencyDeadline(settings.timeout_s, settings.max_timeout_s)
        self._delay = RetryDelay(settings.backoff_initial_s, settings.backoff_max_s)
        self._patience = Patience(settings.unreachable_after_s)
        self._inflight: dict[str, asyncio.Future[tuple[dict[str, Any], float, bool]]] = {}
        self.stats = UsageStats(concurrency_now=settings.concurrency)
        self.stats.concurrency_lowest = settings.concurrency
        self._start_lock = asyncio.Lock()
        self._servers_started = False
        self.server_features: dict[str, bool] = {}
        """What this client found its servers can do (``token_scoring``: see ``score_pairs``)."""

    @property
    def concurrency(self) -> int:
        """The most requests ever allowed in flight at once (the limit adapts below it)."""
        return self.settings.concurrency

    async def request(
        self, path: ApiPath, body: dict[str, Any]
    ) -> tuple[dict[str, Any], float, bool]:
        """Send one request body (``model`` is filled in); returns (response, latency, cached).

        Raises:
            LLMRequestError: The server refused this request (a 4xx other than 429).
            ServerError: No request completed for ``unreachable_after_s`` (the message says what
                the server did), or a 5xx other than overload outlasted ``max_retries``.
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
        if not self._servers_started:
            async with self._start_lock:
                # An embedded server waiting for its first request starts now (in a thread:
                # the start blocks for a minute, the cache keeps answering meanwhile).
                await asyncio.to_thread(start_lazy_servers, self.settings.base_urls)
                self._servers_started = True
        self._patience.started()
        try:
            return await self._attempts(path, body)
        finally:
            self._patience.ended()

    async def _attempts(self, path: ApiPath, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
        attempt = errors = timeouts = 0
        while True:
            attempt += 1
            await self._limit.acquire()
            endpoint = self._pool.acquire()
            # Never wait on one attempt past the patience left: a hung server must not hang us.
            patience_s = max(1.0, self._patience.remaining_s())
            deadline = min(self._deadline.for_attempt(timeouts), patience_s)
            healthy = False
            try:
                response, latency = await self._send_once(endpoint, path, body, deadline)
            except openai.APIStatusError as err:
                healthy = not is_retryable(err)  # a 400 says nothing about the endpoint's health
                if not is_retryable(err):
                    self._patience.completed()  # the server dealt with it: a refusal is an answer
                    self.stats.failures += 1
                    raise LLMRequestError(err.status_code, _message(err)) from err
                self._patience.failed(f"HTTP {err.status_code}")
                if not is_overload(err):
                    errors += 1
                    if errors > self.settings.max_retries:
                        self.stats.failures += 1
                        raise ServerError(
                            f"{endpoint.base_url}: HTTP {err.status_code} after {attempt} "
                            f"attempts: {_message(err)}"
                        ) from err
                failure: Exception = err
            except openai.APIConnectionError as err:
                if isinstance(err, openai.APITimeoutError):
                    timeouts += 1
                    self._patience.failed(TIMEOUT)
                    if deadline < patience_s:  # the server was slow, not our patience short
                        self._deadline.timed_out(deadline)
                else:
                    self._patience.failed(NO_CONNECTION)
                failure = err
            else:
                healthy = True
                self._patience.completed()
                self._limit.succeeded()
                self._deadline.observe(latency)
                self._update_limit_stats()
                return response, latency
            finally:
                self._pool.release(endpoint, ok=healthy)
                await self._limit.release()
            self._give_up_if_stuck(failure)
            if is_overload(failure) and self._limit.overloaded(self._deadline.round_trip_s):
                logger.info(
                    "slowing down after %s: at most %d requests in flight",
                    failure.__class__.__name__,
                    self._limit.current,
                )
            self._update_limit_stats()
            self.stats.retries += 1
            logger.debug("retrying after %s (attempt %d)", failure.__class__.__name__, attempt)
            delay = self._delay(failure, attempt)
            await asyncio.sleep(min(delay, self._patience.remaining_s() + 0.05))

    async def _send_once(
        self, endpoint: Endpoint, path: ApiPath, body: dict[str, Any], deadline_s: float
    ) -> tuple[dict[str, Any], float]:
        started = time.perf_counter()
        self.stats.requests_sent += 1
        url = f"/{path}"
        if path == "tokenize":  # beside /v1: an absolute URL, not one under the client's base
            url = f"{endpoint.base_url.removesuffix('/').removesuffix('/v1')}/{path}"
        response = await endpoint.client.post(
            url, cast_to=object, body=body, options={"timeout": deadline_s}
        )
        latency = time.perf_counter() - started
        if not isinstance(response, dict):
            raise ServerError(f"{endpoint.base_url}/{path}: expected a JSON object in reply")
        self.stats.record_response(endpoint.base_url, response.get("usage"), latency)
        return response, latency

    def _give_up_if_stuck(self, err: Exception) -> None:
        """Raise once no request has completed for ``unreachable_after_s``.

        Only a completion counts: a server answering ``/models`` but nothing else is stuck.
        """
        if not self._patience.exhausted():
            return
        self.stats.failures += 1
        raise ServerError(
            f"LLM server at {', '.join(self.settings.base_urls)}: {self._patience.describe()} "
            f"(llm.unreachable_after_s; last error {err.__class__.__name__}). "
            "Work done so far is kept: run the same command again to resume"
        ) from err

    def _update_limit_stats(self) -> None:
        self.stats.concurrency_now = self._limit.current
        self.stats.concurrency_lowest = self._limit.lowest
        self.stats.slow_downs = self._limit.slow_downs

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

    async def tokenize(self, text: str) -> list[int]:
        """The token ids the server gives ``text`` as a prompt (vLLM's ``/tokenize``).

        Raises:
            LLMRequestError: The server has no such route (not vLLM) or refused the text.
        """
        response, _, _ = await self.request("tokenize", {"prompt": text})
        tokens = response.get("tokens")
        if not isinstance(tokens, list):
            raise ServerError("/tokenize replied without a token list (is it vLLM?)")
        return [int(token) for token in tokens]

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
