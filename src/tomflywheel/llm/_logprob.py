"""Log-prob scoring: how likely each candidate continuation is after a context."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tomflywheel.errors import LLMRequestError, ServerError
from tomflywheel.llm._batch import ProgressCallback, run_batch
from tomflywheel.llm._content import ContentClient
from tomflywheel.llm._token_scoring import FEATURE, Unsupported, continuation_token_logprobs

logger = logging.getLogger(__name__)

ScoringPair = tuple[str, str]
"""(context, continuation): the continuation is scored after the context."""


@dataclass(frozen=True)
class ContinuationScore:
    """The summed log-probability of one continuation's tokens."""

    continuation: str
    logprob: float
    n_tokens: int


@dataclass(frozen=True)
class FirstToken:
    """The first generated token and the most likely alternatives."""

    token: str
    logprob: float
    top: dict[str, float]


def continuation_logprob(
    logprobs: dict[str, Any], context_chars: int, *, generated: int = 1
) -> tuple[float, int]:
    """Sum the log-probs of the tokens that cover text after ``context_chars``.

    Tokens are located by their text offsets; a token straddling the boundary (when the tokenizer
    merges the context's last characters with the continuation's first) counts as continuation.

    Args:
        logprobs: ``choices[i].logprobs`` of an ``echo=True`` completion.
        context_chars: Length of the context in characters.
        generated: Generated tokens after the echoed prompt (``max_tokens``), left out.

    Returns:
        (summed log-prob, number of tokens).
    """
    end = len(logprobs["tokens"]) - generated
    tokens: list[str] = logprobs["tokens"][:end]
    offsets: list[int] = logprobs["text_offset"][:end]
    values: list[float | None] = logprobs["token_logprobs"][:end]
    total, count = 0.0, 0
    for token, offset, value in zip(tokens, offsets, values, strict=True):
        if offset + len(token) <= context_chars:
            continue
        if value is None:  # the very first prompt token has no log-prob
            raise ServerError("cannot score a continuation that starts the prompt")
        total += value
        count += 1
    return total, count


async def score_pairs(
    client: ContentClient, pairs: Sequence[ScoringPair]
) -> list[ContinuationScore]:
    """Score every pair: by generation requests where the server allows, else by echo.

    Pairs sharing a context are read from greedy generation requests after it (see
    ``_token_scoring``): the server's prefix cache holds the context, and only the asked
    tokens' log-probs are computed. The first time a server turns that form down (no
    ``/tokenize`` or ``logprob_token_ids``: not vLLM), the client remembers it and every later
    item goes by echo. A continuation that merges with its context's last characters goes by
    echo too. Both forms give the same numbers.

    Raises:
        LLMRequestError: The server refused a request (e.g. a prompt is too long).
        ServerError: The reply lacks log-probs or some prompts.
    """
    if not pairs:
        return []
    scores: list[ContinuationScore | None] = [None] * len(pairs)
    if client.server_features.get(FEATURE, True):
        scores = await _score_by_generation(client, pairs)
    rest = [index for index, score in enumerate(scores) if score is None]
    if rest:
        echoed = await score_by_echo(client, [pairs[i] for i in rest])
        for index, score in zip(rest, echoed, strict=True):
            scores[index] = score
    return [score for score in scores if score is not None]


async def _score_by_generation(
    client: ContentClient, pairs: Sequence[ScoringPair]
) -> list[ContinuationScore | None]:
    """Each pair's score read by generation requests; None where only echo can score it."""
    scores: list[ContinuationScore | None] = [None] * len(pairs)
    by_context: dict[str, list[int]] = {}
    for index, (context, _) in enumerate(pairs):
        by_context.setdefault(context, []).append(index)
    try:
        for context, indices in by_context.items():
            continuations = [pairs[i][1] for i in indices]
            read = await continuation_token_logprobs(client, context, continuations)
            if read is None:
                continue
            for index, (logprob, n_tokens) in zip(indices, read, strict=True):
                scores[index] = ContinuationScore(pairs[index][1], logprob, n_tokens)
    except Unsupported as err:
        logger.info("scoring by echo from now on: the server %s", err)
        client.server_features[FEATURE] = False
        return [None] * len(pairs)
    return scores


async def score_by_echo(
    client: ContentClient, pairs: Sequence[ScoringPair]
) -> list[ContinuationScore]:
    """Score every pair in one ``/v1/completions`` request (each prompt is context + continuation).

    The request echoes the prompts with only their own tokens' log-probs (``logprobs=0``: no
    top alternatives) and generates nothing (``max_tokens=0``, vLLM's echo-only form), which
    keeps the reply about a quarter smaller than ``logprobs=1, max_tokens=1`` with the same
    scores. (A request cache written before this form holds the older bodies: never reused.)

    Raises:
        LLMRequestError: The server refused the request (e.g. a prompt is too long).
        ServerError: The reply lacks log-probs or some prompts.
    """
    if not pairs:
        return []
    reply = await client.complete(
        [context + continuation for context, continuation in pairs],
        echo=True,
        logprobs=0,
        max_tokens=0,
        temperature=0.0,
    )
    choices = sorted(reply.raw["choices"], key=lambda choice: choice["index"])
    if len(choices) != len(pairs):
        raise ServerError(f"expected {len(pairs)} scored prompts, got {len(choices)}")
    scores = []
    for (context, continuation), choice in zip(pairs, choices, strict=True):
        if not choice.get("logprobs"):
            raise ServerError("the server returned no log-probs (is it an OpenAI-compatible vLLM?)")
        logprob, n_tokens = continuation_logprob(choice["logprobs"], len(context), generated=0)
        scores.append(ContinuationScore(continuation, logprob, n_tokens))
    return scores


async def score_continuations(
    client: ContentClient, context: str, continuations: Sequence[str]
) -> list[ContinuationScore]:
    """Score every continuation after ``context`` in one ``/v1/completions`` request.

    Raises:
        LLMRequestError: The server refused the request (e.g. the prompt is too long).
    """
    return await score_pairs(client, [(context, continuation) for continuation in continuations])


async def score_many(
    client: ContentClient,
    items: Sequence[tuple[str, Sequence[str]]],
    *,
    on_progress: ProgressCallback | None = None,
) -> list[list[ContinuationScore] | LLMRequestError]:
    """Score many (context, candidates) pairs at the client's concurrency, in input order."""

    async def score(item: tuple[str, Sequence[str]]) -> list[ContinuationScore]:
        return await score_continuations(client, item[0], item[1])

    return await run_batch(items, score, concurrency=client.concurrency, on_progress=on_progress)


async def first_token(client: ContentClient, prompt: str, *, top: int = 5) -> FirstToken:
    """The first token the model generates after ``prompt`` (greedy), with its top alternatives."""
    reply = await client.complete(prompt, max_tokens=1, logprobs=top, temperature=0.0)
    logprobs = reply.raw["choices"][0].get("logprobs") or {}
    tokens = logprobs.get("tokens") or [reply.text]
    values = logprobs.get("token_logprobs") or [0.0]
    alternatives = (logprobs.get("top_logprobs") or [{}])[0] or {}
    return FirstToken(token=tokens[0], logprob=float(values[0] or 0.0), top=dict(alternatives))
