"""TRL's ``SFTTrainer`` set up for one run: its arguments, the encoded data, the seeded order.

The optimizer, schedule, collation, gradient accumulation, device placement, checkpoints and
data-parallel processes are the libraries' (TRL over transformers' ``Trainer`` and Accelerate);
what stays ours is which tokens carry loss (``encode_messages``) and in which order the
examples come (``batch_order``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch.utils.data
from transformers import EarlyStoppingCallback, PrinterCallback, TrainerCallback

from tomflywheel._rng import stable_seed
from tomflywheel.config import TrainSettings
from tomflywheel.train._data import IGNORE_INDEX, EncodedExample, batch_order
from tomflywheel.train._model import Placement, lora_config
from tomflywheel.train._packing import PackingCollator, packed_tokens

if TYPE_CHECKING:
    from collections.abc import Callable

    from transformers import PreTrainedModel, PreTrainedTokenizerBase
    from trl import SFTTrainer

    from datasets import Dataset

_SCHEDULES = {"constant": "constant_with_warmup", "linear": "linear", "cosine": "cosine"}
"""Our schedule names as transformers calls them (every one warms up first)."""


class SeededOrder(torch.utils.data.Sampler[int]):
    """The run's example indices, micro-batch after micro-batch, as ``batch_order`` draws them.

    The whole run is one pass over this sampler. With several processes the data loader deals
    consecutive micro-batches to the processes in turn, so the order covers all of them.
    """

    def __init__(
        self,
        n_examples: int,
        *,
        batch_size: int,
        n_batches: int,
        seed: int,
        stages: Sequence[int] | None = None,
        groups: Sequence[int] | None = None,
    ) -> None:
        self.batches = batch_order(
            n_examples,
            batch_size=batch_size,
            n_batches=n_batches,
            seed=seed,
            stages=stages,
            groups=groups,
        )

    def __iter__(self) -> Iterator[int]:
        return (index for batch in self.batches for index in batch)

    def __len__(self) -> int:
        return sum(len(batch) for batch in self.batches)


@dataclass(frozen=True, slots=True)
class RunShape:
    """How many steps and micro-batches a run takes, over every process."""

    steps: int
    processes: int
    micro_batches: int
    """Micro-batches of the whole run, all processes together."""


def examples_dataset(
    examples: Sequence[EncodedExample], groups: Sequence[int] | None = None
) -> Dataset:
    """The encoded examples as the pre-tokenized dataset TRL trains on.

    ``completion_mask`` marks the tokens that carry loss; with ``completion_only_loss`` TRL turns
    it into labels (``-100`` elsewhere), the same labels ``encode_messages`` gives. ``groups``
    (packing) adds each example's group, which the packing collator reads.
    """
    from datasets import Dataset, disable_progress_bars

    disable_progress_bars()  # TRL maps the dataset in a few passes; the caller draws progress
    columns: dict[str, list[Any]] = {
        "input_ids": [list(example.input_ids) for example in examples],
        "completion_mask": [
            [int(label != IGNORE_INDEX) for label in example.labels] for example in examples
        ],
    }
    if groups is not None:
        columns["group"] = list(groups)
    return Dataset.from_dict(columns)


def trainer_arguments(
    settings: TrainSettings, shape: RunShape, placement: Placement, *, output_dir: Path
) -> dict[str, Any]:
    """The arguments SFT's and GRPO's trainers share.

    Steps, optimizer, schedule, seed, checkpoints, logging, device and processes.
    """
    save = settings.save_steps is not None
    return {
        "output_dir": str(output_dir),
        "per_device_train_batch_size": settings.batch_size,
        "gradient_accumulation_steps": settings.gradient_accumulation,
        "max_steps": shape.steps,
        "num_train_epochs": 1,
        "learning_rate": settings.effective_learning_rate(),
        "lr_scheduler_type": _SCHEDULES[settings.lr_schedule],
        "warmup_steps": int(settings.warmup_ratio * shape.steps),
        "weight_decay": settings.weight_decay,
        "max_grad_norm": settings.max_grad_norm or 0.0,
        "optim": "adamw_torch_fused" if settings.fused_optimizer else "adamw_torch",
        "seed": stable_seed("train-torch", settings.seed) % 2**32,
        "logging_strategy": "steps",
        "logging_steps": 1,
        "save_strategy": "steps" if save else "no",
        "save_steps": settings.save_steps or 500,
        "save_total_limit": 1,
        "report_to": settings.report_to,
        "disable_tqdm": True,
        "use_cpu": placement.device == "cpu",
        "bf16": placement.autocast_bf16,
        "gradient_checkpointing": settings.gradient_checkpointing,
        "gradient_checkpointing_kwargs": {"use_reentrant": False},
        "dataloader_num_workers": 0,
        "ddp_backend": "gloo" if placement.device == "cpu" and shape.processes > 1 else None,
        "ddp_find_unused_parameters": False,
    }


def validation_arguments(settings: TrainSettings, shape: RunShape) -> dict[str, Any]:
    """Transformers' arguments for the validation loss, and for early stopping on it.

    Early stopping keeps the checkpoint of the lowest loss, so a checkpoint is written at every
    validation (the best one and the last are kept).
    """
    every = settings.validation_interval(shape.steps)
    arguments: dict[str, Any] = {
        "eval_strategy": "steps",
        "eval_steps": every,
        "per_device_eval_batch_size": settings.batch_size,
    }
    if settings.early_stopping is not None:
        arguments |= {
            "save_strategy": "steps",
            "save_steps": every,
            "load_best_model_at_end": True,
            "metric_for_best_model": "eval_loss",
            "greater_is_better": False,
            # A resumed run counts its patience on from the checkpoint, not from zero.
            "restore_callback_states_from_checkpoint": True,
        }
    return arguments


def sft_config(
    settings: TrainSettings,
    shape: RunShape,
    placement: Placement,
    *,
    output_dir: Path,
    validation: bool = False,
) -> Any:
    """TRL's ``SFTConfig`` for the run (checkpoints and logs go under ``output_dir``)."""
    from trl import SFTConfig  # imports torch, transformers, accelerate: only when a run starts

    arguments = trainer_arguments(settings, shape, placement, output_dir=output_dir)
    if validation:
        arguments |= validation_arguments(settings, shape)
    if settings.packing == "prefix":
        # The packing collator reads each example's group (a column no model takes) and gives
        # the loss its targets as ``shift_labels``; validation then needs the loss only.
        arguments |= {
            "remove_unused_columns": False,
            "label_names": ["shift_labels"],
            "prediction_loss_only": True,
        }
    return SFTConfig(
        **arguments,
        completion_only_loss=True,
        padding_free=settings.padding_free,
        max_length=settings.max_length,
        packing=False,
    )


