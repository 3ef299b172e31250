"""Run a server command that dies with its parent, bound to the CPU core other servers leave free.

Started as a script (``python _guard.py PARENT_PID BIND LOCK -- COMMAND...``), not as a module, so
it imports nothing but the standard library. It is the leader of its own process group; the
server and everything the server starts (vLLM's engine core, workers) share that group. When the
parent process is gone (even killed with SIGKILL), or on SIGTERM/SIGINT/SIGHUP, it asks the
server to stop (SIGTERM), waits a grace period, then kills the whole group.

``BIND`` is ``auto`` (every allowed core when no other vLLM server runs, else the core least
claimed by running servers, under a file lock so two servers starting at once see each other),
a ``VLLM_CPU_OMP_THREADS_BIND`` value, or an empty string to leave the environment alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

BIND_VAR = "VLLM_CPU_OMP_THREADS_BIND"
GRACE_S = 20.0
POLL_S = 0.5


class _Stop(Exception):
    """A stop signal arrived."""


def parse_cores(value: str) -> set[int]:
    """Cores named by a binding such as ``1``, ``0-3`` or ``0,2`` (``auto``, ``all``: none)."""
    cores: set[int] = set()
    for part in value.replace("|", ",").split(","):
        part = part.strip()
        if not part:
            continue
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            return set()
        cores.update(range(int(low), int(high or low) + 1))
    return cores


def choose_core(allowed: Iterable[int], claims: Counter[int]) -> int:
    """The allowed core with the fewest claims (the higher one on a tie: core 0 gets the IRQs)."""
    return min(sorted(allowed, reverse=True), key=lambda core: claims[core])


def choose_binding(allowed: Iterable[int], claims: Counter[int]) -> str:
    """Every allowed core when none is claimed (a lone server uses the machine), else one core.

    vLLM's own default binds its threads to one core; a lone server on two cores decodes about
    twice as fast bound to both (``bench/server_dtype.py``).
    """
    cores = sorted(allowed)
    if not any(claims[core] for core in cores):
        return ",".join(map(str, cores))
    return str(choose_core(cores, claims))


def _process_group(stat: str) -> int:
    """The process group field of a ``/proc/PID/stat`` line."""
    # Fields after the command name (which may hold spaces): state, ppid, pgrp, ...
    return int(stat.rsplit(")", 1)[-1].split()[2])


def claimed_cores(own_pid: int) -> Counter[int]:
    """How many running vLLM servers bind their threads to each core (from ``/proc``).

    A server is a process group (the guard makes one per server): its API process, engine core
    and workers all carry the binding but claim the core once, so a server that has not yet
    started its engine weighs as much as one that has.
    """
    claims: set[tuple[int, int]] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == own_pid:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            if b"vllm" not in cmdline.lower():
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
            group = _process_group((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue  # gone, or another user's
        for item in environ:
            if item.startswith(BIND_VAR.encode() + b"="):
                value = item.split(b"=", 1)[1].decode(errors="replace")
                claims.update((group, core) for core in parse_cores(value))
    return Counter(core for _, core in claims)


def _start(command: list[str], bind: str, lock_path: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    if bind != "auto":
        if bind:
            env[BIND_VAR] = bind
        return subprocess.Popen(command, env=env)
    if BIND_VAR in env:  # the user chose: keep it
        return subprocess.Popen(command, env=env)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        # Held until the server runs, so the next server's scan sees this one's binding.
        fcntl.flock(lock, fcntl.LOCK_EX)
        cores = choose_binding(os.sched_getaffinity(0), claimed_cores(os.getpid()))
        env[BIND_VAR] = cores
        print(f"guard: binding the server's threads to core(s) {cores}", flush=True)
        return subprocess.Popen(command, env=env)


def _kill_rest_of_group() -> None:
    """SIGKILL every other process of this group: the engine core and workers of a dead server."""
    own = os.getpid()
    group = os.getpgrp()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == own:
            continue
        try:
            same_group = _process_group((entry / "stat").read_text()) == group
        except (OSError, ValueError, IndexError):
            continue
        if same_group:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGKILL)


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop


def main(argv: list[str]) -> int:
    """Run the command; returns its exit code (1 when stopped), leaving no process of the group."""
    parent, bind, lock_path = int(argv[0]), argv[1], Path(argv[2])
    command = argv[4:]
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _raise_stop)
    child: subprocess.Popen[bytes] | None = None
    try:
        if os.getppid() != parent:
            return 1  # the parent died before we started
        child = _start(command, bind, lock_path)
        while True:
            try:
                code = child.wait(timeout=POLL_S)
            except subprocess.TimeoutExpired:
                pass
            else:
                _kill_rest_of_group()
                return code
            if os.getppid() != parent:
                print("guard: the parent process is gone: stopping the server", flush=True)
                break
    except _Stop:
        pass
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    if child is not None and child.poll() is None:
        child.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=GRACE_S)
    # The engine core and workers may outlive the API server: clear the group.
    _kill_rest_of_group()
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
