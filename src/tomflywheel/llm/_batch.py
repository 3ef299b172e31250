"""Run many LLM calls at bounded concurrency, handing each result over as soon as it is ready."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol, TypeVar

from tomflywheel.errors import LLMRequestError

T = TypeVar("T")
R = TypeVar("R")


class ProgressCallback(Protocol):
    """Told after each finished item: how many are done out of how many."""

    def __call__(self, done: int, total: int) -> None: ...


async def run_batch(
    items: Iterable[T],
    worker: Callable[[T], Awaitable[R]],
    *,
    concurrency: int,
    on_result: Callable[[int, T, R | LLMRequestError], None] | None = None,
    on_progress: ProgressCallback | None = None,
) -> list[R | LLMRequestError]:
    """Apply ``worker`` to every item with at most ``concurrency`` running; results in input order.

    A refused request (``LLMRequestError``) becomes that item's result, a value to record. Any
    other exception (a dead server: ``ServerError``) cancels the remaining work and propagates;
    results already handed to ``on_result`` stay written, so a later run resumes from there.

    Args:
        items: The inputs.
        worker: The async call for one input.
        concurrency: Workers running at once.
        on_result: Called with (index, item, result) as each finishes, e.g. to append a record.
        on_progress: Called with (done, total) after each item.
    """
    inputs = list(items)
    results: list[R | LLMRequestError | None] = [None] * len(inputs)
    queue = iter(enumerate(inputs))
    done = 0

    async def run_worker() -> None:
        nonlocal done
        for index, item in queue:
            try:
                result: R | LLMRequestError = await worker(item)
            except LLMRequestError as err:
                result = err
            results[index] = result
            done += 1
            if on_result is not None:
                on_result(index, item, result)
            if on_progress is not None:
                on_progress(done, len(inputs))

    workers = [
        asyncio.create_task(run_worker()) for _ in range(max(1, min(concurrency, len(inputs))))
    ]
    try:
        await asyncio.gather(*workers)
    except BaseException:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise
    return results  # type: ignore[return-value]  # every slot is filled once gather returns
