"""Supervised fine-tuning: teach a causal LM the ideal replies to admitted training samples.

Public API: ``train_model`` (one run: data + base folder in, servable folder out), its settings
(``TrainSettings``, ``LoraSettings``) and result (``TrainResult``), the data helpers the run
uses (``build_examples``, ``encode_messages``, ``batch_order``, ``curriculum_stages``),
``weights_sha256`` (a folder's weights fingerprint) and ``sft_stage_dir`` (where ``sft-grpo``
keeps its SFT model). Training itself is TRL's ``SFTTrainer`` (PEFT for LoRA, Accelerate for
several processes); torch, transformers, TRL and peft are imported only when a run starts.
"""

from tomflywheel.config import LoraSettings, TrainSettings
from tomflywheel.train._data import (
    IGNORE_INDEX,
    EncodedExample,
    TrainData,
    batch_order,
    build_examples,
    curriculum_stages,
    encode_messages,
    sample_messages,
    total_steps,
)
from tomflywheel.train._model import MANIFEST_NAME
from tomflywheel.train._sft import (
    TrainProgress,
    TrainResult,
    sft_stage_dir,
    train_model,
    weights_sha256,
)

__all__ = [
    "IGNORE_INDEX",
    "MANIFEST_NAME",
    "EncodedExample",
    "LoraSettings",
    "TrainData",
    "TrainProgress",
    "TrainResult",
    "TrainSettings",
    "batch_order",
    "build_examples",
    "curriculum_stages",
    "encode_messages",
    "sample_messages",
    "sft_stage_dir",
    "total_steps",
    "train_model",
    "weights_sha256",
]
