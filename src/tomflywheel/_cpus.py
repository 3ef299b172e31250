"""What this machine's CPUs offer: the cores this process may use, and native bf16."""

from __future__ import annotations

import os
from pathlib import Path

NATIVE_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
"""CPU flags under which bf16 matmuls run natively (oneDNN: vLLM's CPU build and torch)."""


def available_cpus() -> int:
    """The CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The processor's feature flags (empty where ``/proc/cpuinfo`` is absent)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return set()


def native_bf16_flags() -> set[str]:
    """Which of ``NATIVE_BF16_FLAGS`` this processor has (empty: bf16 matmuls are emulated)."""
    return NATIVE_BF16_FLAGS & cpu_flags()
