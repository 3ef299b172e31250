"""Bounded patience: how long a client waits without a completed request, and what it saw.

Only a completed request is progress. A server that answers ``/models`` but returns 503 to every
completion, or never answers one, must not keep a run waiting forever: after ``limit_s`` without
a completion the client gives up and says what the server did meanwhile.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

TIMEOUT = "timeout"
NO_CONNECTION = "no connection"


class Patience:
    """The clock since the last completed request, and the failed attempts since then.

    The clock restarts on each completion, and when a request starts while none was
    outstanding (an idle client has not been waiting).

    Args:
        limit_s: How long to wait without a completion (``llm.unreachable_after_s``).
        clock: Monotonic seconds (a parameter so tests can step time).
    """

    def __init__(self, limit_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit_s = limit_s
        self._clock = clock
        self._since = clock()
        self._outstanding = 0
        self.failures: Counter[str] = Counter()
        """Failed attempts since the last completion: ``HTTP 503``, ``timeout``, ..."""

    def started(self) -> None:
        """A request begins (its retries included)."""
        if self._outstanding == 0:
            self._restart()
        self._outstanding += 1

    def ended(self) -> None:
        """A request is over, answered or not."""
        self._outstanding -= 1

    def completed(self) -> None:
        """The server completed a request: that is progress."""
        self._restart()

    def failed(self, kind: str) -> None:
        """One attempt failed: ``HTTP <status>``, ``TIMEOUT`` or ``NO_CONNECTION``."""
        self.failures[kind] += 1

    def waited_s(self) -> float:
        """Seconds since the last completion (or since the client started waiting)."""
        return self._clock() - self._since

    def remaining_s(self) -> float:
        """Seconds left before giving up (0 when exhausted)."""
        return max(0.0, self.limit_s - self.waited_s())

    def exhausted(self) -> bool:
        """Whether the client has waited ``limit_s`` without a completion."""
        return self.waited_s() >= self.limit_s

    def describe(self) -> str:
        """What the server did: ``no completion in 30 s: 76 replies were HTTP 503, 0 timeouts``."""
        statuses = sorted(k for k in self.failures if k.startswith("HTTP "))
        parts = []
        if statuses:
            first, *rest = statuses
            n = self.failures[first]
            parts.append(f"{_count(n, 'reply', 'replies')} {'was' if n == 1 else 'were'} {first}")
            parts += [f"{self.failures[k]} {k}" for k in rest]
        parts.append(_count(self.failures[TIMEOUT], "timeout", "timeouts"))
        if self.failures[NO_CONNECTION]:
            refused = _count(self.failures[NO_CONNECTION], "connection", "connections")
            parts.append(f"{refused} failed (unreachable)")
        return f"no completion in {self.waited_s():.0f} s: {', '.join(parts)}"

    def _restart(self) -> None:
        self._since = self._clock()
        self.failures.clear()


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
