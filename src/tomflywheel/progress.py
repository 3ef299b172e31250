"""Progress reporting from library code: a factory of ``(done, total)`` callbacks per stage.

The library never draws anything; the CLI passes a factory that opens a rich bar, tests and
scripts pass nothing (:func:`no_progress`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Protocol

Update = Callable[[int, int], None]
"""``(done, total)``: moves a progress display."""


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
    yield lambda done, total: None


def offset_progress(update: Update, skipped: int, total: int) -> Update:
    """A batch's ``(done, n)`` callback that moves a bar counting the skipped items too."""
    return lambda done, _n: update(skipped + done, total)
