"""What each flywheel stage hands the next: its outputs (paths and counts) and what it spent.

The flywheel's manifest records one of these per finished stage; later stages, the round
summary and the report read them by attribute. Written as JSON with the keys they always had.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from tomflywheel.artifacts._record import Record


class Usage(Record):
    """LLM requests and tokens of one stage (the client's statistics; zeros where it sent none)."""

    requests_sent: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    mean_latency_s: float | None = None
    per_endpoint: dict[str, int] = Field(default_factory=dict)

    @property
    def spent(self) -> bool:
        """Whether the stage recorded any use at all (a stage without LLM work has none)."""
        return bool(self.model_fields_set or self.model_extra)


class EvaluateOutputs(Record):
    """The round's evaluation (``evaluate``)."""

    exp_dir: Path
    """The experiment folder (with ``feedback/`` inside once the feedback stage ran)."""


class FeedbackOutputs(Record):
    """Diagnosis, plan and synthesis (``feedback``)."""

    candidates: Path
    """``feedback/candidates.jsonl``: the synthesized samples the filter decides."""
    plan_id: str | None = None
    """The synthesis plan's id (``None``: nothing to aim at, no plan)."""
    notes: list[str] = Field(default_factory=list)


class FilterOutputs(Record):
    """The filter's files for one input (``filter``, ``fresh``)."""

    input: Path
    admitted: Path
    verdicts: Path
    manifest: Path


class FreshOutputs(FilterOutputs):
    """Fresh stories for GRPO's prompts, filtered into a set of their own (``fresh``)."""

    candidates: int = 0
    """Fresh samples drawn from the round's plan."""


class HeldoutOutputs(Record):
    """A held-out measurement (``heldout_before``, ``heldout_sft``, ``heldout_after``)."""

    exp_dir: Path
    model: str
    """The served name of the model measured."""


class TrainingMix(Record):
    """A round's training data: its new admitted samples and the earlier ones replayed."""

    new: int
    earlier: int
    replayed: int


class GrpoPromptCounts(Record):
    """GRPO's prompts with fresh stories: the admitted samples, then the fresh ones."""

    admitted: int
    fresh: int


class ValidationRecord(Record):
    """SFT with a validation share: the losses, and the step the saved weights are from."""

    samples: int
    every: int | None = None
    losses: list[tuple[int, float]] = Field(default_factory=list)
    early_stopping: int | None = None
    stopped_early: bool = False
    weights_from_step: int


class ServedFolder(Record):
    """A model folder and the name it is served under (its weights' fingerprint in it)."""

    model_dir: Path
    served_name: str
    weights_sha256: str


class TrainOutputs(ServedFolder):
    """The fine-tuned model and what training did (``train``)."""

    base: str
    """The model it started from."""
    data: Path
    """What it trained on."""
    mix: TrainingMix | None = None
    grpo_prompts: GrpoPromptCounts | None = None
    steps: int
    samples: int
    too_long: int = 0
    """Samples dropped for exceeding ``train.max_length``: what the round never taught."""
    method: str = "sft"
    """Rounds recorded before GRPO existed were all supervised."""
    first_loss: float | None = None
    last_loss: float | None = None
    first_reward: float | None = None
    """GRPO: the mean reward of the first and the last step's replies."""
    last_reward: float | None = None
    validation: ValidationRecord | None = None
    seconds: float
    sft_stage: ServedFolder | None = None
    """``sft-grpo``: the SFT stage's model, measured on its own."""
