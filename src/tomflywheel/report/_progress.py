"""A rich progress bar that library code drives through a plain ``(done, total)`` callback.

Where the console is no terminal (output redirected to a file, a cluster job, ``nohup``), a
bar would print nothing until it ends: plain lines every ~30 s stand in for it
(:class:`tomflywheel.progress.ProgressLines`: done/total, rate, ETA, and the loss in training).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from tomflywheel.progress import ProgressLines


@contextlib.contextmanager
def progress_bar(
    description: str,
    *,
    console: Console | None = None,
    skipped: int = 0,
    fields: Sequence[str] = (),
) -> Iterator[Callable[..., None]]:
    """Show one bar on stderr; yields the callback ``(done, total, **fields)`` that moves it.

    Args:
        description: What is counted ("predict tomi").
        console: Where to draw (stderr by default, so results on stdout stay clean).
        skipped: Items a resume skips; shown in the description ("1,200 already done").
        fields: Named values shown after the count ("loss"), passed to the callback by name.
    """
    console = console or Console(stderr=True)
    label = f"{description} ({skipped:,} already done)" if skipped else description
    if not console.is_terminal:
        yield ProgressLines(label, lambda line: _plain(console, line), skipped=skipped)
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *(TextColumn(f"{name} {{task.fields[{name}]}}") for name in fields),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task(label, total=None, **dict.fromkeys(fields, "…"))

        def update(done: int, total: int, **values: object) -> None:
            progress.update(task, completed=done, total=total, **values)

        yield update


def _plain(console: Console, line: str) -> None:
    console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.file.flush()
