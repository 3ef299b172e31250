"""Near-duplicate candidates found across a cluster: LSH band buckets grouped by Ray.

The standard distributed MinHash recipe: every distinct story contributes one row per band
(its bucket, as the in-memory index hashes it); rows are hash-shuffled by bucket; in each
bucket every pair of stories is confirmed with the exact shingle Jaccard. The result is, per
story, the stories an in-memory LSH query would return: :meth:`DuplicateIndex.set_neighbours`
then makes the same decisions without querying.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from itertools import combinations
from typing import Any

import numpy as np

from tomflywheel.cluster import group_rows
from tomflywheel.filter.dedup._minhash import jaccard

Story = tuple[str, np.ndarray, Sequence[bytes]]
"""(story key, shingle hashes, LSH bucket per band)."""


def _confirm(threshold: float, rows: dict[str, np.ndarray]) -> dict[str, list[Any]]:
    """The confirmed pairs of one bucket: exact Jaccard at least ``threshold``."""
    members = sorted(
        {
            int(s): np.frombuffer(bytes(h), dtype=np.uint32)
            for s, h in zip(rows["story"], rows["shingles"], strict=True)
        }.items()
    )
    out: dict[str, list[Any]] = {"a": [], "b": [], "similarity": []}
    for (a, left), (b, right) in combinations(members, 2):
        similarity = jaccard(left, right)
        if similarity >= threshold:
            out["a"].append(a)
            out["b"].append(b)
            out["similarity"].append(similarity)
    return out


def similar_stories(
    stories: Sequence[Story], threshold: float, *, partitions: int
) -> dict[str, list[tuple[str, float]]]:
    """For each story (by key), the stories at least ``threshold`` alike that share a bucket.

    A story with shingles lists itself (similarity 1.0), as an LSH query finds its own group;
    one without lists nothing. Ray must be connected.
    """
    rows = [
        {"bucket": band.hex() + f":{number}", "story": row, "shingles": shingles.tobytes()}
        for row, (_, shingles, bands) in enumerate(stories)
        if len(shingles)
        for number, band in enumerate(bands)
    ]
    pairs = group_rows(rows, "bucket", partial(_confirm, threshold), partitions=partitions)
    found: dict[int, dict[int, float]] = defaultdict(dict)
    for pair in pairs:
        a, b, similarity = int(pair["a"]), int(pair["b"]), float(pair["similarity"])
        found[a][b] = found[b][a] = similarity
    table: dict[str, list[tuple[str, float]]] = {}
    for row, (key, shingles, _) in enumerate(stories):
        near = [(stories[other][0], sim) for other, sim in sorted(found[row].items())]
        table[key] = [(key, 1.0), *near] if len(shingles) else []
    return table
