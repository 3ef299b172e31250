"""Label masking on the real bundled tokenizer, sample messages, data order, settings, schedule."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.train.conftest import tomi_style_samples
from tomflywheel.config import EvalSettings
from tomflywheel.datasets import task_for_sample
from tomflywheel.errors import ConfigError, DataError
from tomflywheel.schema import Answer, Sample
from tomflywheel.train import (
    IGNORE_INDEX,
    EncodedExample,
    TrainSettings,
    batch_order,
    build_examples,
    curriculum_stages,
    encode_messages,
    sample_messages,
    total_steps,
)

SOURCE = Path("train.jsonl")


@pytest.fixture(scope="module")
def tokenizer(base_model: Path):
    from tomflywheel.train._model import load_tokenizer

    return load_tokenizer(base_model)


def _labelled(ids: list[int], labels: list[int]) -> list[int]:
    return [token for token, label in zip(ids, labels, strict=True) if label != IGNORE_INDEX]


def test_only_the_reply_and_its_end_of_turn_token_carry_labels(tokenizer):
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Where is the ball?"},
        {"role": "assistant", "content": "basket"},
    ]
    ids, labels = encode_messages(messages, tokenizer)
    tokens = tokenizer.convert_ids_to_tokens(ids)
    # ChatML ends "... <|im_start|>assistant\n" + reply + "<|im_end|>\n": the last newline is
    # the template's, after the end-of-turn token, and carries no label.
    assert tokens[-4:] == ["b", "asket", "<|im_end|>", "Ċ"]
    assert tokenizer.convert_ids_to_tokens(_labelled(ids, labels)) == ["b", "asket", "<|im_end|>"]
    # Labels equal the ids where set, so the loss teaches exactly the rendered reply.
    n = len(ids)
    assert labels == [IGNORE_INDEX] * (n - 4) + [ids[n - 4], ids[n - 3], ids[n - 2], IGNORE_INDEX]


def test_the_prompt_tokens_are_the_generation_prompt_the_server_sends(tokenizer):
    sample = tomi_style_samples(1)[0]
    messages, _ = sample_messages(sample, task_for_sample(sample), EvalSettings(), rationale=None)
    ids, labels = encode_messages(messages, tokenizer)
    prompt = tokenizer.apply_chat_template(
        messages[:-1], tokenize=False, add_generation_prompt=True
    )
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    assert ids[: len(prompt_ids)] == prompt_ids
    assert labels[: len(prompt_ids)] == [IGNORE_INDEX] * len(prompt_ids)
    assert (
        tokenizer.decode(_labelled(ids, labels)) == f"{sample.answer.correct_answers[0]}<|im_end|>"
    )


def test_a_rationale_is_taught_before_the_answer(tokenizer):
    sample = tomi_style_samples(1)[0]  # sample 0 carries a rationale, open QA
    rationale = sample.meta["rationale"]
    messages, taught = sample_messages(
        sample, task_for_sample(sample), EvalSettings(), rationale=rationale
    )
    ids, labels = encode_messages(messages, tokenizer)
    assert taught is True
    assert tokenizer.decode(_labelled(ids, labels)) == (
        f"{rationale}\nAnswer: {sample.answer.correct_answers[0]}<|im_end|>"
    )


def test_choice_samples_are_taught_the_gold_letter(tokenizer):
    sample = tomi_style_samples(2)[1]  # odd: single choice
    messages, _ = sample_messages(sample, task_for_sample(sample), EvalSettings(), rationale=None)
    ids, labels = encode_messages(messages, tokenizer)
    assert messages[-1]["content"] in {"A", "B"}
    assert tokenizer.decode(_labelled(ids, labels)) == f"{messages[-1]['content']}<|im_end|>"


def test_completion_samples_get_no_rationale():
    sample = Sample(
        id="k-1",
        story="Sam opens the bag labelled chocolate. He believes it is full of",
        question="",
        answer=Answer(correct_answers=["chocolate"]),
        meta={"dataset": "kosinski", "rationale": "The label says chocolate."},
    )
    messages, taught = sample_messages(
        sample, task_for_sample(sample), EvalSettings(), rationale="The label says chocolate."
    )
    assert taught is False
    assert messages[-1] == {"role": "assistant", "content": "chocolate"}


def test_too_long_samples_are_dropped_and_counted(tokenizer):
    samples = tomi_style_samples(4)
    samples[2] = samples[2].model_copy(update={"story": samples[2].story + " Then" * 300})
    data = build_examples(
        samples, tokenizer, EvalSettings(), rationale=True, max_length=200, source=SOURCE
    )
    assert [e.sample_id for e in data.examples] == ["train-000", "train-001", "train-003"]
    assert data.too_long == ["train-002"]
    assert data.with_rationale == 2  # train-000 and train-003 have one; train-002 was dropped


def test_no_sample_within_max_length_is_a_data_error(tokenizer):
    with pytest.raises(DataError, match="every sample is longer than max_length=16"):
        build_examples(
            tomi_style_samples(2), tokenizer, EvalSettings(), rationale=False, max_length=16,
            source=SOURCE,
        )  # fmt: skip


def test_a_malformed_rationale_names_the_record_and_field(tokenizer):
    sample = tomi_style_samples(1)[0]
    bad = sample.model_copy(update={"meta": {**sample.meta, "rationale": {"step": 1}}})
    with pytest.raises(DataError, match=r"train.jsonl: record 1: meta.rationale: expected text"):
        build_examples(
            [bad], tokenizer, EvalSettings(), rationale=True, max_length=512, source=SOURCE
        )


def test_a_tokenizer_without_chat_template_is_a_config_error(tokenizer):
    import copy

    bare = copy.copy(tokenizer)
    bare.chat_template = None
    with pytest.raises(ConfigError, match="no chat template"):
        encode_messages(
            [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}], bare
        )


def test_the_data_order_is_fixed_by_the_seed():
    first = batch_order(10, batch_size=4, n_batches=5, seed=7)
    assert first == batch_order(10, batch_size=4, n_batches=5, seed=7)
    assert first != batch_order(10, batch_size=4, n_batches=5, seed=8)
    # Epoch 0 and epoch 1 are each a permutation, concatenated then cut into batches.
    stream = [i for batch in first for i in batch]
    assert sorted(stream[:10]) == list(range(10))
    assert sorted(stream[10:20]) == list(range(10))
    assert stream[:10] != stream[10:20]  # each epoch is shuffled anew


def test_a_shorter_run_sees_a_prefix_of_a_longer_runs_order():
    assert (
        batch_order(16, batch_size=4, n_batches=2, seed=0)
        == batch_order(16, batch_size=4, n_batches=8, seed=0)[:2]
    )


def test_steps_override_epochs():
    assert total_steps(16, TrainSettings(epochs=2, batch_size=4)) == 8
    assert total_steps(16, TrainSettings(epochs=1, batch_size=5, gradient_accumulation=2)) == 2
    assert total_steps(16, TrainSettings(steps=3, epochs=5)) == 3
    # Each of 2 processes takes its own micro-batch: an epoch is half the steps.
    assert total_steps(16, TrainSettings(epochs=2, batch_size=4), processes=2) == 4


def test_the_default_learning_rate_depends_on_lora():
    assert TrainSettings().effective_learning_rate() == 2e-5
    assert TrainSettings(lora={"enabled": True}).effective_learning_rate() == 2e-4
    assert TrainSettings(learning_rate=1e-3).effective_learning_rate() == 1e-3


def test_grpo_has_its_own_learning_rate():
    # GRPO's rate applies to GRPO runs only: sft-grpo's SFT stage keeps train's
    grpo_rate = {"learning_rate": 1e-3, "grpo": {"learning_rate": 1e-5}}
    assert TrainSettings(method="grpo", **grpo_rate).effective_learning_rate() == 1e-5
    assert TrainSettings(method="sft", **grpo_rate).effective_learning_rate() == 1e-3
    assert TrainSettings(method="sft-grpo", **grpo_rate).effective_learning_rate() == 1e-3


def test_a_misspelt_setting_is_rejected():
    with pytest.raises(ValueError, match="extra"):
        TrainSettings.model_validate({"batchsize": 4})


def test_a_curriculum_orders_each_epoch_by_stage_shuffled_within():
    stages = [2, 0, 1, 0, 2, 1, 0, 1, 2, 0]
    batches = batch_order(10, batch_size=5, n_batches=4, seed=3, stages=stages)
    stream = [i for batch in batches for i in batch]
    for epoch in (stream[:10], stream[10:]):
        assert sorted(epoch) == list(range(10))
        assert [stages[i] for i in epoch] == sorted(stages)  # lowest stage first
    plain = [i for b in batch_order(10, batch_size=5, n_batches=2, seed=3) for i in b]
    # Within a stage the seeded shuffle's order stands.
    assert [i for i in stream[:10] if stages[i] == 1] == [i for i in plain if stages[i] == 1]
    assert stream[:10] != stream[10:]
    with pytest.raises(ValueError, match="3 curriculum stages for 10"):
        batch_order(10, batch_size=5, n_batches=1, seed=3, stages=[0, 1, 2])


def test_curriculum_stages_read_the_belief_order():
    examples = [EncodedExample(name, [1, 2], [IGNORE_INDEX, 2]) for name in "abcd"]
    orders = {"a": 2, "b": None, "c": 1, "d": True}
    assert curriculum_stages(examples, orders, "orders") == [2, 0, 1, 0]
    assert curriculum_stages(examples, orders, "none") is None
    with pytest.raises(ValidationError, match="curriculum orders SFT"):
        TrainSettings(method="grpo", curriculum="orders", batch_size=8)
