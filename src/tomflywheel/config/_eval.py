"""Settings of the evaluation: datasets, prompts, sampling, judging and log-prob scoring."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from tomflywheel.config._base import Strict
from tomflywheel.config._llm import LLMSettings

DEFAULT_SYSTEM_PROMPT = (
    "You are answering questions about short stories. Answer with as few words as possible."
)


class TemplateSettings(Strict):
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


class GenerationSettings(Strict):
    """Sampling settings of the model under evaluation."""

    temperature: float = Field(default=0.0, ge=0.0)
    """Temperature of the first (or only) trial."""
    max_tokens: int = Field(default=48, ge=1)
    """Longest answer."""
    completion_max_tokens: int = Field(default=4, ge=1)
    """Longest continuation for sentence-completion tasks."""
    trial_temperature: float = Field(default=0.7, gt=0.0)
    """Temperature of trials when ``trials > 1`` (each trial has its own seed)."""


class LogprobSettings(Strict):
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


ScoringBackend = Literal["server", "causal", "mlm", "mntp"]
"""How options are scored: through the server, or in-process with transformers (a causal LM, a
masked LM by pseudo-log-likelihood, or masked next-token prediction)."""


class ScoringSettings(Strict):
    """Which backend scores options by log-prob, and its in-process model."""

    backend: ScoringBackend = "server"
    """``server``: the OpenAI-compatible server (``/v1/completions`` prompt log-probs);
    ``causal``, ``mlm``, ``mntp``: a Hugging Face folder loaded in this process."""
    model: Path | None = None
    """The Hugging Face model folder (or hub name) of an in-process backend."""
    revision: str | None = None
    """The model's revision (branch, tag or commit) when it is a hub name."""
    device: str = "auto"
    """``auto`` (CUDA when available, else CPU), ``cpu``, ``cuda`` or ``cuda:N``."""
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    """Weights' dtype in process (float32 is the exact one on CPU)."""
    batch_size: int = Field(default=8, ge=1)
    """Sequences per forward pass of the causal backend (batched by length)."""
    non_causal_batch_size: int = Field(default=32, ge=1)
    """Masked copies per forward pass of the ``mlm`` and ``mntp`` backends."""
    share_context: bool = True
    """Causal backend: run the context shared by a question's options once (key-value cache)."""
    full_sentence_scores: bool = False
    """Score the whole sentence (context and completion), not the completion only."""
    trust_remote_code: bool = False
    """Let transformers run the model folder's own code (GPT-BERT, LTG-BERT need it)."""
    save_predictions: bool = False
    """Also write each dataset's predictions grouped by ``UID`` (``predictions_by_uid.json``)."""


SliceMode = Literal["stratified", "first"]
"""Which samples a ``max_samples`` limit keeps."""


class DatasetRef(Strict):
    """One dataset to evaluate."""

    path: Path
    """A normalized JSONL file (``tomflywheel datasets import`` or ``generate`` writes them)."""
    name: str | None = None
    """Folder name under the experiment; default: the file's stem."""
    judge: str | None = None
    """Judging method overriding the dataset's registry default."""
    max_samples: int | None = Field(default=None, ge=1)
    """Only N samples (see ``eval.slice`` for which)."""
    slice: SliceMode | None = None
    """Which N samples ``max_samples`` keeps; ``null``: ``eval.slice``."""
    optional: bool = False
    """Skip the dataset (with a note) when its file is missing: e.g. an imported real benchmark
    that a fresh clone does not have."""

    @property
    def label(self) -> str:
        """The dataset's folder name in an experiment."""
        return self.name or self.path.stem


class EvalSettings(Strict):
    """What ``tomflywheel eval`` runs and how."""

    datasets: list[DatasetRef] = Field(default_factory=list)
    """Datasets to evaluate (``--dataset`` on the command line replaces this list)."""
    datasets_dir: Path = Path("datasets")
    """Where a bare ``--dataset NAME`` is looked up (``<dir>/<NAME>.jsonl``)."""
    results_dir: Path = Path("results")
    """Where experiments are created."""
    max_samples: int | None = Field(default=None, ge=1)
    """Only N samples of each dataset (a dataset's own ``max_samples`` wins)."""
    slice: SliceMode = "stratified"
    """Which N samples: ``stratified``, a seeded slice in which every group of the task's
    metric groupings keeps its share (seeded by the dataset's name, so the same N gives the
    same samples); ``first``, the first N of the file."""
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
    answer_policy: Literal["strict", "lenient"] = "strict"
    """A reply naming several answers of a closed set (two option letters, two of the story's
    candidates): ``strict`` judges it ``ambiguous`` (counted apart, scored wrong); ``lenient``
    takes the last answer it names."""
    judges: dict[str, str] = Field(default_factory=dict)
    """Judging method by dataset name (file stem) or task name, overriding the registry default
    (the name's entry first, then the task's)."""
    logprob: LogprobSettings = Field(default_factory=LogprobSettings)
    """Log-prob scoring."""
    scoring: ScoringSettings = Field(default_factory=ScoringSettings)
    """The log-prob scoring backend (server or in-process)."""


class JudgeSettings(Strict):
    """The LLM judge (structured verdicts); by default the evaluated model's own server."""

    llm: LLMSettings | None = None
    """A separate server/model for judging; ``null`` uses ``llm``. Its key comes from its own
    variable, ``TOMFLYWHEEL_JUDGE_API_KEY`` unless ``judge.llm.api_key_env`` names another."""
    max_tokens: int = Field(default=96, ge=16)
    """Longest verdict."""
    story_chars: int = Field(default=3000, ge=200)
    """Stories are cut to this many characters in judge prompts."""
    calibration_rate: float = Field(default=0.2, ge=0.0, le=1.0)
    """Share of the items the rules decide with certainty on which the hybrid judge still asks
    the LLM, only to estimate its accuracy (its verdict there never counts)."""
    min_accuracy: float = Field(default=0.8, ge=0.0, le=1.0)
    """Below this estimated accuracy (agreement with certain rule verdicts) the report and the
    CLI warn that the LLM judge's verdicts are unreliable."""
