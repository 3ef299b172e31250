"""Work as Ray Data: opaque blocks through ``map_batches``, rows grouped by a key across nodes.

Payloads and results are bytes (pickles or JSONL text) that the caller owns, so Ray Data never
has to understand our records, and a result is the same bytes whichever node made it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tomflywheel.cluster._runtime import import_ray

BlockFn = Callable[[bytes], bytes]
"""The work of one block: payload in, result out (runs on a Ray worker)."""


def _apply(fn: BlockFn) -> Callable[[dict[str, np.ndarray]], dict[str, list[Any]]]:
    def batch(rows: dict[str, np.ndarray]) -> dict[str, list[Any]]:
        return {
            "key": [int(k) for k in rows["key"]],
            "result": [fn(bytes(p)) for p in rows["payload"]],
        }

    return batch


def map_blocks(fn: BlockFn, blocks: Sequence[tuple[int, bytes]]) -> Iterator[tuple[int, bytes]]:
    """``fn`` on each ``(key, payload)`` with Ray Data, yielding ``(key, result)`` as blocks finish.

    Results come in completion order (callers that need input order sort by key), so a caller
    can save each one at once and a killed run loses only blocks still running.
    """
    if not blocks:
        return
    ray = import_ray()
    items = [{"key": key, "payload": payload} for key, payload in blocks]
    dataset = ray.data.from_items(items, override_num_blocks=len(items))
    mapped = dataset.map_batches(_apply(fn), batch_size=1, batch_format="numpy")
    for row in mapped.iter_rows():
        yield int(row["key"]), bytes(row["result"])


def group_rows(
    rows: Sequence[dict[str, Any]],
    key: str,
    fn: Callable[[dict[str, np.ndarray]], dict[str, list[Any]]],
    *,
    partitions: int,
) -> list[dict[str, Any]]:
    """Rows hash-shuffled by ``key`` across the cluster, ``fn`` on each group; its output rows.

    ``fn`` gets one group as numpy columns and returns columns (of equal length, maybe empty).
    """
    if not rows:
        return []
    ray = import_ray()
    context = ray.data.DataContext.get_current()
    before = context.shuffle_strategy
    # The sort-based shuffle starts no aggregator actors: for rows this small (a story id and
    # its shingles per band) it is several times faster than the default hash shuffle.
    context.shuffle_strategy = ray.data.context.ShuffleStrategy.SORT_SHUFFLE_PULL_BASED
    try:
        dataset = ray.data.from_items(list(rows), override_num_blocks=max(1, partitions))
        grouped = dataset.groupby(key, num_partitions=max(1, partitions))
        return list(grouped.map_groups(fn, batch_format="numpy").iter_rows())
    finally:
        context.shuffle_strategy = before
