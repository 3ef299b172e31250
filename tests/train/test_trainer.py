"""The TRL trainer sees the batches the hand-written loop saw: same examples, labels and loss."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.train.conftest import tomi_style_samples
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.train import IGNORE_INDEX, batch_order, build_examples
from tomflywheel.train._model import load_model, load_tokenizer, resolve_placement

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from tomflywheel.train._trainer import (  # noqa: E402  (after the skips: needs torch and TRL)
    RunShape,
    SeededOrder,
    build_trainer,
    step_records,
)

# fp32: the hand-written loop it is compared with computed in float32
SETTINGS = TrainSettings(
    steps=2, batch_size=4, seed=5, rationale=True, max_length=384, threads=1, precision="fp32"
)


def reference_collate(batch, pad_id: int) -> dict:
    """The hand-written loop's collation (before TRL): right-padded ids, mask and labels."""
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


def reference_loss(model, batch: dict) -> torch.Tensor:
    """The hand-written loop's loss: summed cross-entropy on target tokens over their count."""
    targets = batch["labels"][:, 1:]
    keep = targets != IGNORE_INDEX
    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    summed = torch.nn.functional.cross_entropy(
        logits[:, :-1, :][keep].float(), targets[keep], reduction="sum"
    )
    return summed / keep.sum()


@pytest.fixture(scope="module")
def setup(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory):
    tokenizer = load_tokenizer(tiny_model)
    data = build_examples(
        tomi_style_samples(10), tokenizer, EvalSettings(), rationale=True, max_length=384,
        source=Path("train.jsonl"),
    )  # fmt: skip
    shape = RunShape(steps=2, processes=1, micro_batches=2)
    order = SeededOrder(len(data.examples), batch_size=4, n_batches=2, seed=SETTINGS.seed)
    trainer = build_trainer(
        load_model(tiny_model), tokenizer, data.examples, order,
        settings=SETTINGS, shape=shape, placement=resolve_placement(SETTINGS),
        output_dir=tmp_path_factory.mktemp("ckpt"), on_progress=None,
    )  # fmt: skip
    return tokenizer, data, trainer


def test_the_trainer_draws_the_seeded_order(setup):
    _, data, trainer = setup
    loader = trainer.get_train_dataloader()
    expected = batch_order(len(data.examples), batch_size=4, n_batches=2, seed=SETTINGS.seed)
    seen = []
    for batch in loader:
        rows = batch["input_ids"].tolist()
        seen.append([_index_of(row, data.examples) for row in rows])
    assert seen == expected


def _index_of(row: list[int], examples) -> int:
    for index, example in enumerate(examples):
        n = len(example.input_ids)
        if row[:n] == example.input_ids and len(row) >= n:
            return index
    raise AssertionError("a batch row matches no example")


def test_a_batchs_label_mask_is_the_hand_written_loops(setup):
    tokenizer, data, trainer = setup
    first = batch_order(len(data.examples), batch_size=4, n_batches=1, seed=SETTINGS.seed)[0]
    reference = reference_collate([data.examples[i] for i in first], tokenizer.pad_token_id)
    batch = next(iter(trainer.get_train_dataloader()))
    width = reference["labels"].shape[1]
    assert batch["labels"].shape == reference["labels"].shape
    assert torch.equal(batch["labels"], reference["labels"])
    assert torch.equal(batch["input_ids"][:, :width], reference["input_ids"])
    assert torch.equal(batch["attention_mask"], reference["attention_mask"])
    # Labels are set on the reply only: a few tokens of each long conversation.
    targets = (batch["labels"] != IGNORE_INDEX).sum(dim=1)
    assert bool((targets > 0).all()) and bool((targets < reference["attention_mask"].sum(1)).all())


def first_batch(setup) -> tuple[dict, dict]:
    """The trainer's first batch, and the hand-written loop's collation of the same examples."""
    tokenizer, data, trainer = setup
    first = batch_order(len(data.examples), batch_size=4, n_batches=1, seed=SETTINGS.seed)[0]
    reference = reference_collate([data.examples[i] for i in first], tokenizer.pad_token_id)
    return dict(next(iter(trainer.get_train_dataloader()))), reference


def test_the_trainers_loss_on_a_batch_is_the_hand_written_loops(setup):
    trainer = setup[2]
    batch, reference = first_batch(setup)
    model = trainer.model
    with torch.no_grad():
        ours = trainer.compute_loss(model, dict(batch))
        theirs = reference_loss(model, reference)
    assert float(ours) == pytest.approx(float(theirs), rel=1e-5)


def test_the_head_only_where_loss_is_gives_the_hand_written_loops_gradients(setup):
    # The trainer projects only the target positions through the LM head: the gradients must be
    # those of the full-logits loss, the tied embedding included.
    trainer = setup[2]
    batch, reference = first_batch(setup)
    model = trainer.model

    def gradients(loss_of) -> dict[str, torch.Tensor]:
        model.zero_grad()
        loss_of().backward()
        grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
        model.zero_grad()
        return grads

    ours = gradients(lambda: trainer.compute_loss(model, dict(batch)))
    theirs = gradients(lambda: reference_loss(model, reference))
    assert ours.keys() == theirs.keys() and len(ours) > 10
    for name, grad in theirs.items():
        torch.testing.assert_close(ours[name], grad, rtol=1e-4, atol=1e-6, msg=name)


def test_a_batch_without_targets_has_zero_loss_and_still_backpropagates(setup):
    trainer = setup[2]
    batch = dict(next(iter(trainer.get_train_dataloader())))
    batch["labels"] = torch.full_like(batch["labels"], IGNORE_INDEX)
    loss = trainer.compute_loss(trainer.model, batch)
    loss.backward()
    trainer.model.zero_grad()
    assert float(loss.detach()) == 0.0


def test_step_records_come_in_step_order_without_the_summary():
    history = [
        {"loss": 2.0, "learning_rate": 1e-4, "step": 2},
        {"loss": 3.0, "learning_rate": 2e-4, "step": 1},
        {"train_loss": 2.5, "step": 2},
    ]
    assert step_records(history) == ([3.0, 2.0], [2e-4, 1e-4])
