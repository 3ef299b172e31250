"""Progress reporting from library code: a factory of ``(done, total)`` callbacks per stage.

The library never draws anything; the CLI passes a factory that opens a rich bar on a
terminal and writes plain lines (:func:`line_progress`) where its output goes to a file,
benches pass the lines, tests pass nothing (:func:`no_progress`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Protocol

LINE_EVERY_S = 30.0
"""How often a plain progress line is written (and once more when the work is done)."""


class Update(Protocol):
    """``(done, total, **values)``: moves a progress display.

    ``values`` (a training step's ``loss``) are shown beside the count where there is room.
    """

    def __call__(self, done: int, total: int, /, **values: object) -> None:
        """Report ``done`` of ``total`` items."""
        ...


class ProgressFactory(Protocol):
    """Opens a progress display for one stage of a dataset; yields a ``(done, total)`` callback."""

    def __call__(
        self, description: str, *, skipped: int
    ) -> contextlib.AbstractContextManager[Update]:
        """Open the display for ``description``; ``skipped`` items were done before a resume."""
        ...


@contextlib.contextmanager
def no_progress(description: str, *, skipped: int) -> Iterator[Update]:
    """A progress factory that shows nothing."""
    yield lambda done, total, **values: None


def offset_progress(update: Update, skipped: int, total: int) -> Update:
    """A batch's ``(done, n)`` callback that moves a bar counting the skipped items too."""
    return lambda done, _n, **values: update(skipped + done, total, **values)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


class ProgressLines:
    """One piece of work's plain progress lines, one every ``every`` seconds and one at the end.

    ``train: 25/250 (10%), 3.8 s each, ETA 14.4 min, loss 0.4127``. The rate counts what this
    display saw done (a resume's skipped items are not its work).
    """

    def __init__(
        self,
        description: str,
        write: Callable[[str], None],
        *,
        skipped: int = 0,
        every: float = LINE_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.description = description
        self.write = write
        self.every = every
        self.clock = clock
        self.started = clock()
        self.first = skipped
        self.last_line: float | None = None

    def __call__(self, done: int, total: int, /, **values: object) -> None:
        """Write a line if ``every`` seconds passed since the last (or the start), or at the end."""
        now = self.clock()
        due = now - (self.last_line if self.last_line is not None else self.started) >= self.every
        if not due and not (total and done >= total):
            return
        self.last_line = now
        self.write(self.line(done, total, now - self.started, values))

    def line(self, done: int, total: int, elapsed: float, values: dict[str, object]) -> str:
        """``description: done/total (pct), rate, ETA, values``."""
        parts = [f"{self.description}: {done}/{total}" if total else f"{self.description}: {done}"]
        if total:
            parts[0] += f" ({100 * done / total:.0f}%)"
        rate = (done - self.first) / elapsed if elapsed > 0 else 0.0
        if rate > 0:
            # slow work (a training step) reads better as time per item
            parts.append(f"{rate:.1f}/s" if rate >= 1 else f"{1 / rate:.1f} s each")
            if total and done < total:
                parts.append(f"ETA {_duration((total - done) / rate)}")
        if total and done >= total:
            parts.append(f"done in {_duration(elapsed)}")
        parts.extend(f"{name} {value}" for name, value in values.items())
        return ", ".join(parts)


def line_progress(
    write: Callable[[str], None], *, every: float = LINE_EVERY_S
) -> Callable[..., contextlib.AbstractContextManager[Update]]:
    """A progress factory writing plain lines (:class:`ProgressLines`) through ``write``.

    For output that goes to a file (a cluster job, ``nohup``, a bench's log): a bar there
    prints nothing until it ends.
    """

    @contextlib.contextmanager
    def factory(description: str, *, skipped: int) -> Iterator[Update]:
        yield ProgressLines(description, write, skipped=skipped, every=every)

    return factory
