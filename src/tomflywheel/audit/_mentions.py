"""Where a story names each candidate: word positions of its distinguishing words.

Options that share words ("Noor believes the pitcher contains oat milk." / "... almond milk.")
are told apart by what differs: the words left after removing the prefix and suffix all
candidates share. Matching is on normalized whole words (``green_bucket`` = "the green bucket").
"""

from __future__ import annotations

from collections.abc import Sequence

from tomflywheel.asking import normalize_tokens


def _shared_prefix(token_lists: Sequence[list[str]]) -> int:
    shortest = min(len(tokens) for tokens in token_lists)
    n = 0
    while n < shortest and len({tuple(tokens[n : n + 1]) for tokens in token_lists}) == 1:
        n += 1
    return n


def distinguishing_words(candidates: Sequence[str]) -> list[list[str]]:
    """Each candidate's normalized words minus the prefix and suffix all of them share."""
    tokens = [normalize_tokens(c) for c in candidates]
    if len(tokens) < 2 or not all(tokens):
        return tokens
    start = _shared_prefix(tokens)
    end = _shared_prefix([t[start:][::-1] for t in tokens])
    trimmed = [t[start : len(t) - end] for t in tokens]
    return trimmed if all(trimmed) else tokens


def mention_positions(story: str, candidates: Sequence[str]) -> tuple[tuple[int, ...], ...]:
    """For each candidate, the word positions (in the normalized story) where it is named."""
    words = normalize_tokens(story)
    out = []
    for needle in distinguishing_words(candidates):
        width = len(needle)
        out.append(
            tuple(
                i
                for i in range(len(words) - width + 1)
                if needle and words[i : i + width] == needle
            )
        )
    return tuple(out)
