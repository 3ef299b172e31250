"""What a results file says about where it came from: the command and the commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
