"""The training loop: batches in seeded order, loss on target tokens, AdamW, LR schedule."""

from __future__ import annotations

import contextlib
import logging
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tomflywheel._rng import stable_seed
from tomflywheel.config import TrainSettings
from tomflywheel.train._data import IGNORE_INDEX, EncodedExample, batch_order
from tomflywheel.train._model import Placement

if TYPE_CHECKING:
    import torch

logger = logging.getLogger(__name__)

TrainProgress = Callable[[int, int, float], None]
"""Called after each optimizer step with (steps done, total steps, that step's loss)."""


def total_steps(n_examples: int, settings: TrainSettings) -> int:
    """Optimizer steps of a run: ``steps`` if set, else enough for ``epochs`` passes."""
    if settings.steps is not None:
        return settings.steps
    per_step = settings.batch_size * settings.gradient_accumulation
    return max(1, math.ceil(settings.epochs * n_examples / per_step))


def lr_factor(step: int, *, total: int, warmup: int, schedule: str) -> float:
    """The learning-rate multiplier at 0-based ``step``: linear warm-up, then the schedule."""
    if step < warmup:
        return (step + 1) / (warmup + 1)
    if schedule == "constant":
        return 1.0
    progress = (step - warmup) / max(1, total - warmup)
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    return 1.0 - progress


def collate(batch: Sequence[EncodedExample], pad_id: int, device: str) -> dict[str, torch.Tensor]:
    """Right-pad a micro-batch to its longest example: ids, attention mask and labels."""
    import torch

    width = max(len(example.input_ids) for example in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), width), IGNORE_INDEX, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, example in enumerate(batch):
        n = len(example.input_ids)
        ids[row, :n] = torch.tensor(example.input_ids)
        labels[row, :n] = torch.tensor(example.labels)
        mask[row, :n] = 1
    return {
        "input_ids": ids.to(device),
        "attention_mask": mask.to(device),
        "labels": labels.to(device),
    }


@contextlib.contextmanager
def torch_state(settings: TrainSettings, placement: Placement) -> Iterator[None]:
    """Seed torch and set threads and determinism for the run; restore the caller's afterwards."""
    import torch

    cuda = placement.device.startswith("cuda")
    if cuda and settings.deterministic:
        # cuBLAS is only deterministic with a fixed workspace; harmless when already set.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    devices = [torch.device(placement.device).index or 0] if cuda else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(stable_seed("train-torch", settings.seed))
        if settings.threads:
            torch.set_num_threads(settings.threads)
        torch.use_deterministic_algorithms(settings.deterministic, warn_only=True)
        try:
            yield
        finally:
            torch.set_num_threads(threads)
            torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)


def _optimizer(model: torch.nn.Module, settings: TrainSettings) -> torch.optim.Optimizer:
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in params if p.ndim >= 2], "weight_decay": settings.weight_decay},
        {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=settings.effective_learning_rate())


def _micro_batch_loss(
    model: torch.nn.Module, batch: dict[str, torch.Tensor], placement: Placement
) -> torch.Tensor:
    """Summed cross-entropy over the batch's target tokens (the caller divides by the step's).

    The output layer runs on the target positions only: full logits (batch x length x a 49k
    vocabulary, in float32 for the loss) would take gigabytes for a few answer tokens.
    """
    import torch
    import torch.nn.functional as F

    targets = batch["labels"][:, 1:]
    keep = targets != IGNORE_INDEX
    device_type = "cuda" if placement.device.startswith("cuda") else "cpu"
    with torch.autocast(device_type, dtype=torch.bfloat16, enabled=placement.autocast_bf16):
        decoder = model.get_decoder()  # type: ignore[operator]
        hidden = decoder(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
        ).last_hidden_state
        logits = model.get_output_embeddings()(hidden[:, :-1, :][keep])  # type: ignore[operator]
    return F.cross_entropy(logits.float(), targets[keep], reduction="sum")


@dataclass(slots=True)
class LoopRecord:
    """What the loop measured, step by step."""

    losses: list[float] = field(default_factory=list)
    learning_rates: list[float] = field(default_factory=list)
    tokens_seen: int = 0
    target_tokens: int = 0


def train_loop(
    model: torch.nn.Module,
    examples: list[EncodedExample],
    *,
    settings: TrainSettings,
    placement: Placement,
    pad_id: int,
    on_progress: TrainProgress | None,
) -> LoopRecord:
    """Run every optimizer step on ``examples`` in seeded order, updating the model in place."""
    import torch

    steps = total_steps(len(examples), settings)
    accumulation = settings.gradient_accumulation
    order = batch_order(
        len(examples), batch_size=settings.batch_size, n_batches=steps * accumulation,
        seed=settings.seed,
    )  # fmt: skip
    optimizer = _optimizer(model, settings)
    warmup = int(settings.warmup_ratio * steps)
    peak = settings.effective_learning_rate()
    loop = LoopRecord()
    model.train()
    for step in range(steps):
        lr = peak * lr_factor(step, total=steps, warmup=warmup, schedule=settings.lr_schedule)
        for group in optimizer.param_groups:
            group["lr"] = lr
        micro = [[examples[i] for i in order[step * accumulation + k]] for k in range(accumulation)]
        # Targets of the whole step (label at position 0 is never predicted, so it is not one).
        step_targets = sum(sum(x != IGNORE_INDEX for x in e.labels[1:]) for b in micro for e in b)
        total_loss = 0.0
        for batch in micro:
            tensors = collate(batch, pad_id, placement.device)
            loss = _micro_batch_loss(model, tensors, placement) / max(1, step_targets)
            loss.backward()
            total_loss += float(loss.detach())
            loop.tokens_seen += int(tensors["attention_mask"].sum())
        if settings.max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(
                [p for p in model.parameters() if p.requires_grad], settings.max_grad_norm
            )
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        loop.losses.append(total_loss)
        loop.learning_rates.append(lr)
        loop.target_tokens += step_targets
        logger.info("step %d/%d loss %.4f lr %.2e", step + 1, steps, total_loss, lr)
        if on_progress is not None:
            on_progress(step + 1, steps, total_loss)
    return loop
