"""Usage and latency accounting for every request a client makes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class UsageStats:
    """Counters of one client's traffic; ``requests_sent`` counts only what reached a server."""

    requests_sent: int = 0
    """Requests that reached a server (each retry counts)."""
    cache_hits: int = 0
    """Calls answered from the request cache."""
    retries: int = 0
    """Attempts repeated after a retryable error."""
    failures: int = 0
    """Calls that failed for good (refused, or out of retries)."""
    prompt_tokens: int = 0
    """Prompt tokens of answered requests (cache hits excluded)."""
    completion_tokens: int = 0
    """Generated tokens of answered requests (cache hits excluded)."""
    latency_s_total: float = 0.0
    """Summed wall time of answered requests."""
    per_endpoint: dict[str, int] = field(default_factory=dict)
    """Answered requests per base URL."""
    concurrency_now: int = 0
    """The adaptive in-flight limit at the end (or now)."""
    concurrency_lowest: int = 0
    """The lowest the in-flight limit went."""
    slow_downs: int = 0
    """How many times overload (timeouts, 429, 503) lowered the in-flight limit."""

    def record_response(
        self, base_url: str, usage: dict[str, Any] | None, latency_s: float
    ) -> None:
        """Count one answered request."""
        self.per_endpoint[base_url] = self.per_endpoint.get(base_url, 0) + 1
        self.latency_s_total += latency_s
        if usage:
            self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.completion_tokens += int(usage.get("completion_tokens") or 0)

    def add(self, other: UsageStats) -> None:
        """Count another client's traffic too (a Ray worker's, for one stage's total)."""
        self.requests_sent += other.requests_sent
        self.cache_hits += other.cache_hits
        self.retries += other.retries
        self.failures += other.failures
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.latency_s_total += other.latency_s_total
        for base_url, count in other.per_endpoint.items():
            self.per_endpoint[base_url] = self.per_endpoint.get(base_url, 0) + count
        self.concurrency_lowest = min(self.concurrency_lowest, other.concurrency_lowest)
        self.slow_downs += other.slow_downs

    @property
    def answered(self) -> int:
        """Requests answered by a server."""
        return sum(self.per_endpoint.values())

    def as_dict(self) -> dict[str, Any]:
        """Plain data for summaries and manifests."""
        answered = self.answered
        return {
            "requests_sent": self.requests_sent,
            "cache_hits": self.cache_hits,
            "retries": self.retries,
            "failures": self.failures,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "mean_latency_s": round(self.latency_s_total / answered, 4) if answered else None,
            "per_endpoint": dict(sorted(self.per_endpoint.items())),
            "concurrency_now": self.concurrency_now,
            "concurrency_lowest": self.concurrency_lowest,
            "slow_downs": self.slow_downs,
        }
