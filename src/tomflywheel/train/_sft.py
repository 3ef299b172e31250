"""One supervised fine-tuning run: data and base model in, a servable folder and manifest out."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tomflywheel import __version__
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.schema import read_samples
from tomflywheel.train._data import build_examples
from tomflywheel.train._loop import TrainProgress, torch_state, train_loop
from tomflywheel.train._model import (
    check_output_folder,
    load_model,
    load_tokenizer,
    resolve_placement,
    save_model_folder,
    trainable_parameters,
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


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
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
) -> TrainResult:
    """Fine-tune ``base`` on the samples of ``data`` and save a servable folder at ``out``.

    Each sample is prompted exactly as the evaluation prompts it (``eval_settings``' system
    prompt and templates, the base model's chat template); the loss covers the reply only.

    Args:
        data: A training JSONL file (one ``Sample`` per line).
        base: The base model's Hugging Face folder.
        out: The folder to write (weights, tokenizer, chat template, ``train_manifest.json``).
        settings: Steps, batch, learning rate, LoRA, seed, device...
        eval_settings: The evaluation's system prompt and templates.
        on_progress: Called after each step with (done, total, loss).
        overwrite: Replace an existing non-empty ``out``.

    Raises:
        DataError: The data file is malformed, empty, or has no sample within ``max_length``.
        ConfigError: Bad base folder, output folder in the way, missing ``peft`` for LoRA, or a
            device that is not there.
    """
    started = time.monotonic()
    check_output_folder(out, overwrite=overwrite)
    samples = list(read_samples(data))
    tokenizer = load_tokenizer(base)
    train_data = build_examples(
        samples, tokenizer, eval_settings,
        rationale=settings.rationale, max_length=settings.max_length, source=data,
    )  # fmt: skip
    placement = resolve_placement(settings)
    with torch_state(settings, placement):
        model = load_model(base, settings, placement)
        trainable, total = trainable_parameters(model)
        loaded = time.monotonic()
        loop = train_loop(
            model, train_data.examples, settings=settings, placement=placement,
            pad_id=int(tokenizer.pad_token_id), on_progress=on_progress,
        )  # fmt: skip
    trained = time.monotonic()
    manifest = {
        "tomflywheel_version": __version__,
        "data": {
            "path": str(data),
            "sha256": sha256_file(data),
            "samples_read": len(samples),
            "samples_used": len(train_data.examples),
            "too_long": train_data.too_long,
            "with_rationale": train_data.with_rationale,
        },
        "base_model": str(Path(base).resolve()),
        "seed": settings.seed,
        "settings": settings.model_dump(mode="json"),
        "learning_rate": settings.effective_learning_rate(),
        "prompts": eval_settings.model_dump(mode="json", include={"system_prompt", "templates"}),
        "device": placement.device,
        "precision": "bf16-mixed" if placement.autocast_bf16 else "fp32",
        "trainable_parameters": trainable,
        "total_parameters": total,
        "steps": len(loop.losses),
        "losses": loop.losses,
        "learning_rates": loop.learning_rates,
        "tokens_seen": loop.tokens_seen,
        "target_tokens": loop.target_tokens,
        "load_seconds": round(loaded - started, 3),
        "train_seconds": round(trained - loaded, 3),
        "versions": _versions(),
    }
    logger.info("saving the fine-tuned model to %s", out)
    save_model_folder(
        model, tokenizer, out,
        manifest=manifest, save_dtype=settings.save_dtype, overwrite=overwrite,
    )  # fmt: skip
    return TrainResult(
        output_dir=Path(out),
        steps=len(loop.losses),
        losses=loop.losses,
        learning_rates=loop.learning_rates,
        samples=len(train_data.examples),
        too_long=train_data.too_long,
        with_rationale=train_data.with_rationale,
        tokens_seen=loop.tokens_seen,
        target_tokens=loop.target_tokens,
        trainable_parameters=trainable,
        device=placement.device,
        seconds=time.monotonic() - started,
        manifest=manifest,
    )


def _versions() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in ("torch", "transformers", "peft"):
        with contextlib.suppress(PackageNotFoundError):
            found[name] = version(name)
    return found