def build_trainer(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[EncodedExample],
    order: SeededOrder,
    *,
    settings: TrainSettings,
    shape: RunShape,
    placement: Placement,
    output_dir: Path,
    on_progress: Callable[[int, int, float], None] | None,
    validation: Sequence[EncodedExample] = (),
    row_groups: tuple[Sequence[int], Sequence[int]] = ((), ()),
) -> SFTTrainer:
    """An ``SFTTrainer`` over ``examples`` drawn in ``order``, LoRA-wrapped when enabled.

    With ``validation`` examples it measures their loss every ``validation_every`` steps and,
    with ``early_stopping``, stops when it stops falling and ends on the lowest one's weights.
    With ``settings.packing``, ``row_groups`` gives each training and validation example its
    row group (examples of one group in a micro-batch share a packed row).
    """
    from trl import SFTTrainer  # imports datasets and TRL's extras: only when a run starts

    class SeededSFTTrainer(SFTTrainer):
        """``SFTTrainer`` over the seeded order, with the LM head only where loss is."""

        def _get_train_sampler(self, train_dataset: Any = None) -> SeededOrder:
            return order

        def compute_loss(
            self,
            model: Any,
            inputs: dict[str, Any],
            return_outputs: bool = False,
            num_items_in_batch: Any = None,
        ) -> Any:
            if return_outputs and "shift_labels" not in inputs:
                return super().compute_loss(model, inputs, True, num_items_in_batch)
            loss = target_token_loss(model, inputs, num_items_in_batch)
            if return_outputs:  # packed validation batches: the loss is all that is read
                return loss, {"loss": loss}
            # As transformers' Trainer: the token count spans every process and DDP averages.
            if self.args.average_tokens_across_devices and num_items_in_batch is not None:
                loss = loss * self.accelerator.num_processes
            return loss

    callbacks: list[TrainerCallback] = [Progress(on_progress)] if on_progress else []
    if validation and settings.early_stopping is not None:
        callbacks.append(EarlyStoppingCallback(early_stopping_patience=settings.early_stopping))
    packed = settings.packing == "prefix"
    if packed and len(row_groups[0]) != len(examples):  # no groups given: a row per example
        row_groups = (range(len(examples)), range(len(validation)))
    trainer = SeededSFTTrainer(
        model=model,
        args=sft_config(
            settings, shape, placement, output_dir=output_dir, validation=bool(validation)
        ),
        train_dataset=examples_dataset(examples, row_groups[0] if packed else None),
        eval_dataset=(
            examples_dataset(validation, row_groups[1] if packed else None) if validation else None
        ),
        data_collator=PackingCollator(tokenizer.pad_token_id) if packed else None,
        processing_class=tokenizer,
        peft_config=lora_config(settings.lora) if settings.lora.enabled else None,
        callbacks=callbacks or None,
    )
    trainer.remove_callback(PrinterCallback)  # the caller draws progress; no dicts on stdout
    return trainer


