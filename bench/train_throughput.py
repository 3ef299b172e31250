"""Fine-tuning throughput: the trainer against a plain PyTorch loop on the same batches.

Same admitted samples, same base model (the bundled SmolLM2-135M), same steps, batch, seeded
order and learning rate; each arm runs in its own process (so peak RSS is its own) and the arms
run twice, in mirrored order. Arms:

- ``loop``: the hand-written loop the trainer replaced (full logits, frozen below as ``OLD LOOP``);
- ``trl-fused``: TRL's ``SFTTrainer`` with its own loss, the fused LM head, which on a CPU
  scores every position (its compact path needs Triton);
- ``trainer-foreach``: the project's trainer, which projects only the positions that carry
  loss, with AdamW's per-tensor (foreach) kernels as before ``train.fused_optimizer``;
- ``trainer``: the same with the fused AdamW kernel (the default);
- ``trainer-bf16``: the same under bf16 autocast (``train.precision: bf16-mixed``; weights,
  gradients and optimizer stay float32). Fast on a CPU with native bf16 (``avx512_bf16`` or
  AMX), where oneDNN runs the matmuls in bf16; the loss curve shows what the rounding costs;
- ``trainer-eager`` / ``trainer-bf16-eager``: the same with transformers' eager attention
  (matmuls and a softmax) instead of PyTorch's fused SDPA, which ``train.attention: auto``
  picks for SFT on a CPU when every example fits in 192 tokens;
- ``lora`` / ``lora-bf16``: LoRA (``train.lora``, its default rank and learning rate) in fp32
  and under bf16 autocast. The base weights get no gradient, and the adapters' updates are
  large against their own size, so bf16's coarse steps cost them less than a full fine-tune;
- ``stories`` / ``stories-bf16``: ``trainer`` / ``trainer-bf16`` with a story's questions one
  after another (``train.group_by: story``), each in its own row;
- ``packed`` / ``packed-bf16``: the same order with each story's questions in one packed row,
  their shared prefix computed once (``train.packing: prefix``; eager attention, as ``auto``
  picks for it). The same losses as the ``stories`` arm to float rounding; far fewer tokens
  through the model.

Prints tokens/s (the examples' own tokens, as one row each would pass them, over training
seconds, loading and saving excluded; a packed arm passes fewer through the model, so its rate
is what it trains per second), the padding share, the share of tokens that went through the
model, peak RSS, the loss curves, the trained model's loss on held-out samples (float32, the
same for every arm: how much each arm learned, not just how fast), and each arm's ratio to the
first arm (goal >= 1.0 for the trainer against the loop); writes
``bench/results/train_throughput.txt`` with the command and commit. Sizes: ToMi-like template
samples (``tomi``, ~110 tokens), Hi-ToM-like ones (``hitom``, ~600), and the engine's ToMi-style
stories with all their question types (``engine``: what a round trains on; its held-out samples
are other stories).

    python bench/train_throughput.py                      # both sizes, 8 steps of batch 8
    python bench/train_throughput.py --steps 4 --batch-size 4 --sizes tomi --out /tmp/t.txt
    python bench/train_throughput.py --sizes tomi --arms loop,trainer,trainer-bf16
    python bench/train_throughput.py --sizes engine --steps 46 \
        --arms trainer,trainer-bf16,lora,lora-bf16
    python bench/train_throughput.py --sizes engine,hitom \
        --arms trainer-bf16,trainer-bf16-eager,trainer,trainer-eager
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import recorded
from tomflywheel._io import write_jsonl_atomic
from tomflywheel._rng import rng_for, stable_seed
from tomflywheel.config import DEFAULT_LORA_LR, EvalSettings, LoraSettings, TrainSettings
from tomflywheel.llm import ensure_default_model, native_bf16_flags
from tomflywheel.schema import Answer, Sample, read_samples
from tomflywheel.train import IGNORE_INDEX, batch_order, build_examples
from tomflywheel.train._data import example_groups, unit_keys
from tomflywheel.world import generate

ARMS = (
    "loop", "trl-fused", "trainer-foreach", "trainer", "trainer-bf16", "trainer-eager",
    "trainer-bf16-eager", "lora", "lora-bf16", "stories", "packed", "stories-bf16",
    "packed-bf16",
)  # fmt: skip
SIZES = ("tomi", "hitom", "engine")
ROOT = Path(__file__).resolve().parents[1]
AGENTS = ["Sally", "Anne", "Jack", "Mia", "Noah", "Liam", "Emma", "Olivia"]
OBJECTS = ["ball", "apple", "key", "book", "hat", "cup"]
PLACES = ["basket", "box", "drawer", "cupboard", "bag", "suitcase"]


def samples(n: int, *, filler: int, first: int = 0) -> list[Sample]:
    """False-belief stories; ``filler`` extra distractor sentences make Hi-ToM-sized ones."""
    out = []
    for i in range(first, first + n):
        rng = rng_for("bench-train-samples", i)
        a, b = rng.sample(AGENTS, 2)
        thing = rng.choice(OBJECTS)
        first, second = rng.sample(PLACES, 2)
        extra = " ".join(
            f"{rng.choice(AGENTS)} looked at the {rng.choice(PLACES)} in the hallway."
            for _ in range(filler)
        )
        story = (
            f"{a} entered the kitchen. {b} entered the kitchen. The {thing} is in the {first}. "
            f"{extra} {a} exited the kitchen. {b} moved the {thing} to the {second}."
        )
        out.append(
            Sample(
                id=f"bench-{i:03d}",
                story=story,
                question=f"Where will {a} look for the {thing}?",
                answer=Answer(correct_answers=[first]),
                meta={"dataset": "tomi", "split": "train", "question_type": "first_order"},
            )
        )
    return out


# ---------------------------------------------------------------- OLD LOOP (frozen reference)


def old_lr_factor(step: int, *, total: int, warmup: int, schedule: str) -> float:
    if step < warmup:
        return (step + 1) / (warmup + 1)
    if schedule == "constant":
        return 1.0
    progress = (step - warmup) / max(1, total - warmup)
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    return 1.0 - progress


def old_collate(batch, pad_id: int):
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
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def old_micro_batch_loss(model, batch):
    import torch.nn.functional as F

    targets = batch["labels"][:, 1:]
    keep = targets != IGNORE_INDEX
    hidden = model.get_decoder()(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
    ).last_hidden_state
    logits = model.get_output_embeddings()(hidden[:, :-1, :][keep])
    return F.cross_entropy(logits.float(), targets[keep], reduction="sum")


def old_train_loop(model, examples, settings: TrainSettings, pad_id: int) -> list[float]:
    import torch

    steps = settings.steps
    order = batch_order(
        len(examples), batch_size=settings.batch_size, n_batches=steps, seed=settings.seed
    )
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in params if p.ndim >= 2], "weight_decay": settings.weight_decay},
        {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=settings.effective_learning_rate())
    warmup = int(settings.warmup_ratio * steps)
    peak = settings.effective_learning_rate()
    losses = []
    model.train()
    for step in range(steps):
        lr = peak * old_lr_factor(step, total=steps, warmup=warmup, schedule=settings.lr_schedule)
        for group in optimizer.param_groups:
            group["lr"] = lr
        batch = [examples[i] for i in order[step]]
        step_targets = sum(sum(x != IGNORE_INDEX for x in e.labels[1:]) for e in batch)
        loss = old_micro_batch_loss(model, old_collate(batch, pad_id)) / max(1, step_targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, settings.max_grad_norm)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss.detach()))
    return losses


def heldout_loss(model, examples, pad_id: int, batch_size: int = 8) -> float:
    """Mean loss per target token on ``examples``, in float32 without autocast."""
    import torch

    model.eval()
    summed, count = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(examples), batch_size):
            batch = examples[start : start + batch_size]
            summed += float(old_micro_batch_loss(model, old_collate(batch, pad_id)))
            count += sum(sum(x != IGNORE_INDEX for x in e.labels[1:]) for e in batch)
    return summed / max(1, count)


# ---------------------------------------------------------------- the arms


def arm_settings(arm: str, settings: TrainSettings) -> TrainSettings:
    """What the arm changes in the shared settings."""
    update: dict = {}
    if arm == "trainer-foreach":
        update["fused_optimizer"] = False
    if "-bf16" in arm:
        update["precision"] = "bf16-mixed"
    if arm.startswith("lora"):
        update["lora"] = LoraSettings(enabled=True)
        update["learning_rate"] = DEFAULT_LORA_LR
    if arm.startswith(("stories", "packed")):
        update["group_by"] = "story"
    if arm.startswith("packed"):
        update["packing"] = "prefix"
    return settings.model_copy(update=update)


def tokenized(path: Path, tokenizer, settings: TrainSettings) -> list:
    """The training examples of a JSONL file of samples."""
    return build_examples(
        list(read_samples(path)), tokenizer, EvalSettings(), rationale=False,
        max_length=settings.max_length, source=path,
    ).examples  # fmt: skip


def worker(arm: str, data: Path, heldout: Path, base: Path, settings: TrainSettings) -> dict:
    import torch

    from tomflywheel.train._model import load_model, load_tokenizer, resolve_placement
    from tomflywheel.train._trainer import RunShape, SeededOrder, build_trainer, token_counts

    torch.set_num_threads(settings.threads or torch.get_num_threads())
    tokenizer = load_tokenizer(base)
    examples, held = (tokenized(path, tokenizer, settings) for path in (data, heldout))
    settings = arm_settings(arm, settings)
    groups = example_groups(examples, unit_keys(list(read_samples(data)), "story"))
    order = SeededOrder(
        len(examples), batch_size=settings.batch_size, n_batches=settings.steps,
        seed=settings.seed, groups=groups if settings.group_by != "none" else None,
    )  # fmt: skip
    tokens, _ = token_counts(examples, order.batches)
    packed = settings.packing == "prefix"
    forward = token_counts(examples, order.batches, groups)[0] if packed else tokens
    padded = sum(
        len(batch) * max(len(examples[i].input_ids) for i in batch) for batch in order.batches
    )
    torch.manual_seed(stable_seed("train-torch", settings.seed) % 2**32)
    # Every arm but the -eager and packed ones runs PyTorch's fused attention, as recorded before.
    eager = arm.endswith("-eager") or packed
    model = load_model(base, attention="eager" if eager else "sdpa")
    pad_id = int(tokenizer.pad_token_id)
    base_loss = heldout_loss(model, held, pad_id)
    model.train()
    if arm == "loop":
        started = time.perf_counter()
        losses = old_train_loop(model, examples, settings, pad_id)
        seconds = time.perf_counter() - started
        held_loss = heldout_loss(model, held, pad_id)
    else:
        if arm == "trl-fused":
            import tomflywheel.train._trainer as trainer_module

            def trl_fused_loss(model, inputs, num_items_in_batch):
                # TRL's own loss path: the fused head over every position.
                fused = model(**inputs, fused_lm_head=True, num_items_in_batch=num_items_in_batch)
                return fused.loss

            trainer_module.target_token_loss = trl_fused_loss
        with tempfile.TemporaryDirectory() as tmp:
            trainer = build_trainer(
                model, tokenizer, examples, order, settings=settings,
                shape=RunShape(settings.steps, 1, settings.steps),
                placement=resolve_placement(settings), output_dir=Path(tmp), on_progress=None,
                row_groups=(groups, []),
            )  # fmt: skip
            started = time.perf_counter()
            trainer.train()
            seconds = time.perf_counter() - started
            losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
            held_loss = heldout_loss(trainer.model, held, pad_id)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"arm": arm, "tokens": tokens, "forward_tokens": forward, "padded": padded,
            "seconds": seconds,
            "losses": losses, "heldout_loss": held_loss, "base_heldout_loss": base_loss,
            "peak_rss_mib": peak_kib / 1024}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sizes", default="tomi,hitom", help=f"comma-separated: {SIZES}")
    parser.add_argument("--heldout", type=int, default=64, help="held-out samples for the loss")
    parser.add_argument(
        "--once", action="store_true", help="each arm once, not twice in mirrored order"
    )
    parser.add_argument(
        "--arms",
        type=lambda text: tuple(text.split(",")),
        default=ARMS,
        help=f"comma-separated, the first one the reference (default: {','.join(ARMS)})",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/train_throughput.txt")
    parser.add_argument("--worker", choices=ARMS, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--heldout-data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    settings = TrainSettings(
        steps=args.steps, batch_size=args.batch_size, learning_rate=5e-5, lr_schedule="linear",
        warmup_ratio=0.0, seed=0, max_length=2048, threads=args.threads,
    )  # fmt: skip
    base = ensure_default_model()
    if args.worker:
        print(json.dumps(worker(args.worker, args.data, args.heldout_data, base, settings)))
        return
    unknown = set(args.arms) - set(ARMS)
    if unknown:
        sys.exit(f"--arms: unknown {', '.join(sorted(unknown))}; arms: {', '.join(ARMS)}")
    if set(args.sizes.split(",")) - set(SIZES):
        sys.exit(f"--sizes: one or more of {', '.join(SIZES)}")
    title = (
        "fine-tuning throughput: plain loop vs TRL's fused head vs the project's trainer"
        " (per-tensor and fused AdamW, fp32 and bf16 autocast, full and LoRA)"
    )
    with recorded(args.out, title):
        flags = native_bf16_flags()
        print(
            f"steps {args.steps}, batch {args.batch_size}, threads {args.threads}, "
            f"held-out loss on {args.heldout} samples; "
            f"arms run {'once each' if args.once else 'in mirrored order'}, each in its own "
            "process; "
            f"load average before {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
            f"native bf16 flags: {', '.join(sorted(flags)) or 'none'}"
        )
        with tempfile.TemporaryDirectory() as tmp:
            for size in args.sizes.split(","):
                runs = measure(size, Path(tmp), args)
                print("\n".join(report(size, runs, args.arms)), flush=True)


def measure(size: str, tmp: Path, args: argparse.Namespace) -> list[dict]:
    """Each arm twice in mirrored order (once: ``--once``), each in its own process."""
    data, heldout = tmp / f"{size}.jsonl", tmp / f"{size}-heldout.jsonl"
    n = max(16, args.steps * args.batch_size)
    write_jsonl_atomic(data, size_samples(size, n, first=0))
    write_jsonl_atomic(heldout, size_samples(size, args.heldout, first=n))
    runs = []
    for arm in args.arms if args.once else (*args.arms, *reversed(args.arms)):
        done = subprocess.run(
            [sys.executable, __file__, "--worker", arm, "--data", str(data),
             "--heldout-data", str(heldout), "--steps", str(args.steps),
             "--batch-size", str(args.batch_size), "--threads", str(args.threads)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def size_samples(size: str, n: int, *, first: int) -> list[Sample]:
    """``n`` samples of one size; ``first`` keeps held-out ones apart from training ones."""
    if size != "engine":
        return samples(n, filler=0 if size == "tomi" else 40, first=first)
    out: list[Sample] = []
    seed = first  # every seed its own stories: held-out stories are not trained on
    while len(out) < n:
        out.extend(generate("tomi", n=max(1, n // 18 + 1), seed=seed))
        seed += 1_000_000
    return out[:n]


def report(size: str, runs: list[dict], arms: tuple[str, ...]) -> list[str]:
    """One line per run, then each arm's mean tokens/s and its ratio to the first arm's."""
    lines = []
    rates: dict[str, list[float]] = {arm: [] for arm in arms}
    for run in runs:
        rates[run["arm"]].append(run["tokens"] / run["seconds"])
        lines.append(
            f"{size:6} {run['arm']:18}  {run['tokens'] / run['seconds']:8.1f} tok/s  "
            f"{run['seconds']:6.1f} s  padding {1 - run['tokens'] / run['padded']:4.0%}  "
            f"through the model {run.get('forward_tokens', run['tokens']) / run['tokens']:4.0%}  "
            f"peak RSS {run['peak_rss_mib']:6.0f} MiB  held-out loss {run['heldout_loss']:.4f}  "
            "losses " + " ".join(f"{loss:.4f}" for loss in shown(run["losses"]))
        )
    mean = {arm: sum(values) / len(values) for arm, values in rates.items()}
    first = arms[0]
    lines.append(
        f"{size:6} mean tok/s "
        + ", ".join(f"{a} {mean[a]:.1f} (x{mean[a] / mean[first]:.2f} of {first})" for a in arms)
    )
    held = {a: [r["heldout_loss"] for r in runs if r["arm"] == a] for a in arms}
    lines.append(
        f"{size:6} held-out loss before training {runs[0]['base_heldout_loss']:.4f}, after: "
        + ", ".join(f"{a} {sum(v) / len(v):.4f}" for a, v in held.items())
    )
    return lines


def shown(losses: list[float], most: int = 12) -> list[float]:
    """At most ``most`` of a loss curve, evenly spaced, the last always among them."""
    if len(losses) <= most:
        return losses
    step = len(losses) / most
    return [losses[min(len(losses) - 1, round((i + 1) * step) - 1)] for i in range(most)]


if __name__ == "__main__":
    main()
