"""How many CPU cores this process may use (a worker count's default)."""

from __future__ import annotations

import os


def available_cpus() -> int:
    """The CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
