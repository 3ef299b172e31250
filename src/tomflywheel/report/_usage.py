"""What a stage asked of the LLM, in words: requests sent, answers the request cache gave."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def usage_text(usage: Mapping[str, Any], *, tokens: bool = True) -> str:
    """``0 requests sent, 402 answers from the request cache, tokens 10 in / 5 out``.

    Cached work is named as cached: a fully cached run reads as 402 answers reused, not as
    "0 requests" with the hits left unsaid.

    Args:
        usage: A stage's usage counters (``requests_sent``, ``cache_hits``, ``*_tokens``).
        tokens: Also the prompt and completion tokens of the requests sent.
    """
    sent = int(usage.get("requests_sent", 0))
    hits = int(usage.get("cache_hits", 0))
    parts = [f"{sent:,} request{'' if sent == 1 else 's'} sent"]
    if hits:
        parts.append(f"{hits:,} answer{'' if hits == 1 else 's'} from the request cache")
    if tokens and sent:
        parts.append(
            f"tokens {int(usage.get('prompt_tokens', 0)):,} in / "
            f"{int(usage.get('completion_tokens', 0)):,} out"
        )
    return ", ".join(parts)
