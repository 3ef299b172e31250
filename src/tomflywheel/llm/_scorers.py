"""The scoring interface: how likely each (context, continuation) pair is, by a named backend.

``server`` scores through the OpenAI-compatible server; ``causal``, ``mlm`` and ``mntp``
(``llm/_hf_scorers.py``) load a Hugging Face folder in this process. Every backend is a small
factory registered in :data:`SCORERS` and returns a :class:`Scorer`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from tomflywheel._registry import Registry
from tomflywheel.config import ScoringSettings
from tomflywheel.errors import ConfigError, LLMRequestError
from tomflywheel.llm._batch import ProgressCallback, run_batch
from tomflywheel.llm._content import ContentClient
from tomflywheel.llm._logprob import ContinuationScore, ScoringPair, score_pairs

"""(context, continuation): the continuation's tokens are scored given the context."""


class Scorer(Protocol):
    """Scores items; an item is the pairs of one question (one pair per option)."""

    name: str
    """The backend's registry name."""
    in_process: bool
    """Runs the model in this process (no server needed)."""

    async def score(
        self,
        items: Sequence[Sequence[ScoringPair]],
        *,
        on_progress: ProgressCallback | None = None,
    ) -> list[list[ContinuationScore] | LLMRequestError]:
        """One list of scores per item, in input order; a refused item is its error."""
        ...

    def close(self) -> None:
        """Free the model or connection."""
        ...


ScorerFactory = Callable[..., Scorer]
"""``(settings: ScoringSettings, *, client: ContentClient | None) -> Scorer``."""

SCORERS: Registry[ScorerFactory] = Registry("scoring backend")
"""Scoring backends by name (``eval.scoring.backend``, ``--backend``)."""


def build_scorer(settings: ScoringSettings, *, client: ContentClient | None = None) -> Scorer:
    """The configured backend's scorer.

    Raises:
        ConfigError: Unknown backend, or a missing model folder / server client.
    """
    return SCORERS.get(settings.backend)(settings, client=client)


@dataclass
class ServerScorer:
    """Scores through the server's prompt log-probs, one request per item."""

    client: ContentClient
    name: str = "server"
    in_process: bool = False

    async def score(
        self,
        items: Sequence[Sequence[ScoringPair]],
        *,
        on_progress: ProgressCallback | None = None,
    ) -> list[list[ContinuationScore] | LLMRequestError]:
        """Score at the client's concurrency."""

        async def one(item: Sequence[ScoringPair]) -> list[ContinuationScore]:
            return await score_pairs(self.client, item)

        return await run_batch(
            items, one, concurrency=self.client.concurrency, on_progress=on_progress
        )

    def close(self) -> None:
        """The client belongs to its opener: nothing to free here."""


@SCORERS.register("server")
def server_scorer(settings: ScoringSettings, *, client: ContentClient | None = None) -> Scorer:
    """The OpenAI-compatible server's ``/v1/completions`` prompt log-probs (vLLM).

    Raises:
        ConfigError: No client given.
    """
    if client is None:
        raise ConfigError("the server scoring backend needs an LLM client")
    return ServerScorer(client)
