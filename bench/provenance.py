"""What a results file says about where it came from: the command and the commit."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from tomflywheel._io import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]


def machine_load() -> str:
    """The 1, 5 and 15-minute load averages and the CPU count, for a results file's header."""
    return f"{', '.join(f'{value:.2f}' for value in os.getloadavg())} on {os.cpu_count()} CPUs"


def commit() -> str:
    """The checked-out commit, ``+dirty`` when tracked files differ from it."""

    def git(*argv: str) -> str:
        return subprocess.run(
            ["git", *argv], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()

    head = git("rev-parse", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def command() -> str:
    """This process's command line, as a reader would retype it."""
    return " ".join(["python", *sys.argv])


class _Tee(io.TextIOBase):
    """Writes to the real stream and keeps a copy."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def recorded(out: Path, title: str) -> Iterator[None]:
    """Print as usual and write what was printed to ``out``, under the command and commit.

    The file is written only when the body finishes (a failed run leaves the last one).
    """
    head = [title, f"command: {command()}", f"commit: {commit()}", ""]
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        yield
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, "\n".join(head) + tee.copy.getvalue())
    print(f"wrote {out}")
