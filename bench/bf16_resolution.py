"""Why bf16 autocast fine-tunes the bundled model differently: the update against bf16's step.

``bench/train_throughput.py``'s ``trainer-bf16`` arm is ~2x faster on a CPU with native bf16
and its loss curve parts from fp32's at the second step. This measures, on the bundled
SmolLM2-135M and a batch of the throughput bench's samples:

- the gradients of the trainer's loss in fp32 and under bf16 autocast: cosine, and how often
  their signs agree (all components, and the larger half by magnitude);
- how many weights are exactly bf16 values, their median magnitude, and the share whose bf16
  copy (what autocast multiplies with) changes after a step of ``--lr`` in either direction.

    python bench/bf16_resolution.py
"""

from __future__ import annotations

import argparse
from pathlib import Path

from provenance import recorded
from tomflywheel._rng import stable_seed
from tomflywheel.config import EvalSettings
from tomflywheel.llm import ensure_default_model, native_bf16_flags
from tomflywheel.train import build_examples
from train_throughput import old_collate, samples

ROOT = Path(__file__).resolve().parents[1]


def batch(tokenizer, n: int) -> dict:
    """``n`` of the throughput bench's ToMi-style samples, padded into one batch."""
    examples = build_examples(
        samples(n, filler=0), tokenizer, EvalSettings(), rationale=False, max_length=2048,
        source="bench",
    ).examples  # fmt: skip
    return old_collate(examples, int(tokenizer.pad_token_id))


def gradient(model, inputs: dict, *, bf16: bool):
    """The trainer's loss gradient over every parameter, flattened to float64."""
    import torch

    from tomflywheel.train._trainer import target_token_loss

    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        loss = target_token_loss(model, inputs, None)
    loss.backward()
    flat = torch.cat([p.grad.flatten().double() for p in model.parameters()])
    model.zero_grad(set_to_none=True)
    return flat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=5e-5, help="the step size tested")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/bf16_resolution.txt")
    args = parser.parse_args()

    import torch

    from tomflywheel.train._model import load_model, load_tokenizer

    torch.set_num_threads(args.threads)
    base = ensure_default_model()
    tokenizer = load_tokenizer(base)
    model = load_model(base)
    model.train()
    inputs = batch(tokenizer, args.batch_size)
    title = "bf16 autocast against fp32 on the bundled model: gradients and the update's size"
    with recorded(args.out, title):
        flags = ", ".join(sorted(native_bf16_flags())) or "none"
        print(f"batch {args.batch_size}, threads {args.threads}; native bf16 flags: {flags}")
        fp32, bf16 = gradient(model, inputs, bf16=False), gradient(model, inputs, bf16=True)
        agree = (fp32 > 0) == (bf16 > 0)
        larger = fp32.abs() > fp32.abs().median()
        cosine = float(fp32 @ bf16 / (fp32.norm() * bf16.norm()))
        print(f"gradient cosine fp32 vs bf16 autocast: {cosine:.6f}")
        print(
            f"signs agree: {float(agree.double().mean()):.2%} of all components, "
            f"{float(agree[larger].double().mean()):.2%} of the larger half"
        )
        weights = torch.cat([p.detach().flatten() for p in model.parameters()])
        exact = float((weights == weights.bfloat16().float()).double().mean())
        directions = torch.Generator().manual_seed(stable_seed("bench-bf16-step", 0) % 2**32)
        signs = torch.rand(weights.shape, generator=directions) < 0.5
        step = args.lr * torch.where(signs, -1.0, 1.0)
        moved = float(((weights + step).bfloat16() != weights.bfloat16()).double().mean())
        print(
            f"weights {weights.numel():,}: exactly bf16 {exact:.2%}; "
            f"median |w| {float(weights.abs().median()):.4f}"
        )
        print(f"a step of {args.lr:g} changes the bf16 copy of {moved:.2%} of the weights")


if __name__ == "__main__":
    main()
