"""Several base URLs behind one client: least-busy balancing, and failover away from dead ones."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import openai


@dataclass
class Endpoint:
    """One OpenAI-compatible base URL and its health."""

    base_url: str
    client: openai.AsyncOpenAI
    in_flight: int = 0
    failures_in_a_row: int = 0
    down_until: float = 0.0
    served: int = field(default=0)


class EndpointPool:
    """Picks an endpoint per attempt: the least busy healthy one; a failing one rests a while.

    Args:
        base_urls: Endpoints ending in ``/v1``.
        api_key: Sent as a bearer token (vLLM ignores it unless started with ``--api-key``).
        timeout_s: Per-request timeout.
        cooldown_s: First rest after a failure; doubles with each failure in a row (max 30 s).
    """

    def __init__(
        self, base_urls: list[str], *, api_key: str, timeout_s: float, cooldown_s: float = 1.0
    ) -> None:
        if not base_urls:
            raise ValueError("at least one base URL is needed")
        self._cooldown_s = cooldown_s
        self._next = 0
        self.endpoints = [
            Endpoint(
                base_url=url,
                # Retries are ours (with failover); the SDK's own would hide errors from the pool.
                client=openai.AsyncOpenAI(
                    base_url=url, api_key=api_key, max_retries=0, timeout=timeout_s
                ),
            )
            for url in base_urls
        ]

    def acquire(self) -> Endpoint:
        """Take the endpoint for the next attempt (call ``release`` when done)."""
        now = time.monotonic()
        healthy = [e for e in self.endpoints if e.down_until <= now]
        if healthy:
            # Rotate the start so ties spread across endpoints instead of piling on the first.
            start = self._next % len(healthy)
            self._next += 1
            ordered = healthy[start:] + healthy[:start]
            chosen = min(ordered, key=lambda e: e.in_flight)
        else:
            chosen = min(self.endpoints, key=lambda e: e.down_until)
        chosen.in_flight += 1
        return chosen

    def release(self, endpoint: Endpoint, *, ok: bool) -> None:
        """Return an endpoint after an attempt; a transport failure rests it."""
        endpoint.in_flight -= 1
        if ok:
            endpoint.failures_in_a_row = 0
            endpoint.down_until = 0.0
            endpoint.served += 1
            return
        endpoint.failures_in_a_row += 1
        rest = min(30.0, self._cooldown_s * 2 ** (endpoint.failures_in_a_row - 1))
        endpoint.down_until = time.monotonic() + rest

    async def close(self) -> None:
        """Close every HTTP client."""
        for endpoint in self.endpoints:
            await endpoint.client.close()
