"""Embedded vLLM servers as processes: each gets its own core, and none outlives its command.

These start vLLM servers of their own (a minute or two each on CPU), beside the session's one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tomflywheel.llm import free_port

pytestmark = pytest.mark.vllm

BIND_VAR = "VLLM_CPU_OMP_THREADS_BIND"


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[-1].split()  # state, ppid, pgrp, ...


def _group(pgrp: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    return [
        int(e.name)
        for e in Path("/proc").iterdir()
        if e.name.isdigit() and (f := _stat(int(e.name))) and int(f[2]) == pgrp and f[0] != "Z"
    ]


def _children(pid: int) -> list[int]:
    return [
        int(e.name)
        for e in Path("/proc").iterdir()
        if e.name.isdigit() and (f := _stat(int(e.name))) and int(f[1]) == pid
    ]


def _wait_until(condition, what: str, limit_s: float = 900.0) -> None:
    """Poll for an outcome; the limit only keeps a broken build from hanging the suite."""
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.5)


def _binding(pid: int) -> str | None:
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    for item in environ:
        if item.startswith(BIND_VAR.encode() + b"="):
            return item.split(b"=", 1)[1].decode()
    return None


def test_two_servers_started_at_once_get_their_own_cores_and_sigterm_leaves_no_process():
    env = {k: v for k, v in os.environ.items() if k != BIND_VAR}
    ports = [free_port(), free_port()]
    serves = [
        subprocess.Popen(
            [sys.executable, "-m", "tomflywheel", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        # Both engines started (guard, API server and engine core in each group): the cores were
        # chosen at launch, and a SIGTERM while the engines load must still leave nothing.
        _wait_until(lambda: _engines_started(serves), "both engines started")
        guards = _guards_of(serves)
        servers = [_children(guard)[0] for guard in guards]
        bindings = [_binding(pid) for pid in servers]
        assert None not in bindings and bindings[0] != bindings[1], bindings
        for serve in serves:
            serve.send_signal(signal.SIGTERM)
        assert [serve.wait() for serve in serves] == [143, 143]
        _wait_until(lambda: not any(_group(guard) for guard in guards), "server groups gone")
    finally:
        for serve in serves:
            serve.kill()


def _guards_of(serves: list[subprocess.Popen]) -> list[int]:
    """The guard of each ``serve`` command (its one child), once every guard is there."""
    found = [_children(serve.pid) for serve in serves]
    return [children[0] for children in found] if all(found) else []


def _engines_started(serves: list[subprocess.Popen]) -> bool:
    guards = _guards_of(serves)
    return len(guards) == len(serves) and all(len(_group(guard)) >= 3 for guard in guards)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
