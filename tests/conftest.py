"""Shared fixtures: real benchmark files, and one real vLLM server per test session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tomflywheel.config import EmbeddedServerSettings, LLMSettings, RaySettings

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS_ENV = "TOMFLYWHEEL_BENCHMARKS"
SERVED_NAME = "smollm2-135m-instruct"
STARTUP_S = 1200.0
"""How long a test waits for an embedded server: generous, the machine may be busy."""

# The suite is deterministic: property tests draw the same examples on every run and machine,
# with no per-example deadline (a slow machine is not a failure).
# `HYPOTHESIS_PROFILE=explore` draws fresh random examples (and keeps failures in .hypothesis/).
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


def benchmarks_dir() -> Path:
    """Public benchmark files: ``$TOMFLYWHEEL_BENCHMARKS``, default ``../shared/benchmarks``."""
    return Path(os.environ.get(BENCHMARKS_ENV) or ROOT.parent / "shared" / "benchmarks")


def served_requests(base_url: str) -> float:
    """Requests a vLLM server says it finished (its Prometheus counter): proves "0 requests"."""
    import httpx

    text = httpx.get(base_url.removesuffix("/v1") + "/metrics", timeout=10).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("vllm:request_success_total{")
    )


@pytest.fixture(scope="session")
def benchmarks() -> Path:
    """The benchmark folder; tests using it skip with the reason when it is absent."""
    path = benchmarks_dir()
    if not path.is_dir():
        pytest.skip(f"public benchmark files not found at {path} (set {BENCHMARKS_ENV})")
    return path


@pytest.fixture(scope="session")
def vllm_base_url() -> Iterator[str]:
    """Base URL of the session's real vLLM server (the embedded CPU one, started once).

    ``TOMFLYWHEEL_TEST_BASE_URL`` reuses a server already running (serving ``SERVED_NAME``),
    for a faster local loop.
    """
    if os.environ.get("TOMFLYWHEEL_TEST_BASE_URL"):
        yield os.environ["TOMFLYWHEEL_TEST_BASE_URL"].rstrip("/")
        return
    from tomflywheel.llm import embedded_server

    server = embedded_server(
        EmbeddedServerSettings(served_model_name=SERVED_NAME, startup_timeout_s=STARTUP_S)
    )
    with server:
        yield server.base_url


@pytest.fixture
def llm_settings(vllm_base_url: str, tmp_path: Path) -> LLMSettings:
    """Settings pointing at the session server, with a request cache private to the test."""
    return LLMSettings(
        base_urls=[vllm_base_url],
        model=SERVED_NAME,
        concurrency=8,
        max_retries=2,
        backoff_initial_s=0.1,
        backoff_max_s=1.0,
        cache_path=tmp_path / "requests.sqlite",
    )


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[RaySettings]:
    """One local Ray with 2 CPUs for the whole session (stages reuse it); skips without Ray."""
    try:
        import ray
        import ray.data
    except ImportError:
        pytest.skip("Ray is not installed (pip install tomflywheel[ray])")
    from tomflywheel.cluster import ray_session

    settings = RaySettings(num_cpus=2)
    with ray_session(settings):
        yield settings.model_copy(update={"address": ray.get_runtime_context().gcs_address})
