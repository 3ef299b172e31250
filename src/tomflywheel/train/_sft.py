"""One fine-tuning run (supervised or GRPO): data and base model in, a servable folder out."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tomflywheel import __version__
from tomflywheel._io import sha256_file
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.errors import ConfigError
from tomflywheel.schema import read_samples
from tomflywheel.train._checkpoints import (
    checkpoint_folder,
    clear_checkpoints,
    resume_point,
    run_fingerprint,
    write_fingerprint,
)
from tomflywheel.train._data import (
    build_examples,
    build_prompts,
    curriculum_stages,
    example_groups,
    split_validation,
    total_steps,
    unit_keys,
)
from tomflywheel.train._launch import is_main_process, launch_processes, world_size
from tomflywheel.train._model import (
    MANIFEST_NAME,
    check_output_folder,
    load_model,
    load_tokenizer,
    resolve_attention,
    resolve_placement,
    save_model_folder,
    torch_state,
    trainable_parameters,
)
from tomflywheel.train._prompt_mix import grpo_prompt_samples

TrainProgress = Callable[[int, int, float], None]
"""Called after each optimizer step with (steps done, total steps, that step's loss)."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TrainResult:
    """What a fine-tuning run did and where its model is."""

    output_dir: Path
    """The saved Hugging Face folder (weights, tokenizer, chat template, manifest)."""
    steps: int
    """Optimizer steps taken."""
    losses: list[float]
    """Mean loss per target token of each step, in order."""
    learning_rates: list[float]
    """Learning rate of each step."""
    samples: int
    """Samples trained on (after dropping the too-long ones)."""
    too_long: list[str]
    """Ids of samples dropped for exceeding ``max_length``."""
    with_rationale: int
    """Samples taught a rationale before the answer."""
    tokens_seen: int
    """Non-padding tokens through the forward pass, over all steps."""
    target_tokens: int
    """Tokens that carried loss, over all steps."""
    trainable_parameters: int
    """Parameters updated (all of them, or the LoRA adapters')."""
    device: str
    """Where it ran."""
    seconds: float
    """Wall time of the whole run: loading, training and saving."""
    manifest: dict[str, Any] = field(repr=False, default_factory=dict)
    """The ``train_manifest.json`` written into the folder."""
    rewards: list[float] = field(default_factory=list)
    """GRPO: the mean reward of each step's replies, in order (empty for SFT)."""


def weights_sha256(model_dir: Path) -> str:
    """One SHA-256 over a model folder's weight files (``*.safetensors``, by name).

    It names what the folder computes: two trainings that differ in any weight never share it.
    """
    digest = hashlib.sha256()
    for path in sorted(Path(model_dir).glob("*.safetensors")):
        digest.update(f"{path.name}:{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def train_model(
    data: Path,
    *,
    base: Path,
    out: Path,
    settings: TrainSettings,
    eval_settings: EvalSettings,
    on_progress: TrainProgress | None = None,
    overwrite: bool = False,
    grpo_data: Path | None = None,
) -> TrainResult:
    """Fine-tune ``base`` on the samples of ``data`` and save a servable folder at ``out``.

    Each sample is prompted exactly as the evaluation prompts it (``eval_settings``' system
    prompt and templates, the base model's chat template). ``method: sft``: TRL's
    ``SFTTrainer`` teaches the ideal reply (the loss covers the reply only). ``method: grpo``:
    TRL's ``GRPOTrainer`` samples ``grpo.generations`` replies per prompt and reinforces those
    the evaluation's rules find right against the sample's engine-derived answer. With
    ``settings.save_steps`` it checkpoints into ``<out>.checkpoints`` and a restarted run
    resumes from the last checkpoint; with ``settings.num_processes`` > 1 it runs that many
    data-parallel processes (torchrun).

    Args:
        data: A training JSONL file (one ``Sample`` per line).
        base: The base model's Hugging Face folder.
        out: The folder to write (weights, tokenizer, chat template, ``train_manifest.json``).
        settings: Steps, batch, learning rate, LoRA, seed, device, checkpoints, processes...
        eval_settings: The evaluation's system prompt and templates.
        on_progress: Called after each step with (done, total, loss).
        overwrite: Replace an existing non-empty ``out``.
        grpo_data: GRPO's prompts, when they are not ``data`` (``sft-grpo``: SFT on ``data``,
            then GRPO on these; the flywheel's fresh stories).

    Raises:
        DataError: The data file is malformed, empty, or has no sample within ``max_length``.
        ConfigError: Bad base folder, output folder in the way, missing ``peft`` for LoRA, or a
            device that is not there.
    """
    started = time.monotonic()
    check_output_folder(out, overwrite=overwrite)
    if grpo_data is not None and settings.method == "sft":
        raise ConfigError(f"{grpo_data}: GRPO prompts given to an SFT run (train.method: sft)")
    if settings.method == "sft-grpo":
        return _sft_then_grpo(
            data, base=base, out=out, settings=settings, eval_settings=eval_settings,
            on_progress=on_progress, overwrite=overwrite, grpo_data=grpo_data,
        )  # fmt: skip
    data = grpo_data or data
    samples = list(read_samples(data))
    samples_read = len(samples)
    tokenizer = load_tokenizer(base)
    grpo = settings.method == "grpo"
    if grpo:
        samples = grpo_prompt_samples(
            samples, settings.grpo.prompts, seed=settings.seed, source=data
        )
        prompt_data = build_prompts(
            samples, tokenizer, eval_settings, source=data,
            max_prompt_tokens=settings.max_length - settings.grpo.max_completion_tokens,
        )  # fmt: skip
        used, too_long, with_rationale = len(prompt_data.prompts), prompt_data.too_long, 0
        rows = used * settings.grpo.generations  # each prompt is answered by a whole group
        longest = settings.max_length
    else:
        train_data = build_examples(
            samples, tokenizer, eval_settings,
            rationale=settings.rationale, max_length=settings.max_length, source=data,
        )  # fmt: skip
        stories = unit_keys(samples, "story")
        examples, validation = split_validation(
            train_data.examples, stories, share=settings.validation_share, seed=settings.seed
        )
        units = unit_keys(samples, settings.group_by) if settings.group_by != "none" else stories
        row_groups = (example_groups(examples, units), example_groups(validation, units))
        if settings.validation_share and not validation:
            logger.warning("one story only: no validation loss, and no early stopping")
        used, too_long = len(examples), train_data.too_long
        with_rationale, rows = train_data.with_rationale, len(examples)
        longest = max(len(example.input_ids) for example in train_data.examples)
    if settings.num_processes > 1 and world_size() == 1:
        spec = {
            "data": str(data), "base": str(base), "out": str(out), "overwrite": overwrite,
            "settings": settings.model_dump(mode="json"),
            "eval_settings": eval_settings.model_dump(mode="json"),
        }  # fmt: skip
        launch_processes(
            spec, settings.num_processes, threads=settings.threads, on_progress=on_progress
        )
        manifest = json.loads((Path(out) / MANIFEST_NAME).read_text(encoding="utf-8"))
        return _result(Path(out), manifest, seconds=time.monotonic() - started)
    # torch, transformers and TRL load only when a run starts in this process.
    from tomflywheel.train._trainer import (
        RunShape,
        SeededOrder,
        build_trainer,
        step_records,
        token_counts,
    )

    placement = resolve_placement(settings)
    attention = resolve_attention(settings, device=placement.device, longest=longest)
    if grpo:
        from tomflywheel.train._grpo import vllm_arguments  # TRL: only when a run starts

        vllm_arguments(settings, placement)  # refuses vLLM generation on a CPU before loading
    processes = world_size()
    steps = total_steps(rows, settings, processes=processes)
    shape = RunShape(steps, processes, steps * settings.gradient_accumulation * processes)
    data_sha256 = sha256_file(data)
    prompts = eval_settings.model_dump(mode="json", include={"system_prompt", "templates"})
    folder = checkpoint_folder(out)
    fingerprint = run_fingerprint(
        data_sha256=data_sha256, base=base, prompts=prompts,
        settings=settings.model_dump(mode="json"),
    )  # fmt: skip
    resume = resume_point(folder, fingerprint, overwrite=overwrite)
    if resume is not None:
        logger.info("resuming from %s", resume)
    stops_early = not grpo and bool(validation) and settings.early_stopping is not None
    if is_main_process() and (settings.save_steps is not None or stops_early):
        write_fingerprint(folder, fingerprint)
    with torch_state(settings, placement):
        model = load_model(base, attention=attention)
        loaded = time.monotonic()
        if grpo:
            from tomflywheel.train._grpo import build_grpo_trainer  # TRL: only when a run starts

            trainer = build_grpo_trainer(
                model, tokenizer, prompt_data.prompts,
                eval_settings=eval_settings, settings=settings, shape=shape,
                placement=placement, output_dir=folder, on_progress=on_progress,
            )  # fmt: skip
        else:
            stages = curriculum_stages(
                examples, {s.id: s.meta.get("order") for s in samples}, settings.curriculum
            )
            order = SeededOrder(
                used, batch_size=settings.batch_size, n_batches=shape.micro_batches,
                seed=settings.seed, stages=stages,
                groups=row_groups[0] if settings.group_by != "none" else None,
            )  # fmt: skip
            trainer = build_trainer(
                model, tokenizer, examples, order,
                settings=settings, shape=shape, placement=placement, output_dir=folder,
                on_progress=on_progress, validation=validation, row_groups=row_groups,
            )  # fmt: skip
        trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    trained = time.monotonic()
    losses, learning_rates = step_records(trainer.state.log_history)
    if grpo:
        from tomflywheel.train._grpo import reward_records  # TRL: only when a run starts

        replies = reward_records(trainer.state.log_history)
        logged = trainer.state.log_history
        tokens_seen = int(max((entry.get("num_tokens", 0) for entry in logged), default=0))
        per_step = settings.batch_size * settings.gradient_accumulation * processes
        target_tokens = round(sum(replies["reply_tokens"]) * per_step)
    else:
        replies = None
        taken = len(losses) * settings.gradient_accumulation * processes
        packed = row_groups[0] if settings.packing == "prefix" else None
        tokens_seen, target_tokens = token_counts(examples, order.batches[:taken], packed)
    trainable, total = trainable_parameters(trainer.model)
    manifest = {
        "tomflywheel_version": __version__,
        "data": {
            "path": str(data),
            "sha256": data_sha256,
            "samples_read": samples_read,
            "samples_used": used,
            "too_long": too_long,
            "with_rationale": with_rationale,
        },
        "method": settings.method,
        "base_model": str(Path(base).resolve()),
        "seed": settings.seed,
        "settings": settings.model_dump(mode="json"),
        "learning_rate": settings.effective_learning_rate(),
        "prompts": prompts,
        "device": placement.device,
        "processes": processes,
        "precision": "bf16-mixed" if placement.autocast_bf16 else "fp32",
        "attention": attention,
        "trainable_parameters": trainable,
        "total_parameters": total,
        "steps": len(losses),
        "losses": losses,
        "learning_rates": learning_rates,
        "tokens_seen": tokens_seen,
        "target_tokens": target_tokens,
        "resumed_from_step": _step_of(resume),
        **({"grpo": replies} if replies is not None else {}),
        **({"validation": _validation(trainer, settings, shape, validation)} if not grpo else {}),
        "load_seconds": round(loaded - started, 3),
        "train_seconds": round(trained - loaded, 3),
        "versions": _versions(),
    }
    if is_main_process():
        logger.info("saving the fine-tuned model to %s", out)
        save_model_folder(
            trainer.model, tokenizer, out,
            manifest=manifest, save_dtype=settings.save_dtype, overwrite=overwrite,
        )  # fmt: skip
        clear_checkpoints(folder)
    trainer.accelerator.wait_for_everyone()
    return _result(Path(out), manifest, seconds=time.monotonic() - started)


def sft_stage_dir(out: Path) -> Path:
    """Where ``sft-grpo`` writes its SFT stage's model, beside the final ``out``."""
    return Path(out).with_name(Path(out).name + ".sft")


def _sft_then_grpo(
    data: Path,
    *,
    base: Path,
    out: Path,
    settings: TrainSettings,
    eval_settings: EvalSettings,
    on_progress: TrainProgress | None,
    overwrite: bool,
    grpo_data: Path | None,
) -> TrainResult:
    """SFT into ``<out>.sft`` on ``data``, then GRPO from that model into ``out``.

    A finished SFT stage of the same data and settings is kept, so a rerun after a kill goes
    straight on with GRPO (which resumes from its own checkpoints).
    """
    first = sft_stage_dir(out)
    sft = settings.model_copy(update={"method": "sft"})
    manifest_path = first / MANIFEST_NAME
    done = manifest_path.exists() and _same_run(
        json.loads(manifest_path.read_text(encoding="utf-8")), data, sft
    )
    if not done:
        train_model(
            data, base=base, out=first, settings=sft, eval_settings=eval_settings,
            on_progress=on_progress, overwrite=True,
        )  # fmt: skip
    grpo = settings.model_copy(
        update={"method": "grpo", "validation_share": 0.0, "early_stopping": None}
    )
    return train_model(
        grpo_data or data, base=first, out=out, settings=grpo, eval_settings=eval_settings,
        on_progress=on_progress, overwrite=overwrite,
    )  # fmt: skip


def _same_run(manifest: dict[str, Any], data: Path, settings: TrainSettings) -> bool:
    """Whether a finished run's manifest is of this data file and these settings."""
    return manifest["data"]["sha256"] == sha256_file(data) and manifest[
        "settings"
    ] == settings.model_dump(mode="json")


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


def _result(out: Path, manifest: dict[str, Any], *, seconds: float) -> TrainResult:
    data = manifest["data"]
    return TrainResult(
        output_dir=out,
        steps=manifest["steps"],
        losses=manifest["losses"],
        learning_rates=manifest["learning_rates"],
        samples=data["samples_used"],
        too_long=data["too_long"],
        with_rationale=data["with_rationale"],
        tokens_seen=manifest["tokens_seen"],
        target_tokens=manifest["target_tokens"],
        trainable_parameters=manifest["trainable_parameters"],
        device=manifest["device"],
        seconds=seconds,
        manifest=manifest,
        rewards=manifest.get("grpo", {}).get("rewards", []),
    )


def _versions() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in ("torch", "transformers", "trl", "peft", "accelerate"):
        with contextlib.suppress(PackageNotFoundError):
            found[name] = version(name)
    return found
