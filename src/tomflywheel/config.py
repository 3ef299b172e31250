"""Typed settings loaded from YAML; a bad file fails with its path, line, key and reason."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from tomflywheel.errors import ConfigError

ENV_BASE_URL = "TOMFLYWHEEL_BASE_URL"
ENV_API_KEY = "TOMFLYWHEEL_API_KEY"
ENV_MODEL = "TOMFLYWHEEL_MODEL"
ENV_CACHE_DIR = "TOMFLYWHEEL_CACHE_DIR"

DEFAULT_CONFIG = Path("configs/default.yaml")


def cache_root() -> Path:
    """Where converted models and the request cache live (``$TOMFLYWHEEL_CACHE_DIR`` overrides)."""
    if os.environ.get(ENV_CACHE_DIR):
        return Path(os.environ[ENV_CACHE_DIR]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tomflywheel"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbeddedServerSettings(_Strict):
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
    enforce_eager: bool = True
    """Skip torch.compile: ready in ~30 s instead of ~110 s on CPU."""
    startup_timeout_s: float = Field(default=300.0, gt=0)
    """How long to wait for ``/v1/models`` to answer."""
    extra_args: list[str] = Field(default_factory=list)
    """More ``vllm`` server arguments, passed as a list (never through a shell)."""


class LLMSettings(_Strict):
    """How requests reach an OpenAI-compatible server."""

    base_urls: list[str] = Field(default_factory=list)
    """Endpoints ending in ``/v1``; several are balanced with failover. Ignored when embedded."""
    model: str | None = None
    """Model name sent with each request; embedded: the served model name."""
    api_key_env: str = ENV_API_KEY
    """Environment variable holding the API key (keys are never read from or written to files)."""
    endpoint: Literal["chat", "completions"] = "chat"
    """Which API generation prompts go to."""
    concurrency: int = Field(default=16, ge=1)
    """Requests in flight at once."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Per-request timeout."""
    max_retries: int = Field(default=4, ge=0)
    """Retries on connection errors, timeouts, 429 and 5xx."""
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

    def resolved_cache_path(self) -> Path:
        """The request cache file in use."""
        return self.cache_path or cache_root() / "requests.sqlite"


DEFAULT_SYSTEM_PROMPT = (
    "You are answering questions about short stories. Answer with as few words as possible."
)


class TemplateSettings(_Strict):
    """Prompt templates; ``{story}``, ``{question}`` and ``{options}`` are filled in."""

    open: str = "{story}\n\nQuestion: {question}\nAnswer with a single word or short phrase."
    """Open QA."""
    choice: str = (
        "{story}\n\nQuestion: {question}\n{options}\n"
        "Answer with the letter of the correct option only."
    )
    """Single-choice QA; options are listed one per line as ``A. text``."""
    multi_choice: str = (
        "{story}\n\nQuestion: {question}\n{options}\n"
        "Several options may be correct. Answer with all correct letters, separated by commas."
    )
    """Multi-choice QA."""
    completion: str = "{story}"
    """Sentence completion through the completions endpoint: the raw text to continue."""
    completion_chat: str = "Continue the text with the next word only.\n\n{story}"
    """Sentence completion through the chat endpoint."""
    logprob: str = "{story}\n\nQuestion: {question}\nAnswer:"
    """Context for log-prob scoring; each option is scored as the continuation `` {option}``."""


class GenerationSettings(_Strict):
    """Sampling settings of the model under evaluation."""

    temperature: float = Field(default=0.0, ge=0.0)
    """Temperature of the first (or only) trial."""
    max_tokens: int = Field(default=48, ge=1)
    """Longest answer."""
    completion_max_tokens: int = Field(default=4, ge=1)
    """Longest continuation for sentence-completion tasks."""
    trial_temperature: float = Field(default=0.7, gt=0.0)
    """Temperature of trials when ``trials > 1`` (each trial has its own seed)."""


