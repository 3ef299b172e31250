"""One fine-tuning run (supervised or GRPO): data and base model in, a servable folder out."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tomflywheel._io import sha256_file
from tomflywheel.artifacts import ModelFolder, ValidationRecord
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.errors import ConfigError
from tomflywheel.train._launch import launch_processes, world_size
from tomflywheel.train._model import MANIFEST_NAME, check_output_folder, torch_state
from tomflywheel.train._steps import (
    TrainProgress,
    build_run,
    load_base,
    prepare_data,
    prepare_run,
    run_manifest,
    save_run,
)

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
    validation: ValidationRecord | None = None
    """SFT with a validation share: the losses, and the step the saved weights are from."""


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
    run = prepare_data(data, base=base, settings=settings, eval_settings=eval_settings)
    if settings.num_processes > 1 and world_size() == 1:
        return _in_processes(
            data, base=base, out=out, settings=settings, eval_settings=eval_settings,
            on_progress=on_progress, overwrite=overwrite, started=started,
        )  # fmt: skip
    plan = prepare_run(
        run, base=base, out=out, settings=settings, eval_settings=eval_settings,
        overwrite=overwrite,
    )  # fmt: skip
    with torch_state(settings, plan.placement):
        model = load_base(plan, base)
        loaded = time.monotonic()
        trainer, order = build_run(
            model, run, plan, settings=settings, eval_settings=eval_settings,
            on_progress=on_progress,
        )  # fmt: skip
        trainer.train(resume_from_checkpoint=str(plan.resume) if plan.resume else None)
    trained = time.monotonic()
    manifest = run_manifest(
        trainer, run, plan, base=base, settings=settings, order=order,
        seconds=(loaded - started, trained - loaded), versions=_versions(),
    )  # fmt: skip
    save_run(trainer, run, out, manifest, settings=settings, plan=plan, overwrite=overwrite)
    return _result(Path(out), manifest, seconds=time.monotonic() - started)


def _in_processes(
    data: Path, *, base: Path, out: Path, settings: TrainSettings, eval_settings: EvalSettings,
    on_progress: TrainProgress | None, overwrite: bool, started: float,
) -> TrainResult:  # fmt: skip
    """The same run in ``settings.num_processes`` data-parallel processes (torchrun)."""
    spec = {
        "data": str(data), "base": str(base), "out": str(out), "overwrite": overwrite,
        "settings": settings.model_dump(mode="json"),
        "eval_settings": eval_settings.model_dump(mode="json"),
    }  # fmt: skip
    launch_processes(
        spec, settings.num_processes, threads=settings.threads, on_progress=on_progress
    )
    manifest = json.loads(ModelFolder(Path(out)).manifest.read_text(encoding="utf-8"))
    return _result(Path(out), manifest, seconds=time.monotonic() - started)


def sft_stage_dir(out: Path) -> Path:
    """Where ``sft-grpo`` writes its SFT stage's model, beside the final ``out``."""
    return ModelFolder(Path(out)).sft_stage.root


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
        validation=(
            ValidationRecord.model_validate(manifest["validation"])
            if manifest.get("validation")
            else None
        ),
    )


def _versions() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in ("torch", "transformers", "trl", "peft", "accelerate"):
        with contextlib.suppress(PackageNotFoundError):
            found[name] = version(name)
    return found