def target_token_loss(model: Any, inputs: dict[str, Any], num_items_in_batch: Any) -> Any:
    """Summed cross-entropy of the tokens that carry loss, over their count (or the step's).

    Only the sequence positions that predict a target in some row go through the LM head
    (``logits_to_keep``). A training sample's reply is a few tokens after a long story, and
    on a CPU TRL's fused head scores every position (its compact path needs Triton), so the
    head's projection and softmax over the 49k-token vocabulary were mostly spent on prompt
    tokens. Same loss and gradients, to float rounding. Packed batches (``_packing``) name
    each position's target directly (``shift_labels``); others shift ``labels`` by one.
    """
    shifted = inputs.get("shift_labels")
    if shifted is None:
        shifted = torch.nn.functional.pad(inputs["labels"][:, 1:], (0, 1), value=IGNORE_INDEX)
    predicts = (shifted != IGNORE_INDEX).any(dim=0).nonzero().squeeze(-1)
    forward = {k: v for k, v in inputs.items() if k not in ("labels", "shift_labels")}
    logits = model(**forward, logits_to_keep=predicts, use_cache=False).logits
    targets = shifted[:, predicts]
    summed = torch.nn.functional.cross_entropy(
        logits.flatten(0, 1).float(), targets.flatten(), ignore_index=IGNORE_INDEX, reduction="sum"
    )
    count = (targets != IGNORE_INDEX).sum() if num_items_in_batch is None else num_items_in_batch
    return summed / torch.as_tensor(count, device=summed.device).clamp(min=1)


class Progress(TrainerCallback):
    """Reports (step, total steps, loss) after each logged step, from the main process only."""

    def __init__(self, on_progress: Callable[[int, int, float], None]) -> None:
        self.on_progress = on_progress

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        if state.is_world_process_zero and logs and "loss" in logs:
            self.on_progress(state.global_step, state.max_steps, float(logs["loss"]))


def validation_records(log_history: Sequence[dict[str, Any]]) -> list[tuple[int, float]]:
    """(step, validation loss) of each validation, in order."""
    found = [(int(e["step"]), float(e["eval_loss"])) for e in log_history if "eval_loss" in e]
    return sorted(found)


def step_records(log_history: Sequence[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """Loss and learning rate of each optimizer step, from the trainer's log (resumed runs too)."""
    steps = [entry for entry in log_history if "loss" in entry and "step" in entry]
    steps.sort(key=lambda entry: entry["step"])
    return [float(e["loss"]) for e in steps], [float(e["learning_rate"]) for e in steps]


def token_counts(
    examples: Sequence[EncodedExample],
    batches: Sequence[Sequence[int]],
    row_groups: Sequence[int] | None = None,
) -> tuple[int, int]:
    """(tokens through the forward pass, tokens that carried loss) over these micro-batches.

    With ``row_groups`` (packing) a micro-batch's tokens are those of its packed rows.
    """
    seen = target = 0
    for batch in batches:
        if row_groups is not None:
            seen += packed_tokens([examples[i] for i in batch], [row_groups[i] for i in batch])
        for index in batch:
            example = examples[index]
            seen += len(example.input_ids) if row_groups is None else 0
            # The first position is never predicted, so its label is never a target.
            target += sum(label != IGNORE_INDEX for label in example.labels[1:])
    return seen, target