class LogprobSettings(_Strict):
    """Log-prob scoring of options and its temperature sweep."""

    min_temperature: float = Field(default=0.1, gt=0.0)
    """Lowest softmax temperature of the sweep."""
    max_temperature: float = Field(default=2.0, gt=0.0)
    """Highest softmax temperature of the sweep."""
    temperature_step: float = Field(default=0.1, gt=0.0)
    """Step of the sweep."""
    normalize: Literal["sum", "mean"] = "sum"
    """Score an option by its summed token log-prob, or by the mean per token."""
    macro_by: str | None = None
    """A ``meta`` field to macro-average over (e.g. a story id); ``null``: micro average."""


class DatasetRef(_Strict):
    """One dataset to evaluate."""

    path: Path
    """A normalized JSONL file (``tomflywheel datasets import`` or ``generate`` writes them)."""
    name: str | None = None
    """Folder name under the experiment; default: the file's stem."""
    judge: str | None = None
    """Judging method overriding the dataset's registry default."""
    max_samples: int | None = Field(default=None, ge=1)
    """Only the first N samples."""

    @property
    def label(self) -> str:
        """The dataset's folder name in an experiment."""
        return self.name or self.path.stem


class EvalSettings(_Strict):
    """What ``tomflywheel eval`` runs and how."""

    datasets: list[DatasetRef] = Field(default_factory=list)
    """Datasets to evaluate (``--dataset`` on the command line replaces this list)."""
    datasets_dir: Path = Path("datasets")
    """Where a bare ``--dataset NAME`` is looked up (``<dir>/<NAME>.jsonl``)."""
    results_dir: Path = Path("results")
    """Where experiments are created."""
    max_samples: int | None = Field(default=None, ge=1)
    """Only the first N samples of each dataset."""
    exclude_memory_reality: bool = False
    """Drop the question types a dataset marks as excludable (ToMi: memory and reality)."""
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    """System message of chat requests (empty: none)."""
    templates: TemplateSettings = Field(default_factory=TemplateSettings)
    """Prompt templates."""
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    """Sampling settings."""
    trials: int = Field(default=1, ge=1)
    """Predictions per sample; more than one samples at ``generation.trial_temperature``."""
    strict_matching: bool = False
    """Rules judge: accept exact matches only."""
    judges: dict[str, str] = Field(default_factory=dict)
    """Judging method per dataset name, overriding the registry default."""
    logprob: LogprobSettings = Field(default_factory=LogprobSettings)
    """Log-prob scoring."""


class JudgeSettings(_Strict):
    """The LLM judge (structured verdicts); by default the evaluated model's own server."""

    llm: LLMSettings | None = None
    """A separate server/model for judging; ``null`` uses ``llm``."""
    max_tokens: int = Field(default=96, ge=16)
    """Longest verdict."""
    story_chars: int = Field(default=3000, ge=200)
    """Stories are cut to this many characters in judge prompts."""


class FeedbackSettings(_Strict):
    """Diagnosis of bad cases and synthesis of targeted training stories."""

    unsure_margin: float = Field(default=0.5, ge=0.0)
    """A right log-prob answer whose margin over the runner-up is below this (nats) is mined."""
    llm_diagnosis: bool = True
    """Ask the LLM to diagnose stories the engine cannot parse."""
    cross_check_rate: float = Field(default=0.2, ge=0.0, le=1.0)
    """Share of symbolically diagnosed cases also diagnosed by the LLM (agreement figure)."""
    max_llm_diagnoses: int | None = Field(default=None, ge=0)
    """Cap on LLM diagnosis requests per run (``null``: no cap)."""
    budget: int = Field(default=120, ge=0)
    """Candidate samples to synthesize in all (controls included)."""
    min_per_weakness: int = Field(default=4, ge=1)
    """Each weakness in the plan gets at least this many samples."""
    controls: bool = True
    """Add matched controls (true-belief twins; Kosinski's control variants)."""
    diversity: float = Field(default=0.3, ge=0.0, le=1.0)
    """Share of sentences rendered with non-benchmark phrasings."""
    rationale: bool = True
    """Attach a step-by-step rationale derived from the trace to each symbolic sample."""
    seed: int = 0
    """Seeds the plan and every generator it calls."""
    adversarial: bool = False
    """Keep only candidates the evaluated model fails (ExploreToM-style selection)."""
    adversarial_pool: int = Field(default=3, ge=1)
    """Candidates generated per sample wanted, when adversarial."""
    adversarial_requests: int = Field(default=400, ge=0)
    """Request budget of the adversarial selection."""
    naturalize: bool = False
    """Rewrite a share of symbolic stories as fluent prose (marked for verification)."""
    naturalize_fraction: float = Field(default=0.25, ge=0.0, le=1.0)
    """Share of symbolic samples to naturalize."""
    free_form: bool = False
    """Ask the LLM for new stories modelled on bad cases (unverified labels)."""
    free_form_count: int = Field(default=8, ge=0)
    """How many free-form stories."""


