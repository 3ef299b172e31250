"""The steps of one fine-tuning run: data, load, trainer, save.

:func:`~tomflywheel.train.train_model` runs them in order: :func:`prepare_data` reads and
encodes the samples (SFT examples, or GRPO prompts); :func:`prepare_run` decides where and how
the run goes (device, attention, steps, the checkpoint to resume from) and :func:`load_base`
loads the model; :func:`build_run` builds TRL's trainer around it; :func:`run_manifest` and
:func:`save_run` record what the run did and write the servable folder. torch, transformers
and TRL load only once a run starts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tomflywheel import __version__
from tomflywheel._io import sha256_file
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.schema import Sample, read_samples
from tomflywheel.train._checkpoints import (
    checkpoint_folder,
    clear_checkpoints,
    resume_point,
    run_fingerprint,
    write_fingerprint,
)
from tomflywheel.train._data import (
    EncodedExample,
    PromptData,
    build_examples,
    build_prompts,
    curriculum_stages,
    example_groups,
    split_validation,
    total_steps,
    unit_keys,
)
from tomflywheel.train._launch import is_main_process, world_size
from tomflywheel.train._model import (
    Placement,
    load_model,
    load_tokenizer,
    resolve_attention,
    resolve_placement,
    save_model_folder,
    trainable_parameters,
)
from tomflywheel.train._prompt_mix import grpo_prompt_samples

logger = logging.getLogger(__name__)

TrainProgress = Callable[[int, int, float], None]
"""Called after each optimizer step with (steps done, total steps, that step's loss)."""


@dataclass
class RunData:
    """What the data step prepared: the samples read, and what the trainer is fed."""

    source: Path
    """The file the samples came from (GRPO's prompts when they are given apart)."""
    samples: list[Sample]
    samples_read: int
    used: int
    """Examples (SFT) or prompts (GRPO) kept within ``max_length``."""
    too_long: list[str]
    with_rationale: int
    rows: int
    """Rows a pass over the data feeds the trainer (GRPO: a whole group per prompt)."""
    longest: int
    """Tokens of the longest row (what the attention choice looks at)."""
    tokenizer: Any
    """The base model's tokenizer (its chat template renders the prompts)."""
    examples: list[EncodedExample]
    validation: list[EncodedExample]
    row_groups: tuple[Sequence[int], Sequence[int]]
    """Each training and validation example's unit (story or family) for packing."""
    prompts: PromptData | None = None
    """GRPO's prompts (``None`` for SFT)."""

    @property
    def grpo(self) -> bool:
        """Whether the run reinforces (GRPO) rather than teaches (SFT)."""
        return self.prompts is not None


def prepare_data(
    data: Path, *, base: Path, settings: TrainSettings, eval_settings: EvalSettings
) -> RunData:
    """Read ``data`` and encode it as the evaluation prompts it: SFT examples or GRPO prompts.

    Raises:
        DataError: The file is malformed, empty, or has nothing within ``max_length``.
        ConfigError: ``base`` holds no tokenizer.
    """
    samples = list(read_samples(data))
    read = len(samples)
    tokenizer = load_tokenizer(base)
    if settings.method == "grpo":
        samples = grpo_prompt_samples(
            samples, settings.grpo.prompts, seed=settings.seed, source=data
        )
        prompts = build_prompts(
            samples, tokenizer, eval_settings, source=data,
            max_prompt_tokens=settings.max_length - settings.grpo.max_completion_tokens,
        )  # fmt: skip
        return RunData(
            source=data, samples=samples, samples_read=read, used=len(prompts.prompts),
            too_long=prompts.too_long, with_rationale=0,
            # each prompt is answered by a whole group
            rows=len(prompts.prompts) * settings.grpo.generations, longest=settings.max_length,
            tokenizer=tokenizer, examples=[], validation=[], row_groups=((), ()),
            prompts=prompts,
        )  # fmt: skip
    train_data = build_examples(
        samples, tokenizer, eval_settings,
        rationale=settings.rationale, max_length=settings.max_length, source=data,
    )  # fmt: skip
    stories = unit_keys(samples, "story")
    examples, validation = split_validation(
        train_data.examples, stories, share=settings.validation_share, seed=settings.seed
    )
    units = unit_keys(samples, settings.group_by) if settings.group_by != "none" else stories
    if settings.validation_share and not validation:
        logger.warning("one story only: no validation loss, and no early stopping")
    return RunData(
        source=data, samples=samples, samples_read=read, used=len(examples),
        too_long=train_data.too_long, with_rationale=train_data.with_rationale,
        rows=len(examples), longest=max(len(e.input_ids) for e in train_data.examples),
        tokenizer=tokenizer, examples=examples, validation=validation,
        row_groups=(example_groups(examples, units), example_groups(validation, units)),
    )  # fmt: skip


@dataclass
class RunPlan:
    """Where and how the run goes: placement, steps, and the checkpoint it resumes from."""

    placement: Placement
    attention: str
    shape: Any
    """:class:`~tomflywheel.train._trainer.RunShape`: steps and micro-batches."""
    data_sha256: str
    prompts: dict[str, Any]
    """The evaluation's system prompt and templates the samples were put in."""
    folder: Path
    """The checkpoint folder beside the output."""
    resume: Path | None


def prepare_run(
    run: RunData, *, base: Path, out: Path, settings: TrainSettings,
    eval_settings: EvalSettings, overwrite: bool,
) -> RunPlan:  # fmt: skip
    """Device, attention, steps and the resume point (a finished checkpoint of the same run).

    Raises:
        ConfigError: A device that is not there, or vLLM generation asked of a CPU.
    """
    # torch, transformers and TRL load only when a run starts in this process.
    from tomflywheel.train._trainer import RunShape

    placement = resolve_placement(settings)
    attention = resolve_attention(settings, device=placement.device, longest=run.longest)
    if run.grpo:
        from tomflywheel.train._grpo import vllm_arguments  # TRL: only when a run starts

        vllm_arguments(settings, placement)  # refuses vLLM generation on a CPU before loading
    processes = world_size()
    steps = total_steps(run.rows, settings, processes=processes)
    shape = RunShape(steps, processes, steps * settings.gradient_accumulation * processes)
    data_sha256 = sha256_file(run.source)
    prompts = eval_settings.model_dump(mode="json", include={"system_prompt", "templates"})
    folder = checkpoint_folder(out)
    fingerprint = run_fingerprint(
        data_sha256=data_sha256, base=base, prompts=prompts,
        settings=settings.model_dump(mode="json"),
    )  # fmt: skip
    resume = resume_point(folder, fingerprint, overwrite=overwrite)
    if resume is not None:
        logger.info("resuming from %s", resume)
    stops_early = not run.grpo and bool(run.validation) and settings.early_stopping is not None
    if is_main_process() and (settings.save_steps is not None or stops_early):
        write_fingerprint(folder, fingerprint)
    return RunPlan(placement, attention, shape, data_sha256, prompts, folder, resume)


def load_base(plan: RunPlan, base: Path) -> Any:
    """The base model, with the attention the plan chose (inside the run's torch state)."""
    return load_model(base, attention=plan.attention)


def build_run(
    model: Any, run: RunData, plan: RunPlan, *, settings: TrainSettings,
    eval_settings: EvalSettings, on_progress: TrainProgress | None,
) -> tuple[Any, Any]:  # fmt: skip
    """Build the trainer around the loaded model: GRPO's, or SFT's in its seeded order.

    Returns:
        The trainer, and the SFT batch order (``None`` for GRPO).
    """
    # torch, transformers and TRL load only when a run starts in this process.
    from tomflywheel.train._trainer import SeededOrder, build_trainer

    if run.prompts is not None:
        from tomflywheel.train._grpo import build_grpo_trainer  # TRL: only when a run starts

        trainer = build_grpo_trainer(
            model, run.tokenizer, run.prompts.prompts,
            eval_settings=eval_settings, settings=settings, shape=plan.shape,
            placement=plan.placement, output_dir=plan.folder, on_progress=on_progress,
        )  # fmt: skip
        return trainer, None
    stages = curriculum_stages(
        run.examples, {s.id: s.meta.get("order") for s in run.samples}, settings.curriculum
    )
    order = SeededOrder(
        run.used, batch_size=settings.batch_size, n_batches=plan.shape.micro_batches,
        seed=settings.seed, stages=stages,
        groups=run.row_groups[0] if settings.group_by != "none" else None,
    )  # fmt: skip
    trainer = build_trainer(
        model, run.tokenizer, run.examples, order,
        settings=settings, shape=plan.shape, placement=plan.placement, output_dir=plan.folder,
        on_progress=on_progress, validation=run.validation, row_groups=run.row_groups,
    )  # fmt: skip
    return trainer, order


def _tokens(
    trainer: Any, run: RunData, plan: RunPlan, settings: TrainSettings, order: Any, steps: int
) -> tuple[int, int, dict[str, Any] | None]:
    """Tokens through the forward pass, tokens that carried loss, and GRPO's reply records."""
    processes = plan.shape.processes
    if run.grpo:
        from tomflywheel.train._grpo import reward_records  # TRL: only when a run starts

        replies = reward_records(trainer.state.log_history)
        logged = trainer.state.log_history
        tokens_seen = int(max((entry.get("num_tokens", 0) for entry in logged), default=0))
        per_step = settings.batch_size * settings.gradient_accumulation * processes
        return tokens_seen, round(sum(replies["reply_tokens"]) * per_step), replies
    from tomflywheel.train._trainer import token_counts  # transformers: loaded already

    taken = steps * settings.gradient_accumulation * processes
    packed = run.row_groups[0] if settings.packing == "prefix" else None
    tokens_seen, target_tokens = token_counts(run.examples, order.batches[:taken], packed)
    return tokens_seen, target_tokens, None


def run_manifest(
    trainer: Any, run: RunData, plan: RunPlan, *, base: Path, settings: TrainSettings,
    order: Any, seconds: tuple[float, float], versions: dict[str, str],
) -> dict[str, Any]:  # fmt: skip
    """``train_manifest.json``: the data, the settings, where it ran, and each step's loss.

    ``seconds`` is the time loading took and the time training took.
    """
    from tomflywheel.train._trainer import step_records  # transformers: loaded already

    losses, learning_rates = step_records(trainer.state.log_history)
    tokens_seen, target_tokens, replies = _tokens(trainer, run, plan, settings, order, len(losses))
    trainable, total = trainable_parameters(trainer.model)
    return {
        "tomflywheel_version": __version__,
        "data": {
            "path": str(run.source),
            "sha256": plan.data_sha256,
            "samples_read": run.samples_read,
            "samples_used": run.used,
            "too_long": run.too_long,
            "with_rationale": run.with_rationale,
        },
        "method": settings.method,
        "base_model": str(Path(base).resolve()),
        "seed": settings.seed,
        "settings": settings.model_dump(mode="json"),
        "learning_rate": settings.effective_learning_rate(),
        "prompts": plan.prompts,
        "device": plan.placement.device,
        "processes": plan.shape.processes,
        "precision": "bf16-mixed" if plan.placement.autocast_bf16 else "fp32",
        "attention": plan.attention,
        "trainable_parameters": trainable,
        "total_parameters": total,
        "steps": len(losses),
        "losses": losses,
        "learning_rates": learning_rates,
        "tokens_seen": tokens_seen,
        "target_tokens": target_tokens,
        "resumed_from_step": _step_of(plan.resume),
        **({"grpo": replies} if replies is not None else {}),
        **(
            {"validation": _validation(trainer, settings, plan.shape, run.validation)}
            if not run.grpo
            else {}
        ),
        "load_seconds": round(seconds[0], 3),
        "train_seconds": round(seconds[1], 3),
        "versions": versions,
    }


def save_run(
    trainer: Any, run: RunData, out: Path, manifest: dict[str, Any], *,
    settings: TrainSettings, plan: RunPlan, overwrite: bool,
) -> None:  # fmt: skip
    """Write the servable folder (the main process), drop the checkpoints, wait for the rest."""
    if is_main_process():
        logger.info("saving the fine-tuned model to %s", out)
        save_model_folder(
            trainer.model, run.tokenizer, out,
            manifest=manifest, save_dtype=settings.save_dtype, overwrite=overwrite,
        )  # fmt: skip
        clear_checkpoints(plan.folder)
    trainer.accelerator.wait_for_everyone()


def _validation(
    trainer: Any, settings: TrainSettings, shape: Any, validation: Sequence[Any]
) -> dict[str, Any] | None:
    """What the validation loss did, and which step the saved weights are from.

    The lowest loss's step when stopping early, else the last step.
    """
    if not validation:
        return None
    from tomflywheel.train._trainer import validation_records  # transformers: loaded already

    losses = validation_records(trainer.state.log_history)
    steps = trainer.state.global_step
    # The step whose checkpoint load_best_model_at_end loaded (restored on resume too).
    best = trainer.state.best_global_step or steps
    return {
        "samples": len(validation),
        "every": settings.validation_interval(shape.steps),
        "losses": [[step, loss] for step, loss in losses],
        "early_stopping": settings.early_stopping,
        "stopped_early": steps < shape.steps,
        "weights_from_step": best if settings.early_stopping is not None else steps,
    }


def _step_of(checkpoint: Path | None) -> int | None:
    return int(checkpoint.name.rsplit("-", 1)[1]) if checkpoint else None
