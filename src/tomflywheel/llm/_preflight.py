"""Pre-flight: before work is sent, check the endpoints answer, serve the model, accept the kinds.

A misconfiguration (wrong model name, a base model without chat, no log-probs) so fails in seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any, Literal

import httpx

from tomflywheel.config import LLMSettings
from tomflywheel.errors import ConfigError, ServerError, UserInputError

logger = logging.getLogger(__name__)

Need = Literal["chat", "completions", "logprobs"]
"""A kind of request: chat completions, text completions, or completions with echoed log-probs."""

_PROBES: dict[Need, tuple[str, dict[str, Any]]] = {
    "chat": ("chat/completions", {"messages": [{"role": "user", "content": "Hi"}]}),
    "completions": ("completions", {"prompt": "Hi"}),
    "logprobs": ("completions", {"prompt": "Hi", "echo": True, "logprobs": 1}),
}

_verified: set[tuple[str, str, Need]] = set()
"""(base URL, model, need) already probed in this process: a flywheel round probes once, and a
stage that checks before writing is not probed again when its endpoint opens."""


def preflight(
    settings: LLMSettings, needs: Collection[Need], *, timeout_s: float = 30.0, listed: bool = True
) -> None:
    """Check the endpoints before any work is sent.

    Each base URL must answer ``/models`` and list ``settings.model``; then one 1-token request
    per needed kind must not be refused. An endpoint that does not answer only fails the check
    when none does (the client fails over); a probe that times out is not held against it.

    Args:
        settings: The endpoints, model and key to check.
        needs: The kinds of request the stage will send.
        timeout_s: Deadline of each check (at most ``settings.unreachable_after_s``).
        listed: Whether ``/models`` must list the model (an embedded server that swapped in
            another model's weights lists the name it started with).

    Raises:
        ServerError: No endpoint answers.
        UserInputError: The model is not served (the message lists the served names).
        ConfigError: The key is refused, or a needed kind of request is refused.
    """
    headers = {}
    if settings.api_key is not None:
        headers["Authorization"] = f"Bearer {settings.api_key.get_secret_value()}"
    unreachable: list[str] = []
    # A check never waits longer than the client would (llm.unreachable_after_s).
    timeout_s = min(timeout_s, settings.unreachable_after_s)
    with httpx.Client(headers=headers, timeout=timeout_s) as http:
        for url in settings.base_urls:
            try:
                served = _served_models(http, url)
            except httpx.TransportError as err:
                unreachable.append(f"{url} ({err.__class__.__name__}: {err})")
                continue
            if listed and settings.model not in served:
                raise UserInputError(
                    f"llm.model {settings.model!r} is not served at {url}; it serves: "
                    f"{', '.join(served) or '(nothing)'}"
                )
            for need in sorted(set(needs)):
                _probe(http, url, str(settings.model), need)
    if unreachable and len(unreachable) == len(settings.base_urls):
        raise ServerError(f"LLM server unreachable: {'; '.join(unreachable)}")
    for problem in unreachable:
        logger.warning("endpoint unreachable, using the others: %s", problem)


def _served_models(http: httpx.Client, url: str) -> list[str]:
    response = http.get(f"{url}/models")
    if response.status_code in (401, 403):
        raise ConfigError(
            f"{url}/models: HTTP {response.status_code}: the API key is refused (set the variable "
            "named by llm.api_key_env, or judge.llm.api_key_env for the judge)"
        )
    if response.status_code != 200:
        raise ConfigError(
            f"{url}/models: HTTP {response.status_code}: not an OpenAI-compatible endpoint?"
        )
    try:
        data = response.json().get("data") or []
        return sorted(str(m["id"]) for m in data)
    except (ValueError, AttributeError, KeyError, TypeError) as err:
        raise ConfigError(f"{url}/models: not an OpenAI model list ({err})") from err


def _probe(http: httpx.Client, url: str, model: str, need: Need) -> None:
    if (url, model, need) in _verified:
        return
    path, body = _PROBES[need]
    try:
        response = http.post(
            f"{url}/{path}", json={"model": model, "max_tokens": 1, "temperature": 0.0, **body}
        )
    except httpx.TimeoutException:
        logger.warning("%s/%s: the pre-flight probe timed out; going on", url, path)
        _verified.add((url, model, need))  # accepted as it is: the client's patience decides
        return
    if 400 <= response.status_code < 500 and response.status_code != 429:
        raise ConfigError(
            f"{url}/{path}: {need} requests are refused for model {model!r} "
            f"(HTTP {response.status_code}: {_reason(response)})"
        )
    if response.status_code != 200:
        logger.warning("%s/%s: pre-flight probe got HTTP %d", url, path, response.status_code)
        _verified.add((url, model, need))  # accepted as it is: the client's patience decides
        return
    if need == "logprobs" and not _has_logprobs(response):
        raise ConfigError(f"{url}/{path}: the reply carries no log-probs (needed by the judge)")
    _verified.add((url, model, need))


def _has_logprobs(response: httpx.Response) -> bool:
    try:
        logprobs = response.json()["choices"][0].get("logprobs") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return False
    return isinstance(logprobs.get("token_logprobs"), list)


def _reason(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])[:300]
    return str(body)[:200]