class Settings(_Strict):
    """A whole configuration file."""

    server: Literal["embedded", "external"] = "embedded"
    """``embedded``: commands start and stop a local vLLM server; ``external``: use base_urls."""
    embedded: EmbeddedServerSettings = Field(default_factory=EmbeddedServerSettings)
    """Settings of the embedded server."""
    llm: LLMSettings = Field(default_factory=LLMSettings)
    """How requests are sent."""
    eval: EvalSettings = Field(default_factory=EvalSettings)
    """The evaluation."""
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    """The LLM judge."""
    feedback: FeedbackSettings = Field(default_factory=FeedbackSettings)
    """Diagnosis and synthesis."""

    def snapshot(self) -> dict[str, Any]:
        """The settings as plain data for ``results/<exp>/config.yaml``; secrets are left out."""
        return self.model_dump(mode="json")


def _node_line(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """1-based line of the YAML node at ``loc``, or of its closest existing parent."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == key), None)
            if match is None:
                return line
            key_node = next(k for k, v in node.value if k.value == key)
            line = key_node.start_mark.line + 1
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _apply_env(data: dict[str, Any]) -> dict[str, Any]:
    llm = dict(data.get("llm") or {})
    if os.environ.get(ENV_BASE_URL):
        llm["base_urls"] = [u.strip() for u in os.environ[ENV_BASE_URL].split(",") if u.strip()]
        data["server"] = "external"
    if os.environ.get(ENV_MODEL):
        llm["model"] = os.environ[ENV_MODEL]
    data["llm"] = llm
    return data


def parse_settings(text: str, source: Path | str = "<config>") -> Settings:
    """Validate a YAML document into ``Settings``, applying environment overrides.

    Raises:
        ConfigError: Invalid YAML or an invalid key; names file, line, key and reason.
    """
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else str(source)
        raise ConfigError(f"{where}: invalid YAML: {getattr(err, 'problem', err)}") from err
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of settings at the top level")
    if "api_key" in (data.get("llm") or {}):
        raise ConfigError(
            f"{source}:{_node_line(node, ('llm', 'api_key'))}: llm.api_key: keys are never read "
            "from files; set the variable named by llm.api_key_env instead"
        )
    try:
        settings = Settings.model_validate(_apply_env(data))
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(first["loc"])
        key = ".".join(str(part) for part in loc)
        raise ConfigError(f"{source}:{_node_line(node, loc)}: {key}: {first['msg']}") from err
    key_var = ENV_API_KEY if os.environ.get(ENV_API_KEY) else settings.llm.api_key_env
    if os.environ.get(key_var):
        settings.llm.api_key = SecretStr(os.environ[key_var])
    return settings


def load_settings(path: Path) -> Settings:
    """Load and validate a YAML config file.

    Raises:
        ConfigError: Missing file, invalid YAML or invalid keys (file, line, key and reason).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"{path}: cannot read config ({err.strerror})") from err
    return parse_settings(text, path)
