"""Progress where output goes to a file: a plain line every ~30 s, and one when the work ends."""

from __future__ import annotations

import io

from rich.console import Console

from tomflywheel.progress import ProgressLines, line_progress
from tomflywheel.report import progress_bar


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_thirty_seconds_with_the_rate_the_eta_and_the_loss():
    lines: list[str] = []
    clock = _Clock()
    update = ProgressLines("train", lines.append, clock=clock)
    for step in range(1, 11):  # a step every 10 s
        clock.now += 10
        update(step, 10, loss=f"{1 / step:.4f}")
    assert lines == [
        "train: 3/10 (30%), 10.0 s each, ETA 70 s, loss 0.3333",
        "train: 6/10 (60%), 10.0 s each, ETA 40 s, loss 0.1667",
        "train: 9/10 (90%), 10.0 s each, ETA 10 s, loss 0.1111",
        "train: 10/10 (100%), 10.0 s each, done in 1.7 min, loss 0.1000",
    ]


def test_the_rate_counts_only_this_runs_work_not_what_a_resume_skipped():
    lines: list[str] = []
    clock = _Clock()
    update = ProgressLines("predict tomi", lines.append, skipped=1200, clock=clock)
    clock.now += 60
    update(1260, 1812)
    assert lines == ["predict tomi: 1260/1812 (70%), 1.0/s, ETA 9.2 min"]


def test_a_bar_on_a_console_that_is_no_terminal_writes_plain_lines():
    # Redirected output (a file, nohup, a cluster job): a live bar would print nothing until
    # the end, so the bar writes lines instead.
    file = io.StringIO()
    console = Console(file=file, width=120)
    assert not console.is_terminal
    with progress_bar("train", console=console, fields=("loss",)) as update:
        update(1, 2, loss="2.8750")
        update(2, 2, loss="2.7043")
    out = file.getvalue().splitlines()
    assert len(out) == 1 and out[0].startswith("train: 2/2 (100%)")
    assert out[0].endswith("loss 2.7043")


def test_the_factory_writes_through_the_callers_function():
    lines: list[str] = []
    with line_progress(lines.append, every=0.0)("filter round 1", skipped=0) as update:
        update(5, 10)
    assert lines and lines[0].startswith("filter round 1: 5/10 (50%)")
