"""Log-prob scoring through generation requests, which the server's prefix cache serves.

vLLM computes prompt log-probs (the ``echo`` form) for every prompt position and never reads
its prefix cache for such requests, so each option of an item pays for the whole context.
Here the context is tokenized once and each continuation token's log-prob is read from a
one-request walk: the request's prompt is the context (plus the continuation tokens already
read), ``logprob_token_ids`` asks the full-vocabulary log-prob of the continuation's tokens at
every generated step, and greedy decoding usually follows the continuation for several steps.
A step counts only while the generated tokens so far equal the continuation's, so every value
is the model's log-prob of that token after exactly the context and the tokens before it: the
echo form's numbers. Later requests of an item share its context, which the prefix cache
holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tomflywheel.errors import LLMRequestError
from tomflywheel.llm._content import ContentClient

FEATURE = "token_scoring"
"""``ContentClient.server_features`` key: whether the server scores by generation requests."""

_ID_PREFIX = "token_id:"


@dataclass
class _Walk:
    """One continuation's tokens and how many of them have a log-prob yet."""

    tokens: list[int]
    read: int = 0
    logprob: float = 0.0

    @property
    def done(self) -> bool:
        return self.read == len(self.tokens)


class Unsupported(Exception):
    """The server did not answer with the asked token log-probs (not vLLM, or an old one)."""


async def continuation_token_logprobs(
    client: ContentClient, context: str, continuations: Sequence[str]
) -> list[tuple[float, int]] | None:
    """Each continuation's summed log-prob and token count after ``context``, or None.

    None: a continuation's first token merges with the context's last characters (the context's
    tokens are not a prefix of the whole text's), or one is empty; the echo form scores those.

    Raises:
        Unsupported: The server lacks ``/tokenize`` or ``logprob_token_ids``.
        LLMRequestError: The server refused a request for another reason.
    """
    try:
        context_ids, *whole = await asyncio.gather(
            client.tokenize(context), *(client.tokenize(context + c) for c in continuations)
        )
    except LLMRequestError as err:
        if err.status in (404, 405):
            raise Unsupported(f"no /tokenize route (HTTP {err.status})") from err
        raise
    n = len(context_ids)
    if n == 0 or any(len(ids) <= n or ids[:n] != context_ids for ids in whole):
        return None
    walks = [_Walk(ids[n:]) for ids in whole]
    while pending := [walk for walk in walks if not walk.done]:
        by_prefix: dict[tuple[int, ...], list[_Walk]] = {}
        for walk in pending:
            by_prefix.setdefault(tuple(walk.tokens[: walk.read]), []).append(walk)
        await asyncio.gather(
            *(_advance(client, context_ids + list(p), group) for p, group in by_prefix.items())
        )
    return [(walk.logprob, len(walk.tokens)) for walk in walks]


async def _advance(client: ContentClient, prompt: list[int], walks: list[_Walk]) -> None:
    """One greedy request after ``prompt``: every walk reads at least its next token."""
    wanted = sorted({t for walk in walks for t in walk.tokens[walk.read :]})
    steps = max(len(walk.tokens) - walk.read for walk in walks)
    body: dict[str, Any] = {
        "prompt": prompt, "max_tokens": steps, "temperature": 0.0, "ignore_eos": True,
        "logprobs": 0, "logprob_token_ids": wanted, "return_tokens_as_token_ids": True,
    }  # fmt: skip
    try:
        response, _, _ = await client.request("completions", body)
    except LLMRequestError as err:
        if err.status == 400 and "logprob_token_ids" in str(err):
            raise Unsupported(str(err)) from err
        raise
    generated, per_step = _steps(response)
    for walk in walks:
        for step, values in enumerate(per_step):
            token = walk.tokens[walk.read]
            value = values.get(token)
            if value is None:
                raise Unsupported(f"no log-prob for token {token} at step {step + 1}")
            walk.logprob += value
            walk.read += 1
            if walk.done or generated[step] != token:
                break  # later steps follow another text: ask again from here


def _steps(response: dict[str, Any]) -> tuple[list[int], list[dict[int, float]]]:
    """The generated token ids and, per step, the log-probs of the asked ids."""
    logprobs = (response.get("choices") or [{}])[0].get("logprobs") or {}
    tokens, top = logprobs.get("tokens") or [], logprobs.get("top_logprobs") or []
    if not tokens or len(top) != len(tokens):
        raise Unsupported("the reply has no per-step log-probs")
    try:
        generated = [_token_id(token) for token in tokens]
        per_step = [{_token_id(k): float(v) for k, v in step.items()} for step in top]
    except ValueError as err:
        raise Unsupported(f"tokens not returned as ids ({err})") from err
    return generated, per_step


def _token_id(text: str) -> int:
    if not text.startswith(_ID_PREFIX):
        raise ValueError(text[:40])
    return int(text.removeprefix(_ID_PREFIX))
