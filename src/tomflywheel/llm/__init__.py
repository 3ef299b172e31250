"""The LLM layer: content and structured clients, log-prob scoring, request cache, vLLM launcher.

Knows nothing about Theory of Mind; every LLM call of every stage goes through here.
"""

from tomflywheel._cpus import native_bf16_flags

# Built-in scoring backends: each module registers its factories on import.
from tomflywheel.llm import _hf_scorers  # noqa: F401
from tomflywheel.llm._batch import ProgressCallback, run_batch
from tomflywheel.llm._cache import RequestCache, request_key
from tomflywheel.llm._content import ContentClient, Reply
from tomflywheel.llm._llm_endpoint import check_endpoint, llm_endpoint, shared_servers
from tomflywheel.llm._logprob import (
    ContinuationScore,
    FirstToken,
    continuation_logprob,
    first_token,
    score_continuations,
    score_many,
)
from tomflywheel.llm._preflight import Need, preflight
from tomflywheel.llm._scorers import (
    SCORERS,
    Scorer,
    ScoringPair,
    build_scorer,
    score_pairs,
)
from tomflywheel.llm._server import (
    VLLMServer,
    default_model_dir,
    embedded_server,
    ensure_default_model,
    free_port,
)
from tomflywheel.llm._stats import UsageStats
from tomflywheel.llm._structure import StructureClient, StructureFailure

__all__ = [
    "SCORERS",
    "ContentClient",
    "ContinuationScore",
    "FirstToken",
    "Need",
    "ProgressCallback",
    "Reply",
    "RequestCache",
    "Scorer",
    "ScoringPair",
    "StructureClient",
    "StructureFailure",
    "UsageStats",
    "VLLMServer",
    "build_scorer",
    "check_endpoint",
    "continuation_logprob",
    "default_model_dir",
    "embedded_server",
    "ensure_default_model",
    "first_token",
    "free_port",
    "llm_endpoint",
    "native_bf16_flags",
    "preflight",
    "request_key",
    "run_batch",
    "score_continuations",
    "score_many",
    "score_pairs",
    "shared_servers",
]
