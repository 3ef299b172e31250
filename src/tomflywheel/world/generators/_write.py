"""Writing a generator's samples to a file, on several CPU cores when it pays.

Stories are independent: ``start=k, n=m`` gives stories k..k+m-1 with the bytes one run would
give (every random choice is seeded from the seed and the story index), so a long run is cut
into blocks of stories, each generated in its own worker process, and the blocks are written in
order as they come back. The file has the same bytes with one worker or many.
"""

from __future__ import annotations

import multiprocessing
import tempfile
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tomflywheel._cpus import available_cpus
from tomflywheel._io import (
    atomic_write_chunks,
    json_line_bytes,
    jsonl_bytes,
    validation_error_field,
)
from tomflywheel.errors import ConfigError
from tomflywheel.world.generators._registry import GENERATORS

MIN_BLOCK = 16
"""Fewest stories a worker is handed: below that, starting the worker costs more than it saves."""
MAX_BLOCK = 250
"""Most stories in one block: a block is held whole (about 20 MB of tgtom samples), and the
progress display moves once per block."""


def story_blocks(
    start: int, n: int, workers: int, block: int | None = None
) -> list[tuple[int, int]]:
    """``(start, n)`` of each block: about sixteen per worker, so the last ones end together."""
    size = block or min(MAX_BLOCK, max(MIN_BLOCK, -(-n // (workers * 16))))
    return [(first, min(size, start + n - first)) for first in range(start, start + n, size)]


def _block_file(
    kind: str, params: dict[str, Any], start: int, n: int, folder: Path
) -> tuple[Path, int]:
    """One block's samples as a JSONL file in ``folder``, and their count (runs in a worker).

    A file, not bytes sent back: the parent copies it into the output in the kernel instead of
    unpickling and writing tens of megabytes while the workers want both cores.
    """
    data, count = jsonl_bytes(GENERATORS.get(kind)(params, start=start, n=n))
    path = folder / f"{start}.jsonl"
    path.write_bytes(data)
    return path, count


def _checked(generator: Any, params: dict[str, Any]) -> Any:
    """The generator's parameter model of ``params``.

    Raises:
        ConfigError: A parameter it does not take, or a bad value (before anything is written).
    """
    try:
        return generator.params.model_validate(params)
    except ValidationError as err:
        field, reason = validation_error_field(err)
        raise ConfigError(f"{generator.name} generator: {field}: {reason}") from err


def write_generated(
    kind: str,
    out: Path,
    *,
    workers: int = 1,
    block: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    **params: Any,
) -> int:
    """Generate samples and write them as JSONL to ``out`` (atomically); return the count.

    Args:
        kind: The generator's name.
        out: The file to write (replaced whole, or left as it was on failure).
        workers: Worker processes (0: one per available core); 1 generates in this process.
        block: Stories per worker task (default: about sixteen tasks per worker, 16 to 250).
        progress: Called with (stories written, stories) after each block.
        **params: The generator's parameters.

    Raises:
        ConfigError: Unknown generator or bad parameters (before anything is written).
    """
    generator = GENERATORS.get(kind)
    checked = _checked(generator, params)
    target = Path(out)
    workers = workers or available_cpus()
    blocks = story_blocks(checked.start, checked.n, workers, block)
    base = checked.model_dump()
    update = progress or (lambda done, total: None)
    count = stories = 0

    def written(data: bytes | Path, samples: int, n: int) -> bytes | Path:
        """Count what ``data`` holds: ``samples`` samples, finishing ``n`` stories."""
        nonlocal count, stories
        count += samples
        if n:
            stories += n
            update(stories, checked.n)
        return data

    def serial() -> Iterator[bytes | Path]:  # line by line: memory holds one sample, not a block
        for first, n in blocks:
            for sample in generator(base, start=first, n=n):
                yield written(json_line_bytes(sample), 1, 0)
            written(b"", 0, n)

    def parallel() -> Iterator[bytes | Path]:
        # fork: workers inherit the loaded engine instead of importing it again (~1 s each).
        context = multiprocessing.get_context("fork")
        pool_size = min(workers, len(blocks))
        target.parent.mkdir(parents=True, exist_ok=True)
        with (
            tempfile.TemporaryDirectory(prefix=f".{target.name}.", dir=target.parent) as tmp,
            ProcessPoolExecutor(pool_size, mp_context=context) as pool,
        ):
            folder = Path(tmp)
            # A window of blocks in flight: the finished ones wait on disk in order, not all.
            pending = iter(blocks)
            window = deque(
                pool.submit(_block_file, kind, base, first, n, folder)
                for first, n in islice(pending, 2 * pool_size)
            )
            sizes = iter(n for _, n in blocks)
            while window:
                path, samples = window.popleft().result()
                for first, n in islice(pending, 1):
                    window.append(pool.submit(_block_file, kind, base, first, n, folder))
                yield written(path, samples, next(sizes))
                path.unlink()

    forkable = "fork" in multiprocessing.get_all_start_methods()
    update(0, checked.n)
    if workers == 1 or len(blocks) < 2 or not forkable:
        atomic_write_chunks(target, serial())
    else:
        atomic_write_chunks(target, parallel())
    return count
