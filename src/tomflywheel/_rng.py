"""Deterministic randomness: every random choice is seeded from (purpose, key)."""

from __future__ import annotations

import hashlib
import random


def stable_seed(purpose: str, key: object) -> int:
    """A 64-bit seed from a stable hash of ``purpose`` and ``key`` (never Python's salted hash)."""
    digest = hashlib.blake2b(f"{purpose}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def rng_for(purpose: str, key: object) -> random.Random:
    """A ``random.Random`` seeded from ``purpose`` and ``key``.

    Adding a new purpose never changes the stream of another, so outputs stay byte-identical.
    """
    return random.Random(stable_seed(purpose, key))
