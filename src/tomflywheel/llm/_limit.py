"""Adaptive load: an AIMD limit on requests in flight, and deadlines that follow the latency.

A slow or overloaded server answers timeouts, 429 or 503. Sending the same load again only makes
it worse, so the limit halves on such a sign (at most once per round trip, since requests already
in flight were sent under the old limit) and grows back by about one per round trip of successes.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable


class AdaptiveLimit:
    """How many requests may be in flight; lowered on overload, raised again on success.

    Args:
        maximum: The configured concurrency: the limit never grows past it.
        minimum: The floor of the limit.
        clock: Monotonic seconds (a parameter so tests can step time).
    """

    def __init__(
        self, maximum: int, *, minimum: int = 1, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.maximum = maximum
        self.minimum = max(1, min(minimum, maximum))
        self._limit = float(maximum)
        self.lowest = maximum
        """The lowest the limit went."""
        self.slow_downs = 0
        """How many times the limit was lowered."""
        self.in_flight = 0
        self._clock = clock
        self._calm_after = 0.0
        self._changed = asyncio.Condition()

    @property
    def current(self) -> int:
        """Requests allowed in flight now."""
        return max(self.minimum, int(self._limit))

    async def acquire(self) -> None:
        """Wait for a free slot under the current limit, and take it."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight < self.current)
            self.in_flight += 1

    async def release(self) -> None:
        """Give a slot back."""
        async with self._changed:
            self.in_flight -= 1
            self._changed.notify_all()

    def succeeded(self) -> None:
        """Additive increase: about +1 per limit's worth of successes."""
        if self._limit < self.maximum:
            self._limit = min(float(self.maximum), self._limit + 1.0 / max(1.0, self._limit))

    def overloaded(self, round_trip_s: float) -> bool:
        """Multiplicative decrease on a sign of overload; returns whether the limit was lowered.

        Args:
            round_trip_s: The current expected latency: further signs within it come from
                requests sent before this decrease and do not lower the limit again.
        """
        now = self._clock()
        if now < self._calm_after or self._limit <= self.minimum:
            return False
        self._calm_after = now + round_trip_s
        self._limit = max(float(self.minimum), self._limit / 2)
        self.slow_downs += 1
        self.lowest = min(self.lowest, self.current)
        return True


class LatencyDeadline:
    """Request deadlines that grow with the latency the server shows, never below the base.

    The deadline of a first attempt is ``factor`` times the slowest of the recent latencies (at
    least ``base_s``); each timeout of the same request doubles its deadline, up to ``max_s``.

    Args:
        base_s: The configured timeout.
        max_s: The longest deadline.
        factor: Headroom over the slowest recent latency.
        window: How many recent latencies are remembered.
    """

    def __init__(
        self, base_s: float, max_s: float, *, factor: float = 3.0, window: int = 64
    ) -> None:
        self.base_s = base_s
        self.max_s = max(max_s, base_s)
        self.factor = factor
        self._recent: deque[float] = deque(maxlen=window)
        self._timed_out_at = 0.0

    def observe(self, latency_s: float) -> None:
        """Remember one answered request's latency."""
        self._recent.append(latency_s)

    def timed_out(self, deadline_s: float) -> None:
        """A request used all of ``deadline_s``: later first attempts get at least twice that."""
        self._timed_out_at = max(self._timed_out_at, deadline_s)

    @property
    def round_trip_s(self) -> float:
        """The typical latency now (the slowest recent one, or the base before any answer)."""
        return max(self._recent) if self._recent else self.base_s

    def for_attempt(self, timeouts_so_far: int) -> float:
        """The deadline of a request's next attempt after ``timeouts_so_far`` timeouts."""
        slowest = max(self._recent, default=0.0)
        first = max(self.base_s, self.factor * slowest, 2 * self._timed_out_at)
        return min(self.max_s, first * 2**timeouts_so_far)
