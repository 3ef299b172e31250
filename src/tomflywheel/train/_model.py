"""Load the base model and tokenizer, describe LoRA adapters (optional ``peft``), save the result.

torch, transformers and peft are imported inside the functions, so importing this package (and
starting the CLI) stays cheap and works where they are not installed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tomflywheel._cpus import native_bf16_flags
from tomflywheel._io import atomic_write_json, require_writable
from tomflywheel.artifacts import TRAIN_MANIFEST
from tomflywheel.config import LoraSettings, TrainSettings
from tomflywheel.errors import ConfigError, PathError

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

logger = logging.getLogger(__name__)

MANIFEST_NAME = TRAIN_MANIFEST
"""What a run writes beside the weights: data, base model, settings, losses, time."""

_SAVE_DTYPES = {
    "auto": "float32",
    "float32": "float32",
    "bfloat16": "bfloat16",
    "float16": "float16",
}


@dataclass(frozen=True, slots=True)
class Placement:
    """Where and how a run computes."""

    device: str
    """``cpu``, ``cuda`` or ``cuda:N``."""
    autocast_bf16: bool
    """Run the forward pass under bf16 autocast (weights stay fp32)."""


def resolve_placement(settings: TrainSettings, *, cpu_bf16: bool | None = None) -> Placement:
    """The device and precision ``auto`` stands for on this machine.

    ``auto`` is bf16 autocast on a CUDA device that supports bf16, and for SFT on a CPU with
    native bf16 (``cpu_bf16``; default: this processor's flags), else fp32. On a CPU the lift was
    measured with SFT only (docs/training.md); GRPO stays fp32 there (``sft-grpo``'s SFT stage
    is SFT).

    Raises:
        ConfigError: CUDA was asked for but is not available, or bf16 on a device without it.
    """
    import torch

    device = settings.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {device!r}: this torch build sees no CUDA device")
    if device.startswith("cuda"):
        bf16_ok = torch.cuda.is_bf16_supported()
        if settings.precision == "bf16-mixed" and not bf16_ok:
            raise ConfigError("precision bf16-mixed: this CUDA device does not support bf16")
    else:
        if cpu_bf16 is None:
            cpu_bf16 = bool(native_bf16_flags())
        bf16_ok = settings.method == "sft" and cpu_bf16
    autocast = settings.precision == "bf16-mixed" or (settings.precision == "auto" and bf16_ok)
    return Placement(device=device, autocast_bf16=autocast)


EAGER_MAX_TOKENS = 192
"""The longest example ``attention: auto`` trains with eager attention on a CPU: the engine's
stories train ×1.21 as fast with it, ~600-token ones ×0.74 (docs/training.md)."""


def resolve_attention(settings: TrainSettings, *, device: str, longest: int) -> str:
    """The attention kernel ``settings.attention`` stands for, given the longest example.

    Packed rows are longer than any example, but their 4-D mask leaves the fused kernel no
    work to skip: eager attention trains them faster on a CPU too.
    """
    if settings.attention != "auto":
        return settings.attention
    short = longest <= EAGER_MAX_TOKENS or settings.packing == "prefix"
    return "eager" if device == "cpu" and settings.method == "sft" and short else "sdpa"


def load_tokenizer(base: Path) -> PreTrainedTokenizerBase:
    """The base model's tokenizer (it must carry a chat template).

    Raises:
        ConfigError: ``base`` is not a Hugging Face model folder, or has no chat template.
    """
    from transformers import AutoTokenizer

    if not (Path(base) / "config.json").exists():
        raise ConfigError(f"{base}: not a Hugging Face model folder (no config.json)")
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    if not getattr(tokenizer, "chat_template", None):
        raise ConfigError(f"{base}: the tokenizer has no chat template to train with")
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_model(base: Path, *, attention: str = "sdpa") -> PreTrainedModel:
    """The base model in fp32 on the CPU (the trainer places it), ready to train.

    ``attention`` names transformers' attention implementation (``sdpa`` or ``eager``).
    """
    import torch
    from transformers import AutoModelForCausalLM

    with _quiet_transformers():
        model = AutoModelForCausalLM.from_pretrained(
            str(base), dtype=torch.float32, attn_implementation=attention
        )
    # A saved quantization config would make vLLM look for kernels it may lack.
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.config.use_cache = False
    return model


def lora_config(lora: LoraSettings) -> Any:
    """PEFT's ``LoraConfig`` for the settings: adapters on every linear layer by default.

    Raises:
        ConfigError: ``peft`` is not installed.
    """
    if importlib.util.find_spec("peft") is None:
        raise ConfigError("LoRA needs the optional `peft` package: `pip install peft`")
    from peft import LoraConfig

    targets: str | list[str] = (
        "all-linear" if lora.target_modules == ["all-linear"] else list(lora.target_modules)
    )
    return LoraConfig(
        r=lora.rank,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=targets,
        task_type="CAUSAL_LM",
    )


@contextlib.contextmanager
def torch_state(settings: TrainSettings, placement: Placement) -> Iterator[None]:
    """Set threads and determinism for the run; restore the caller's afterwards."""
    import torch

    if placement.device.startswith("cuda") and settings.deterministic:
        # cuBLAS is only deterministic with a fixed workspace; harmless when already set.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    if settings.threads:
        torch.set_num_threads(settings.threads)
    torch.use_deterministic_algorithms(settings.deterministic, warn_only=True)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)


