"""Settings of the embedded vLLM server and of the requests sent to any server."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator

from tomflywheel.config._base import ENV_API_KEY, Strict, cache_root


class EmbeddedServerSettings(Strict):
    """The vLLM server that commands start and stop themselves when ``server: embedded``."""

    model: Path | None = None
    """A Hugging Face model folder; ``null`` serves the bundled SmolLM2-135M-Instruct."""
    served_model_name: str = "smollm2-135m-instruct"
    """The name requests use as ``model``."""
    host: str = "127.0.0.1"
    """Interface to bind; loopback by default."""
    port: int | None = Field(default=None, ge=1, le=65535)
    """Port to bind; ``null`` picks a free one."""
    max_model_len: int = Field(default=2048, ge=128)
    """Longest prompt + output in tokens."""
    kv_cache_gib: int = Field(default=1, ge=1)
    """KV cache size for the CPU build (``VLLM_CPU_KVCACHE_SPACE``)."""
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    """Weights' dtype in the server. ``auto``: float32 on a CPU build whose processor has no
    native bf16 (no AVX-512 BF16 or AMX), where vLLM's bf16 matmuls fall back to a slow path
    (3-4x slower here, ``bench/server_dtype.py``); otherwise the model's own."""
    block_size: int | None = Field(default=32, ge=1)
    """KV-cache block size in tokens (``--block-size``). The prefix cache reuses whole blocks
    only, and the CPU build's own 128 is longer than most ToM prompts: at 32, the options of an
    item and the questions of a story share their context (here 1.45x generation and 1.43x
    log-prob scoring, ``bench/server_block_size.py``). The CPU build needs a multiple of 32;
    ``null``: vLLM's default."""
    enforce_eager: bool = True
    """Skip torch.compile: ready in ~30 s instead of ~110 s on CPU."""
    startup_timeout_s: float = Field(default=300.0, gt=0)
    """How long to wait for ``/v1/models`` to answer."""
    extra_args: list[str] = Field(default_factory=list)
    """More ``vllm`` server arguments, passed as a list (never through a shell)."""
    threads_bind: str = "auto"
    """``VLLM_CPU_OMP_THREADS_BIND`` of the CPU build: ``auto`` binds to every allowed core when
    no other vLLM server runs, else to the core running servers claim least (so a second server
    gets a core of its own; a value already in the environment wins), ``""`` leaves it to vLLM
    (one core), anything else (``1``, ``0-3``) is passed on."""
    max_restarts: int = Field(default=3, ge=0)
    """How many times a server that dies mid-run is restarted before the run gives up."""
    reload_weights: bool = True
    """Serve another model of the same network and tokenizer (a round's trained model) by
    loading its weights into the running server, under a second instead of a second server's
    ~30 s start; on a loopback ``host`` only (it needs vLLM's dev mode). ``false``: a server
    per model."""


class LLMSettings(Strict):
    """How requests reach an OpenAI-compatible server."""

    base_urls: list[str] = Field(default_factory=list)
    """Endpoints ending in ``/v1``; several are balanced with failover. Ignored when embedded."""
    model: str | None = None
    """Model name sent with each request; embedded: the served model name."""
    api_key_env: str = ENV_API_KEY
    """Environment variable holding the API key (keys are never read from or written to files)."""
    endpoint: Literal["chat", "completions"] = "chat"
    """Which API generation prompts go to."""
    concurrency: int = Field(default=64, ge=1)
    """Most requests in flight; halved on overload (timeouts, 429, 503), regrown on success.

    vLLM batches whatever is in flight: on the 2-core CPU server the closed loop's held-out
    pass took 39 s at 64 against 60 s at 16 (``bench/heldout_concurrency.py``)."""
    timeout_s: float = Field(default=120.0, gt=0)
    """First request deadline; deadlines grow with the observed latency and after timeouts."""
    max_timeout_s: float = Field(default=1800.0, gt=0)
    """The longest a request deadline grows."""
    unreachable_after_s: float = Field(default=600.0, gt=0)
    """Give up when no request has completed for this long (``/models`` alone is no progress)."""
    max_retries: int = Field(default=4, ge=0)
    """Retries of 5xx errors other than 503/504 (overload: up to ``unreachable_after_s``)."""
    backoff_initial_s: float = Field(default=0.5, gt=0)
    """First retry delay; doubles each retry, with jitter."""
    backoff_max_s: float = Field(default=20.0, gt=0)
    """Longest delay between retries (a server's Retry-After is honoured up to 5x this)."""
    cache: bool = True
    """Keep every response, keyed by model + full request body, so re-runs send nothing."""
    cache_path: Path | None = None
    """The request cache file; ``null`` puts it in the user cache folder."""
    structured_mode: Literal["json_schema", "tools"] = "json_schema"
    """How instructor asks for structured output: JSON schema for vLLM, tools for OpenAI."""
    structured_retries: int = Field(default=2, ge=0)
    """Re-asks after a reply that fails validation, with the error fed back."""

    api_key: SecretStr | None = Field(default=None, exclude=True)
    """Resolved from the environment at load time; never serialized."""

    @field_validator("base_urls")
    @classmethod
    def _urls_look_right(cls, value: list[str]) -> list[str]:
        for url in value:
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"{url!r} is not an http(s) URL")
        return [url.rstrip("/") for url in value]

    def with_environment_key(self, preferred: str | None = None) -> LLMSettings:
        """These settings with the API key read from this process's environment.

        ``preferred`` names a variable that wins over ``api_key_env`` when set. Ray workers call
        this too, so a key never travels in a task's payload.
        """
        variable = preferred if preferred and os.environ.get(preferred) else self.api_key_env
        if not os.environ.get(variable):
            return self
        return self.model_copy(update={"api_key": SecretStr(os.environ[variable])})

    def resolved_cache_path(self) -> Path:
        """The request cache file in use."""
        return self.cache_path or cache_root() / "requests.sqlite"
