"""Deterministic randomness: every random choice is seeded from (purpose, key)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def stable_seed(purpose: str, key: object) -> int:
    """A 64-bit seed from a stable hash of ``purpose`` and ``key`` (never Python's salted hash)."""
    digest = hashlib.blake2b(f"{purpose}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def rng_for(purpose: str, key: object) -> random.Random:
    """A ``random.Random`` seeded from ``purpose`` and ``key``.

    Adding a new purpose never changes the stream of another, so outputs stay byte-identical.
    """
    return random.Random(stable_seed(purpose, key))


class Draws:
    """``choice``, ``sample`` and ``randint`` of a ``random.Random``, in fewer Python calls.

    The same values from the same state (a generator's searches draw hundreds of thousands).
    Each method follows CPython's algorithm step for step (``_randbelow`` by ``getrandbits``
    with rejection; ``sample``'s pool for populations of at most 21, the only case it
    reimplements); the stream stays shared with ``rng``, and a test holds every method to it.
    """

    __slots__ = ("_bits", "rng")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._bits = rng.getrandbits

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (``n > 0``), as ``Random._randbelow``."""
        bits = self._bits
        k = n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        return r

    def choice(self, seq: Sequence[T]) -> T:
        """As ``Random.choice``."""
        if not seq:
            raise IndexError("Cannot choose from an empty sequence")
        return seq[self.below(len(seq))]

    def randint(self, a: int, b: int) -> int:
        """As ``Random.randint`` (``a <= b``)."""
        if b < a:
            return self.rng.randint(a, b)  # its error
        return a + self.below(b - a + 1)

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        """As ``Random.sample`` (without ``counts``)."""
        n = len(population)
        if n > _SAMPLE_POOL or not 0 <= k <= n:
            return self.rng.sample(population, k)  # its set-based algorithm, or its error
        pool = list(population)
        result = []
        bits = self._bits
        for i in range(k):
            left = n - i
            width = left.bit_length()
            j = bits(width)
            while j >= left:
                j = bits(width)
            result.append(pool[j])
            pool[j] = pool[left - 1]
        return result


_SAMPLE_POOL = 21
"""``Random.sample`` picks from a copied pool up to this population size (any ``k``)."""