def trainable_parameters(model: torch.nn.Module) -> tuple[int, int]:
    """(trainable, total) parameter counts."""
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    return trainable, total


def save_model_folder(
    model: Any,
    tokenizer: PreTrainedTokenizerBase,
    out: Path,
    *,
    manifest: dict[str, Any],
    save_dtype: str,
    overwrite: bool,
) -> None:
    """Merge adapters (if any) and write a Hugging Face folder vLLM can serve, atomically.

    The folder is written beside ``out`` and renamed into place, so a crash never leaves a half
    model where a later ``serve`` would find it.

    Args:
        model: The trained model (a peft model is merged first).
        tokenizer: The base tokenizer; its files and chat template are saved with the weights.
        out: The folder to create.
        manifest: Written as ``train_manifest.json`` inside the folder.
        save_dtype: ``auto`` (float32), ``float32``, ``bfloat16`` or ``float16``.
        overwrite: Replace an existing ``out``.

    Raises:
        ConfigError: ``out`` exists, is not empty, and ``overwrite`` is false.
    """
    import torch

    out = Path(out)
    check_output_folder(out, overwrite=overwrite)
    if _is_peft_model(model):
        model = model.merge_and_unload()
    dtype = getattr(torch, _SAVE_DTYPES[save_dtype])
    model = model.to("cpu", dtype=dtype)
    model.config.use_cache = True
    model.config.dtype = dtype
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        with _quiet_transformers():
            model.save_pretrained(str(work))
        tokenizer.save_pretrained(str(work))
        atomic_write_json(work / MANIFEST_NAME, manifest)
        _readable(work)
        if out.exists():
            shutil.rmtree(out)
        os.replace(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _is_peft_model(model: Any) -> bool:
    if importlib.util.find_spec("peft") is None:
        return False
    from peft import PeftModel

    return isinstance(model, PeftModel)


def _readable(folder: Path) -> None:
    """Give the folder and its files the usual modes (temp files are created owner-only)."""
    umask = os.umask(0)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)
    for path in folder.iterdir():
        if path.is_file():
            path.chmod(0o666 & ~umask)


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Hide transformers' own progress bars (the caller draws one); restore them afterwards."""
    from transformers.utils import logging as hf_logging

    was_disabled = hf_logging.is_progress_bar_enabled() is False
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if not was_disabled:
            hf_logging.enable_progress_bar()


def check_output_folder(out: Path, *, overwrite: bool) -> None:
    """Refuse to overwrite a non-empty folder (or any file) unless asked to.

    Raises:
        ConfigError: ``out`` is a file, or a non-empty folder and ``overwrite`` is false.
    """
    out = require_writable(out)
    if out.exists() and not out.is_dir():
        raise PathError(out, None, None, "exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise ConfigError(f"{out}: exists and is not empty (pass --overwrite to replace it)")
