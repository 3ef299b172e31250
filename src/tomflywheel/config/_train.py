"""Fine-tuning settings (``train:``): supervised, or GRPO on the engine's answers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_FULL_LR = 2e-5
"""Learning rate of a full fine-tune when none is set."""
DEFAULT_LORA_LR = 2e-4
"""Learning rate of a LoRA fine-tune when none is set (adapters need a larger one)."""


class LoraSettings(BaseModel):
    """Low-rank adapters (the optional ``peft`` package), merged into the weights on save."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    """Train LoRA adapters instead of every weight."""
    rank: int = Field(default=16, ge=1)
    """Rank ``r`` of each adapter."""
    alpha: int = Field(default=32, ge=1)
    """Scaling numerator: an adapter's update is scaled by ``alpha / rank``."""
    dropout: float = Field(default=0.05, ge=0.0, lt=1.0)
    """Dropout on the adapters' input during training."""
    target_modules: list[str] = Field(default_factory=lambda: ["all-linear"], min_length=1)
    """Module names (or suffixes) that get adapters; ``["all-linear"]``: every linear layer
    except the output head."""


class GrpoSettings(BaseModel):
    """Group-relative policy optimization (TRL's ``GRPOTrainer``) with a verifiable reward.

    Each prompt is the evaluation's prompt for an admitted sample; the model writes
    ``generations`` replies and each is rewarded by the evaluation's rules against the sample's
    engine-derived answer, never by an LLM judge.
    """

    model_config = ConfigDict(extra="forbid")

    generations: int = Field(default=4, ge=2)
    """Replies per prompt (the group whose rewards are compared)."""
    max_completion_tokens: int = Field(default=16, ge=1)
    """Longest reply generated."""
    temperature: float = Field(default=1.0, gt=0.0)
    """Sampling temperature of the replies."""
    beta: float = Field(default=0.0, ge=0.0)
    """Weight of the KL penalty to the starting model (0: none, and no reference model)."""
    learning_rate: float | None = Field(default=None, gt=0.0)
    """GRPO's peak learning rate (``None``: ``train.learning_rate``). In ``sft-grpo`` the SFT
    stage keeps ``train.learning_rate``; policy-gradient recipes run several times lower."""
    prompts: Literal["all", "targets", "balanced"] = "all"
    """Which samples GRPO prompts with: ``all``; ``targets``, the false-belief questions only
    (``audit.sample_role``); or ``balanced``, the targets and as many controls, true beliefs
    first. On a mix that is mostly controls, naming the true location wins most groups; on
    targets alone, naming the first location does; on a balanced mix neither shortcut wins
    more than half."""
    reward_correct: float = 1.0
    """Reward of a reply that names the right answer (and only it)."""
    reward_format: float = 0.1
    """Added for naming exactly one of the story's candidates (or options), right or wrong."""
    penalty_several: float = Field(default=0.5, ge=0.0)
    """Subtracted for naming several candidates: hedging never pays."""
    vllm: Literal["off", "colocate", "server"] = "off"
    """Generate the replies with vLLM through TRL's integration (a CUDA device only):
    ``colocate`` runs vLLM in the training process on its GPU, ``server`` asks a
    ``trl vllm-serve`` server at ``vllm_server``; ``off``: transformers' ``generate``."""
    vllm_server: str | None = None
    """Base URL of the ``trl vllm-serve`` server (``vllm: server``), e.g. ``http://host:8000``."""
    vllm_gpu_memory: float = Field(default=0.3, gt=0.0, le=1.0)
    """Share of the GPU's memory a colocated vLLM may take (the rest trains)."""

    @model_validator(mode="after")
    def _server_named(self) -> GrpoSettings:
        if self.vllm == "server" and not self.vllm_server:
            raise ValueError("vllm: server needs vllm_server (the trl vllm-serve URL)")
        return self


