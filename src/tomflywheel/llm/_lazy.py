"""Embedded servers that start on their first request, by base URL (in this process)."""

from __future__ import annotations

from collections.abc import Callable, Collection

_starts: dict[str, Callable[[], None]] = {}
"""Base URL -> the start of an embedded server not started yet (``llm_endpoint(lazy=True)``)."""


def register_lazy_start(base_url: str, start: Callable[[], None]) -> None:
    """Make ``start`` (idempotent, thread-safe) run before the first request to ``base_url``."""
    _starts[base_url] = start


def forget_lazy_start(base_url: str) -> None:
    """Forget ``base_url``'s start (its server stopped, or was never needed)."""
    _starts.pop(base_url, None)


def start_lazy_servers(base_urls: Collection[str]) -> None:
    """Start the embedded servers behind ``base_urls`` that wait for their first request.

    Called by the client before it sends its first request (a cache miss): a stage whose every
    answer is in the request cache never starts a server. Blocks until the servers answer.

    Raises:
        ServerError: A server could not start (every later call raises it again).
    """
    for url in base_urls:
        start = _starts.get(url)
        if start is not None:
            start()
