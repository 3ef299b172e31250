"""The guard that runs a server: it dies with its parent and picks a free core (no vLLM needed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

from tomflywheel.llm._guard import choose_binding, choose_core, claimed_cores, parse_cores


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"  # a zombie is dead, only not yet reaped


def _wait_until(condition, what: str, limit_s: float = 120.0) -> None:
    """Poll for an outcome; the limit only keeps a broken build from hanging the suite."""
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.1)


def test_sigkill_of_the_parent_takes_the_server_and_its_children_down(tmp_path):
    pids_file = tmp_path / "pids"
    # A stand-in server that, like vLLM, starts a child of its own (its engine core).
    server = textwrap.dedent(f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pids_file)!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(600)
    """)
    parent = textwrap.dedent(f"""
        import os, sys, time
        from tomflywheel.llm._server import guarded_popen
        with open({str(tmp_path / "log")!r}, "wb") as log:
            guard = guarded_popen([sys.executable, "-c", {server!r}], bind="", log=log,
                                  env=dict(os.environ))
        print(guard.pid, flush=True)
        time.sleep(600)
    """)
    process = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True)
    guard_pid = int(process.stdout.readline())
    _wait_until(lambda: pids_file.exists() and " " in pids_file.read_text(), "server started")
    pids = [guard_pid, *map(int, pids_file.read_text().split())]
    assert all(_alive(pid) for pid in pids)
    process.send_signal(signal.SIGKILL)
    process.wait()
    _wait_until(lambda: not any(_alive(pid) for pid in pids), "guarded processes gone")
    assert "parent process is gone" in (tmp_path / "log").read_text()


def test_bindings_are_parsed_into_cores():
    assert parse_cores("1") == {1}
    assert parse_cores("0-3") == {0, 1, 2, 3}
    assert parse_cores("0,2|5") == {0, 2, 5}  # vLLM separates ranks' bindings with |
    assert parse_cores("auto") == set() and parse_cores("nobind") == set()


def test_the_least_claimed_core_is_chosen_preferring_the_higher_on_a_tie():
    assert choose_core([0, 1], Counter({1: 2})) == 0
    assert choose_core([0, 1], Counter()) == 1  # core 0 serves interrupts and the shell
    assert choose_core([0, 1, 2, 3], Counter({3: 1, 2: 1, 1: 1})) == 0


def test_a_lone_server_is_bound_to_every_allowed_core_a_second_to_one():
    assert choose_binding([1, 0], Counter()) == "0,1"
    assert choose_binding([0, 1], Counter({5: 1})) == "0,1"  # a claim outside our cores
    assert choose_binding([0, 1], Counter({0: 1, 1: 1})) == "1"
    assert choose_binding([0, 1], Counter({1: 1})) == "0"


def test_a_running_vllm_process_claims_its_bound_core():
    fake = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", "vllm-stand-in"],
        env={**os.environ, "VLLM_CPU_OMP_THREADS_BIND": "7"},
    )
    try:
        _wait_until(lambda: b"vllm" in Path(f"/proc/{fake.pid}/cmdline").read_bytes(), "exec")
        assert claimed_cores(os.getpid())[7] >= 1
    finally:
        fake.kill()
        fake.wait()


def test_a_server_claims_its_core_once_however_many_processes_it_runs():
    sleeper = "import time; time.sleep(600)"
    # A "server" whose engine-core child shares its process group, and a second server.
    spawner = (
        "import subprocess, sys, time; "
        f"subprocess.Popen([sys.executable, '-c', {sleeper!r}, 'vllm-engine-stand-in']); "
        "time.sleep(600)"
    )
    env = {**os.environ, "VLLM_CPU_OMP_THREADS_BIND": "97"}
    servers = [
        subprocess.Popen(
            [sys.executable, "-c", spawner, "vllm-stand-in"], env=env, start_new_session=True
        ),
        subprocess.Popen(
            [sys.executable, "-c", sleeper, "vllm-stand-in"], env=env, start_new_session=True
        ),
    ]
    try:
        _wait_until(lambda: len(_group_members(servers[0].pid)) == 2, "engine child started")
        assert claimed_cores(os.getpid())[97] == 2
    finally:
        for server in servers:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _group_members(group: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getpgid(int(entry.name)) == group:
                    members.append(int(entry.name))
            except ProcessLookupError:
                pass
    return members
