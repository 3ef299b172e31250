"""Which failures are worth retrying, which mean overload, and how long to wait before retrying."""

from __future__ import annotations

import random

import openai

OVERLOAD_STATUSES = frozenset({429, 503, 504})
"""Statuses that say "too much load": the client slows down instead of counting them as errors."""


def is_retryable(exc: BaseException) -> bool:
    """Connection errors, timeouts, 429 and 5xx are transient; other 4xx are the request's fault."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return False


def is_overload(exc: BaseException) -> bool:
    """A timeout, 429, 503 or 504: the server (or a proxy before it) is too busy right now."""
    if isinstance(exc, openai.APITimeoutError):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code in OVERLOAD_STATUSES


def retry_after_s(exc: BaseException | None) -> float | None:
    """Seconds a 429/503 reply asks us to wait (``Retry-After`` or ``retry-after-ms``), if any."""
    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue
    return None


class RetryDelay:
    """Exponential backoff with jitter (half to all of a step), unless the server says how long.

    Args:
        initial_s: Upper bound of the first delay; doubles each attempt.
        max_s: Cap of the exponential delay.
        rng: Jitter source (seeded in tests).
    """

    def __init__(self, initial_s: float, max_s: float, rng: random.Random | None = None) -> None:
        self.initial_s = initial_s
        self.max_s = max_s
        self._rng = rng or random.Random()

    def __call__(self, exc: BaseException | None, attempt: int) -> float:
        """Seconds to wait after failed attempt ``attempt`` (from 1), which raised ``exc``."""
        asked = retry_after_s(exc)
        if asked is not None:
            # A server's request wins over our schedule, but a broken header must not stall us.
            return min(asked, self.max_s * 5)
        ceiling = min(self.max_s, self.initial_s * 2 ** (attempt - 1))
        return self._rng.uniform(ceiling / 2, ceiling)
