"""Prefix-shared packing: a story's questions in one row compute what they compute one by one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.train import IGNORE_INDEX, batch_order, build_examples
from tomflywheel.train._data import example_groups, unit_keys
from tomflywheel.train._packing import pack_rows, packed_tokens
from tomflywheel.world.generators import generate

X = IGNORE_INDEX


@dataclass(frozen=True)
class Ex:
    input_ids: list[int]
    labels: list[int]


def test_examples_sharing_a_prefix_share_its_tokens_and_keep_their_own_positions():
    a = Ex([1, 2, 3, 4, 5], [X, X, X, 4, 5])
    b = Ex([1, 2, 3, 7, 8], [X, X, X, X, 8])
    (row,) = pack_rows([a, b], ["story", "story"])
    assert row.input_ids == [1, 2, 3, 4, 5, 7, 8]
    assert row.position_ids == [0, 1, 2, 3, 4, 3, 4]
    assert row.parents == [-1, 0, 1, 2, 3, 2, 5]
    # a's targets are predicted from its tokens 3 and 4; b's from its own 7, not from a's 4.
    assert row.shift_labels == [X, X, 4, 5, X, 8, X]
    assert row.examples == 2


def test_groups_get_rows_of_their_own():
    a = Ex([1, 2, 3, 4], [X, X, X, 4])
    b = Ex([1, 2, 5, 6], [X, X, X, 6])
    rows = pack_rows([a, b], ["one", "two"])
    assert [r.input_ids for r in rows] == [[1, 2, 3, 4], [1, 2, 5, 6]]
    assert packed_tokens([a, b], ["one", "one"]) == 6


def test_a_repeated_example_or_a_clashing_target_opens_another_row():
    a = Ex([1, 2, 3], [X, X, 3])
    clash = Ex([1, 2, 4], [X, X, 4])  # token 2 would predict 3 for a and 4 for this one
    rows = pack_rows([a, a, clash], ["s", "s", "s"])
    assert [r.input_ids for r in rows] == [[1, 2, 3], [1, 2, 3], [1, 2, 4]]
    assert sum(r.examples for r in rows) == 3


def test_batch_order_keeps_a_groups_examples_together_and_visits_each_once_an_epoch():
    groups = [0, 0, 0, 1, 1, 2, 2, 2, 2, 3]
    batches = batch_order(10, batch_size=5, n_batches=2, seed=3, groups=groups)
    stream = [i for batch in batches for i in batch]
    assert sorted(stream) == list(range(10))
    runs = [groups[i] for i in stream]
    assert all(runs.count(g) == groups.count(g) for g in set(groups))
    # consecutive: each group appears as one run
    changes = [g for k, g in enumerate(runs) if k == 0 or runs[k - 1] != g]
    assert len(changes) == len(set(groups))
    assert batches == batch_order(10, batch_size=5, n_batches=2, seed=3, groups=groups)
    assert batches != batch_order(10, batch_size=5, n_batches=2, seed=4, groups=groups)


def test_without_groups_the_order_is_the_one_it_always_was():
    singletons = batch_order(7, batch_size=3, n_batches=4, seed=1, groups=list(range(7)))
    assert singletons == batch_order(7, batch_size=3, n_batches=4, seed=1)


def test_a_curriculum_and_groups_are_refused_together():
    with pytest.raises(ValueError, match="curriculum"):
        TrainSettings(curriculum="orders", group_by="story")
    with pytest.raises(ValueError, match="GRPO"):
        TrainSettings(method="grpo", packing="prefix", batch_size=8)


def test_family_units_put_a_story_and_its_twin_together():
    samples = list(generate("tomi", n=4, seed=2, controls=True))
    twins = [s for s in samples if s.meta.get("control")]
    assert twins, "the generator wrote no control twin"
    stories = unit_keys(samples, "story")
    families = unit_keys(samples, "family")
    twin = twins[0]
    own = [s for s in samples if families[s.id] == families[twin.id]]
    assert {stories[s.id] for s in own} == {stories[twin.id], *(stories[s.id] for s in own)}
    assert len({stories[s.id] for s in own}) == 2  # the story and its twin: two texts, one unit


torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from tomflywheel.train._model import load_model, load_tokenizer  # noqa: E402  (needs torch)
from tomflywheel.train._packing import collate_rows  # noqa: E402


@pytest.fixture(scope="module")
def engine_examples(tiny_model: Path):
    tokenizer = load_tokenizer(tiny_model)
    samples = list(generate("tomi", n=3, seed=7, controls=True))
    data = build_examples(
        samples, tokenizer, EvalSettings(), rationale=False, max_length=512, source=Path("x")
    )
    keys = unit_keys(samples, "family")
    return tokenizer, data.examples, example_groups(data.examples, keys)


def separate_loss(model, examples) -> torch.Tensor:
    """Each example in its own row: summed cross-entropy on targets over their count."""
    total, count = 0.0, 0
    for example in examples:
        ids = torch.tensor([example.input_ids])
        labels = torch.tensor(example.labels[1:])
        logits = model(input_ids=ids).logits[0, :-1]
        keep = labels != IGNORE_INDEX
        total = total + torch.nn.functional.cross_entropy(
            logits[keep].float(), labels[keep], reduction="sum"
        )
        count += int(keep.sum())
    return total / count


def packed_loss(model, examples, groups) -> torch.Tensor:
    batch = collate_rows(pack_rows(examples, groups), pad_token_id=0)
    shifted = batch.pop("shift_labels")
    logits = model(**batch).logits
    keep = shifted != IGNORE_INDEX
    summed = torch.nn.functional.cross_entropy(logits[keep].float(), shifted[keep], reduction="sum")
    return summed / keep.sum()


def test_packed_rows_give_the_loss_and_gradients_of_one_row_per_example(
    tiny_model: Path, engine_examples
):
    _, examples, groups = engine_examples
    model = load_model(tiny_model, attention="eager")
    rows = pack_rows(examples, groups)
    assert len(rows) < len(examples) / 3  # a family of about nine questions per row
    assert packed_tokens(examples, groups) < 0.5 * sum(len(e.input_ids) for e in examples)

    def gradients(loss_of):
        model.zero_grad()
        loss = loss_of()
        loss.backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
        return loss.item(), grads

    theirs_loss, theirs = gradients(lambda: separate_loss(model, examples))
    ours_loss, ours = gradients(lambda: packed_loss(model, examples, groups))
    assert ours_loss == pytest.approx(theirs_loss, rel=1e-5)
    assert ours.keys() == theirs.keys()
    for name, grad in theirs.items():
        torch.testing.assert_close(ours[name], grad, rtol=1e-4, atol=1e-6, msg=name)


def test_the_sdpa_kernel_reads_the_packed_mask_as_eager_does(tiny_model: Path, engine_examples):
    _, examples, groups = engine_examples
    with torch.no_grad():
        eager = packed_loss(load_model(tiny_model, attention="eager"), examples, groups)
        sdpa = packed_loss(load_model(tiny_model, attention="sdpa"), examples, groups)
    assert float(sdpa) == pytest.approx(float(eager), rel=1e-5)


PACKED = TrainSettings(
    steps=2, batch_size=9, seed=4, max_length=512, threads=1, precision="fp32",
    group_by="family", packing="prefix", learning_rate=1e-3, lr_schedule="constant",
    warmup_ratio=0.0,
)  # fmt: skip


def test_the_trainer_packs_a_familys_questions_and_keeps_the_loss(tiny_model: Path, tmp_path):
    from tomflywheel.train._model import resolve_placement
    from tomflywheel.train._trainer import RunShape, SeededOrder, build_trainer

    tokenizer = load_tokenizer(tiny_model)
    samples = list(generate("tomi", n=3, seed=7, controls=True))
    examples = build_examples(
        samples, tokenizer, EvalSettings(), rationale=False, max_length=512, source=Path("x")
    ).examples
    groups = example_groups(examples, unit_keys(samples, "family"))
    order = SeededOrder(len(examples), batch_size=9, n_batches=2, seed=4, groups=groups)
    trainer = build_trainer(
        load_model(tiny_model, attention="eager"), tokenizer, examples, order,
        settings=PACKED, shape=RunShape(steps=2, processes=1, micro_batches=2),
        placement=resolve_placement(PACKED), output_dir=tmp_path, on_progress=None,
        row_groups=(groups, []),
    )  # fmt: skip
    batch = dict(next(iter(trainer.get_train_dataloader())))
    assert batch["attention_mask"].dim() == 4 and "shift_labels" in batch
    assert batch["input_ids"].shape[0] < 9  # fewer rows than examples: families share rows
    chosen = [examples[i] for i in order.batches[0]]
    with torch.no_grad():
        ours = trainer.compute_loss(trainer.model, batch)
        theirs = separate_loss(trainer.model, chosen)
    assert float(ours) == pytest.approx(float(theirs), rel=1e-5)


def test_a_packed_run_trains_and_counts_the_tokens_it_saved(tiny_model: Path, tmp_path):
    from tomflywheel._io import write_jsonl_atomic
    from tomflywheel.train import train_model

    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, list(generate("tomi", n=4, seed=1, controls=True)))
    runs = {}
    for packing in ("none", "prefix"):
        settings = PACKED.model_copy(update={"packing": packing, "validation_share": 0.25})
        runs[packing] = train_model(
            data, base=tiny_model, out=tmp_path / packing, settings=settings,
            eval_settings=EvalSettings(),
        )  # fmt: skip
    plain, packed = runs["none"], runs["prefix"]
    assert packed.target_tokens == plain.target_tokens
    assert packed.tokens_seen < 0.6 * plain.tokens_seen
    # the same batches, packed or not: the same losses to float rounding
    assert packed.losses == pytest.approx(plain.losses, rel=1e-4)
    ours = [loss for _, loss in packed.manifest["validation"]["losses"]]
    theirs = [loss for _, loss in plain.manifest["validation"]["losses"]]
    assert ours and ours == pytest.approx(theirs, rel=1e-4)  # packed validation batches too
