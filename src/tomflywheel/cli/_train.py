"""``tomflywheel train``: fine-tune a causal LM on a training data file (SFT or GRPO)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import ConfigOption, load, out, progress, status, with_flags
from tomflywheel.config import DEFAULT_CONFIG

if TYPE_CHECKING:
    from tomflywheel.train import TrainResult


def _print_summary(result: TrainResult) -> None:
    """First and last loss, steps, time, what was dropped, and how to serve the model."""
    table = Table(title="Fine-tuning", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    table.add_row("steps", str(result.steps))
    table.add_row("method", str(result.manifest.get("method", "sft")))
    table.add_row("loss", f"{result.losses[0]:.4f} → {result.losses[-1]:.4f}")
    validation = result.manifest.get("validation")
    if validation and validation["losses"]:
        first, last = validation["losses"][0][1], validation["losses"][-1][1]
        table.add_row(
            "validation loss",
            f"{first:.4f} → {last:.4f} ({validation['samples']} samples)"
            + (" · stopped early" if validation["stopped_early"] else "")
            + f" · weights of step {validation['weights_from_step']}",
        )
    if result.rewards:
        table.add_row("mean reward", f"{result.rewards[0]:.3f} → {result.rewards[-1]:.3f}")
    table.add_row("samples", f"{result.samples} ({result.with_rationale} with a rationale)")
    if result.too_long:
        table.add_row("dropped", f"{len(result.too_long)} longer than max_length")
    table.add_row("tokens", f"{result.tokens_seen:,} seen, {result.target_tokens:,} with loss")
    table.add_row("parameters trained", f"{result.trainable_parameters:,}")
    table.add_row("device", result.device)
    table.add_row("time", f"{result.seconds:.1f} s")
    table.add_row("model", escape(str(result.output_dir)))
    out.print(table)
    out.print(f"serve it: tomflywheel serve --model {escape(str(result.output_dir))}")


def train_command(
    data: Annotated[
        Path,
        typer.Option(exists=True, dir_okay=False, help="Training JSONL (one sample per line)."),
    ],
    out_dir: Annotated[
        Path, typer.Option("--out", help="Folder to write the fine-tuned model to.")
    ],
    config: ConfigOption = DEFAULT_CONFIG,
    base: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            file_okay=False,
            help="Base Hugging Face model folder (default: the bundled SmolLM2).",
        ),
    ] = None,
    method: Annotated[
        str | None,
        typer.Option(
            help="sft (teach the ideal reply), grpo (reward replies by the engine's answer) or "
            "sft-grpo (one, then the other); default: train.method."
        ),
    ] = None,
    grpo_data: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="GRPO's prompts when they are not --data (sft-grpo: SFT on --data, then GRPO "
            "on these).",
        ),
    ] = None,
    generations: Annotated[
        int | None,
        typer.Option(min=2, help="GRPO: replies per prompt (default: train.grpo.generations)."),
    ] = None,
    steps: Annotated[
        int | None,
        typer.Option(min=1, help="Optimizer steps, overriding --epochs (default: train.steps)."),
    ] = None,
    epochs: Annotated[
        float | None, typer.Option(min=0.01, help="Passes over the data (default: train.epochs).")
    ] = None,
    batch_size: Annotated[
        int | None, typer.Option(min=1, help="Samples per micro-batch (default: train.batch_size).")
    ] = None,
    gradient_accumulation: Annotated[
        int | None,
        typer.Option(
            min=1, help="Micro-batches per optimizer step (default: train.gradient_accumulation)."
        ),
    ] = None,
    learning_rate: Annotated[
        float | None,
        typer.Option(help="Peak learning rate (default: 2e-5 full, 2e-4 LoRA)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the data order and torch (default: train.seed).")
    ] = None,
    max_length: Annotated[
        int | None,
        typer.Option(
            min=16,
            help="Longest sample in tokens; longer ones are dropped (default: train.max_length).",
        ),
    ] = None,
    lora: Annotated[
        bool | None,
        typer.Option(
            "--lora/--full",
            help="Train LoRA adapters (needs peft; merged on save) or every weight "
            "(default: train.lora.enabled).",
        ),
    ] = None,
    lora_rank: Annotated[
        int | None, typer.Option(min=1, help="LoRA rank (default: train.lora.rank).")
    ] = None,
    rationale: Annotated[
        bool | None,
        typer.Option(
            "--rationale/--no-rationale",
            help="Teach each sample's meta.rationale before 'Answer: ...' where it has one "
            "(default: train.rationale).",
        ),
    ] = None,
    curriculum: Annotated[
        str | None,
        typer.Option(
            help="SFT's order within an epoch: none (shuffled) or orders (by belief order, "
            "meta.order, lowest first); default: train.curriculum.",
        ),
    ] = None,
    device: Annotated[
        str | None,
        typer.Option(
            help="auto, cpu, cuda or cuda:N; auto: CUDA when available (default: train.device)."
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(min=1, help="CPU threads for torch (default: torch's; 1 on a busy machine)."),
    ] = None,
    gradient_checkpointing: Annotated[
        bool | None,
        typer.Option(
            "--gradient-checkpointing/--no-gradient-checkpointing",
            help="Recompute activations in the backward pass (less memory, more time).",
        ),
    ] = None,
    save_steps: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Checkpoint every N steps into <out>.checkpoints; the same command resumes.",
        ),
    ] = None,
    validation_share: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=0.99,
            help="SFT: share of the stories held out for a validation loss (default: 0).",
        ),
    ] = None,
    early_stopping: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="SFT: stop after N validations without a lower loss; keep the lowest's weights.",
        ),
    ] = None,
    num_processes: Annotated[
        int | None,
        typer.Option(min=1, help="Data-parallel processes (torchrun; gloo on CPU, NCCL on GPUs)."),
    ] = None,
    report_to: Annotated[
        str | None,
        typer.Option(help="none or tensorboard (event files under <out>.checkpoints/runs)."),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option(help="Replace --out if it exists and is not empty.")
    ] = False,
) -> None:
    """Fine-tune a causal LM on training samples, prompted as the evaluation prompts them."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.llm import ensure_default_model
    from tomflywheel.train import train_model  # on use (start-up time)
    from tomflywheel.train._launch import is_main_process  # on use (start-up time)

    loaded = load(config)
    eval_settings = loaded.eval
    settings = with_flags(
        loaded.train,
        {
            "method": method,
            "grpo": {"generations": generations},
            "steps": steps,
            "epochs": epochs,
            "batch_size": batch_size,
            "gradient_accumulation": gradient_accumulation,
            "learning_rate": learning_rate,
            "seed": seed,
            "max_length": max_length,
            "rationale": rationale,
            "curriculum": curriculum,
            "device": device,
            "threads": threads,
            "gradient_checkpointing": gradient_checkpointing,
            "save_steps": save_steps,
            "validation_share": validation_share,
            "early_stopping": early_stopping,
            "num_processes": num_processes,
            "report_to": report_to,
            "lora": {
                "enabled": lora,
                "rank": lora_rank,
                "alpha": 2 * lora_rank if lora_rank else None,
            },
        },
    )
    if base is None:
        base = ensure_default_model(on_status=status)
    status(f"fine-tuning {base} on {data} → {out_dir}")
    with progress("train", fields=("loss",)) as update:
        result = train_model(
            data,
            base=base,
            out=out_dir,
            settings=settings,
            eval_settings=eval_settings,
            on_progress=lambda done, total, loss: update(done, total, loss=f"{loss:.4f}"),
            overwrite=overwrite,
            grpo_data=grpo_data,
        )
    if is_main_process():  # under `accelerate launch`, every process runs this command
        _print_summary(result)