class TrainSettings(BaseModel):
    """How ``tomflywheel train`` fine-tunes a causal LM on admitted training samples."""

    model_config = ConfigDict(extra="forbid")

    method: Literal["sft", "grpo", "sft-grpo"] = "sft"
    """``sft``: teach the ideal reply; ``grpo``: reinforce the replies the engine's answer
    rewards; ``sft-grpo``: SFT into ``<out>.sft``, then GRPO from that model."""
    grpo: GrpoSettings = Field(default_factory=GrpoSettings)
    """Group size, reply length and rewards of ``method: grpo``."""
    steps: int | None = Field(default=None, ge=1)
    """Optimizer steps; when set it overrides ``epochs``."""
    epochs: float = Field(default=1.0, gt=0.0)
    """Passes over the data (fractions allowed), used when ``steps`` is not set."""
    batch_size: int = Field(default=8, ge=1)
    """Samples per forward pass (micro-batch); with GRPO, replies (``grpo.generations`` per
    prompt), and ``batch_size * gradient_accumulation`` must be a multiple of the group."""
    gradient_accumulation: int = Field(default=1, ge=1)
    """Micro-batches per optimizer step: the effective batch is ``batch_size`` times this."""
    learning_rate: float | None = Field(default=None, gt=0.0)
    """Peak learning rate; ``null``: 2e-5 for a full fine-tune, 2e-4 with LoRA."""
    lr_schedule: Literal["constant", "linear", "cosine"] = "linear"
    """Decay after warm-up: none, linear to zero, or cosine to zero."""
    warmup_ratio: float = Field(default=0.05, ge=0.0, le=0.5)
    """Fraction of the steps (rounded down) that ramp the learning rate up from zero."""
    weight_decay: float = Field(default=0.0, ge=0.0)
    """AdamW weight decay, applied to matrices only (never to norms and biases)."""
    fused_optimizer: bool = True
    """AdamW's fused kernel, one pass over every parameter (several times faster on a CPU);
    ``false``: the per-tensor kernels of runs before it. The same update up to float rounding."""
    max_grad_norm: float | None = Field(default=1.0, gt=0.0)
    """Clip the gradient's global norm to this; ``null``: no clipping."""
    max_length: int = Field(default=1024, ge=16)
    """Longest tokenized sample (prompt + reply); longer ones are dropped and counted."""
    seed: int = 0
    """Seeds the data order and torch (LoRA initialization, dropout)."""
    curriculum: Literal["none", "orders"] = "none"
    """SFT's order within each epoch. ``none``: shuffled; ``orders``: by belief order
    (``meta.order``: world questions 0, first-order beliefs 1, second-order 2...), lowest first,
    shuffled within each order (a sample without an order counts as 0)."""
    rationale: bool = False
    """Teach ``meta.rationale`` (step-by-step, from the story's trace) before ``Answer: ...``
    where a sample has one; samples without one are taught the answer alone."""
    lora: LoraSettings = Field(default_factory=LoraSettings)
    """Low-rank adapters instead of a full fine-tune."""
    precision: Literal["auto", "fp32", "bf16-mixed"] = "auto"
    """Weights and optimizer in fp32; ``bf16-mixed`` runs the forward pass in bf16 autocast.
    ``auto``: bf16-mixed on a CUDA device that supports bf16, and for SFT on a CPU with native
    bf16 (AVX-512 BF16 or AMX), else fp32."""
    save_dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    """Dtype of the saved weights; ``auto``: float32 (a small fine-tune's updates can be below
    bf16's resolution, so rounding would erase them)."""
    device: str = Field(default="auto", pattern=r"^(auto|cpu|cuda(:\d+)?)$")
    """``auto`` (CUDA when available, else CPU), ``cpu``, ``cuda`` or ``cuda:N``."""
    threads: int | None = Field(default=None, ge=1)
    """CPU threads for torch; ``null`` keeps torch's default."""
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass: less memory, ~30% more time."""
    deterministic: bool = True
    """Ask torch for deterministic kernels (same seed, same data, same device: same losses)."""
    save_steps: int | None = Field(default=None, ge=1)
    """Write a checkpoint every this many steps into ``<out>.checkpoints/``; a run restarted with
    the same data and settings resumes from the last one. ``null``: no checkpoints."""
    validation_share: float = Field(default=0.0, ge=0.0, lt=1.0)
    """SFT: share of the training stories (whole stories, drawn by ``seed``) kept out of training
    and used to measure the loss on every ``validation_every`` steps; 0: train on everything."""
    validation_every: int | None = Field(default=None, ge=1)
    """Steps between validation losses; ``null``: a tenth of the run's steps (at least 1)."""
    early_stopping: int | None = Field(default=None, ge=1)
    """SFT: stop after this many validation losses in a row without a new lowest one, and save
    the weights of the lowest (needs ``validation_share`` > 0; a checkpoint is written at every
    validation, so a killed run resumes from the last). ``null``: run every step."""
    num_processes: int = Field(default=1, ge=1)
    """Data-parallel processes (one per GPU; on a CPU they share its cores). Each takes
    ``batch_size`` samples per micro-batch, so a step sees ``num_processes`` times more."""
    padding_free: bool = False
    """Concatenate a micro-batch into one row without padding (TRL's padding-free mode)."""
    group_by: Literal["none", "story", "family"] = "none"
    """SFT's order within each epoch, by unit. ``none``: examples shuffled one by one;
    ``story``: stories shuffled, each story's questions one after another (so they share
    micro-batches); ``family``: the same with a story and its true-belief twin as one unit
    (``meta.story_id``, which the engine gives both)."""
    packing: Literal["none", "prefix"] = "none"
    """SFT's micro-batches. ``prefix``: the examples of one story (of one ``group_by`` unit)
    share a row whose common token prefix is computed once (a prefix tree under a 4-D attention
    mask: the same values as one row per example, to float rounding); with ``group_by`` it
    trains a story's questions at about half the cost."""
    attention: Literal["auto", "sdpa", "eager"] = "auto"
    """The attention kernel training runs. ``auto``: ``eager`` (matmuls and a softmax) for SFT on
    a CPU when every example fits in 192 tokens, where PyTorch's CPU flash-attention backward
    costs more than it saves; else ``sdpa`` (PyTorch's fused attention; docs/training.md)."""
    report_to: Literal["none", "tensorboard"] = "none"
    """Experiment tracking: ``tensorboard`` writes event files (offline) under
    ``<out>.checkpoints/runs``; nothing is sent anywhere."""

    @model_validator(mode="after")
    def _whole_groups(self) -> TrainSettings:
        per_step = self.batch_size * self.gradient_accumulation
        if self.method != "sft" and per_step % self.grpo.generations:
            raise ValueError(
                f"method {self.method}: batch_size * gradient_accumulation ({per_step}) must be a "
                f"multiple of grpo.generations ({self.grpo.generations}): a step takes whole groups"
            )
        if self.early_stopping is not None and not self.validation_share:
            raise ValueError("early_stopping needs validation_share > 0: a loss to stop on")
        if self.method == "grpo" and self.curriculum != "none":
            raise ValueError("curriculum orders SFT's examples; GRPO draws its prompts itself")
        if self.method == "grpo" and (self.group_by != "none" or self.packing != "none"):
            raise ValueError("group_by and packing shape SFT's batches; GRPO draws its own")
        if self.curriculum != "none" and self.group_by != "none":
            raise ValueError("a curriculum orders examples one by one: it cannot keep groups")
        if self.packing != "none" and self.padding_free:
            raise ValueError("packing and padding_free are two ways to build rows: pick one")
        if self.method == "grpo" and self.validation_share:
            raise ValueError(
                "validation_share and early_stopping are for SFT (and the SFT stage of sft-grpo)"
            )
        return self

    def validation_interval(self, steps: int) -> int:
        """Steps between validation losses in a run of ``steps`` steps."""
        return self.validation_every or max(1, steps // 10)

    def effective_learning_rate(self) -> float:
        """The peak learning rate, with the default that fits full or LoRA fine-tuning.

        A GRPO run (and the GRPO stage of ``sft-grpo``) takes ``grpo.learning_rate`` when set.
        """
        if self.method == "grpo" and self.grpo.learning_rate is not None:
            return self.grpo.learning_rate
        if self.learning_rate is not None:
            return self.learning_rate
        return DEFAULT_LORA_LR if self.lora.enabled else DEFAULT_FULL_LR
