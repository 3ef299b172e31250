"""Word shingles, datasketch MinHash signatures computed in bulk, and an LSH similarity index.

Signatures are exactly what ``datasketch.MinHash.update_batch`` gives for the same 32-bit
shingle hashes (affine32 scheme), but computed for many texts at once with numpy, which is
what makes the contamination guard and the 100k-sample benchmark fast. The LSH index only
proposes candidates (looking a margin below the threshold); each is confirmed with the exact
Jaccard similarity of the two shingle sets, so decisions never depend on MinHash noise.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from functools import cache, lru_cache

import numpy as np
from datasketch import MinHash  # type: ignore[import-untyped]
from datasketch.lsh import _optimal_param  # type: ignore[import-untyped]

_LINE_NUMBER = re.compile(r"^[ \t]*\d+[ \t]+", re.MULTILINE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ARTICLES = frozenset({"a", "an", "the"})
_SCHEME = "affine32"
_FNV_PRIME = np.uint32(16777619)
_FNV_OFFSET = np.uint32(2166136261)
# MurmurHash3's 32-bit finalizer, the pre-mix datasketch applies before its affine permutations.
_FMIX = (np.uint32(16), np.uint32(0x85EBCA6B), np.uint32(13), np.uint32(0xC2B2AE35), np.uint32(16))
_CHUNK_CELLS = 1 << 22
EMPTY = np.zeros(0, dtype=np.uint32)


def text_tokens(text: str) -> list[str]:
    """Normalized words of a text; leading line numbers (``"3 Aria moved ..."``) are dropped."""
    # Only a text with a line break, or one opening with a digit or a space, can carry numbers.
    if "\n" in text or text[:1].isdigit() or text[:1].isspace():
        text = _LINE_NUMBER.sub("", text)
    return [word for word in _WORD.findall(text.lower()) if word not in _ARTICLES]


def text_key(text: str) -> str:
    """The normalized text as one string (exact-duplicate identity)."""
    return " ".join(text_tokens(text))


@lru_cache(maxsize=1 << 20)
def _word_hash(word: str) -> int:
    return zlib.crc32(word.encode("utf-8"))


def shingle_hashes(tokens: Sequence[str], size: int) -> np.ndarray:
    """Sorted unique 32-bit hashes of the ``size``-word shingles (one shingle if shorter)."""
    if not tokens:
        return EMPTY
    words = np.array(list(map(_word_hash, tokens)), dtype=np.uint32)
    width = min(size, len(words))
    count = len(words) - width + 1
    hashes = np.full(count, _FNV_OFFSET, dtype=np.uint32)
    for offset in range(width):
        hashes = (hashes ^ words[offset : offset + count]) * _FNV_PRIME
    return np.unique(hashes)


def jaccard(left: np.ndarray, right: np.ndarray) -> float:
    """Exact Jaccard similarity of two sorted unique hash arrays (0 when both are empty)."""
    if not len(left) or not len(right):
        return 0.0
    common = np.intersect1d(left, right, assume_unique=True).size
    return common / (len(left) + len(right) - common)


def _fmix(values: np.ndarray) -> np.ndarray:
    s1, m1, s2, m2, s3 = _FMIX
    values = values ^ (values >> s1)
    values = values * m1
    values = values ^ (values >> s2)
    values = values * m2
    return values ^ (values >> s3)


class Signer:
    """MinHash signatures of many shingle sets at once (datasketch's permutations).

    Args:
        num_perm: Permutations per signature.
        seed: Permutation seed.
    """

    def __init__(self, num_perm: int, seed: int) -> None:
        self.num_perm = num_perm
        self.seed = seed
        a, b = MinHash(num_perm=num_perm, seed=seed, scheme=_SCHEME).permutations
        self._a = np.asarray(a, dtype=np.uint32)
        self._b = np.asarray(b, dtype=np.uint32)

    def sign(self, shingle_sets: Sequence[np.ndarray]) -> np.ndarray:
        """A ``(len(shingle_sets), num_perm)`` uint32 matrix; an empty set gets all ones."""
        out = np.full((len(shingle_sets), self.num_perm), np.iinfo(np.uint32).max, np.uint32)
        start = 0
        while start < len(shingle_sets):
            stop, cells = start, 0
            while stop < len(shingle_sets) and (cells == 0 or cells < _CHUNK_CELLS):
                cells += len(shingle_sets[stop]) * self.num_perm
                stop += 1
            self._sign_chunk(shingle_sets[start:stop], out[start:stop])
            start = stop
        return out

    def _sign_chunk(self, sets: Sequence[np.ndarray], out: np.ndarray) -> None:
        filled = [i for i, hashes in enumerate(sets) if len(hashes)]
        if not filled:
            return
        hashes = np.concatenate([sets[i] for i in filled])
        offsets = np.cumsum([0, *(len(sets[i]) for i in filled[:-1])])
        permuted = _fmix(hashes)[:, None] * self._a + self._b
        out[filled] = np.minimum.reduceat(permuted, offsets, axis=0)


class SimilarityIndex:
    """Texts (as shingle sets) indexed by MinHash LSH; queries return confirmed near matches.

    The banding is datasketch's ``MinHashLSH`` (its band count and rows for the lowered
    threshold, a band's bucket being the big-endian bytes of its 32-bit hash values), kept in
    plain dicts: datasketch's per-item ``LeanMinHash`` objects and storage layer cost more than
    the bucket lookups themselves.

    Args:
        signer: Computes signatures (its permutation count sizes the LSH bands).
        threshold: Lowest exact Jaccard similarity a match must have.
        margin: The LSH looks for candidates this far below ``threshold`` (recall).
    """

    def __init__(self, signer: Signer, threshold: float, *, margin: float = 0.1) -> None:
        self.signer = signer
        self.threshold = threshold
        bands, rows = _bands(max(0.05, threshold - margin), signer.num_perm)
        # Byte slices of a signature's big-endian uint32 values, one per band.
        self._slices = [slice(band * rows * 4, (band + 1) * rows * 4) for band in range(bands)]
        # A bucket holds one key as a bare int and more as a list; tuples of ints and bare ints
        # are objects the garbage collector stops (or never starts) tracking: with many samples
        # in memory, collections that walk millions of new containers cost more than the lookups.
        self._buckets: list[dict[bytes, int | list[int]]] = [{} for _ in range(bands)]
        self._sets: dict[int, tuple[int, ...]] = {}

    def __len__(self) -> int:
        return len(self._sets)

    def __contains__(self, key: object) -> bool:
        return key in self._sets

    def add_many(
        self,
        keys: Sequence[int],
        shingle_sets: Sequence[np.ndarray],
        signatures: np.ndarray | None = None,
    ) -> None:
        """Index texts under unique keys; empty shingle sets are kept out of the LSH."""
        if signatures is None:
            signatures = self.signer.sign(shingle_sets)
        for key, shingles, row in zip(keys, shingle_sets, signatures, strict=True):
            if key in self._sets:
                raise ValueError(f"key {key!r} is indexed twice")
            self._sets[key] = tuple(shingles.tolist())
            if not len(shingles):
                continue
            for buckets, band in zip(self._buckets, self.band_keys(row), strict=True):
                bucket = buckets.get(band)
                if bucket is None:
                    buckets[band] = key
                elif isinstance(bucket, int):
                    buckets[band] = [bucket, key]
                else:
                    bucket.append(key)

    def band_keys(self, signature: np.ndarray) -> list[bytes]:
        """The LSH bucket of a signature in each band, as the index hashes it on insert and query.

        Two texts are proposed to each other exactly when they share a bucket of the same band,
        so a cluster that groups ``(band, key)`` finds the pairs :meth:`query` would.
        """
        data = signature.astype(">u4").tobytes()
        return [data[part] for part in self._slices]

    def query(
        self, shingles: np.ndarray, signature: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Indexed texts whose exact Jaccard with ``shingles`` reaches the threshold.

        Returns:
            ``(key, similarity)`` pairs, most similar first (ties in key order).
        """
        if not len(shingles):
            return []
        if signature is None:
            signature = self.signer.sign([shingles])[0]
        candidates: set[int] = set()
        for buckets, band in zip(self._buckets, self.band_keys(signature), strict=True):
            bucket = buckets.get(band)
            if bucket is None:
                continue
            if isinstance(bucket, int):
                candidates.add(bucket)
            else:
                candidates.update(bucket)
        if not candidates:
            return []
        # A Python set: intersecting ~60 hashes is ~15x cheaper than numpy's intersect1d.
        mine = set(shingles.tolist())
        found = []
        for key in candidates:
            other = self._sets[key]
            common = len(mine.intersection(other))
            # jaccard()'s formula, so a similarity is the same float either way.
            similarity = common / (len(mine) + len(other) - common) if other else 0.0
            if similarity >= self.threshold:
                found.append((key, similarity))
        return sorted(found, key=lambda pair: (-pair[1], pair[0]))


@cache
def _bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows per band) datasketch's ``MinHashLSH`` picks for this threshold."""
    return _optimal_param(threshold, num_perm, 0.5, 0.5)
