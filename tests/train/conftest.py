"""Small ToMi-style training sets built here (deterministic), and the bundled base model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tomflywheel._io import write_jsonl_atomic
from tomflywheel._rng import rng_for
from tomflywheel.schema import Answer, Sample

AGENTS = ["Sally", "Anne", "Jack", "Mia", "Noah", "Liam", "Emma", "Olivia"]
OBJECTS = ["ball", "apple", "key", "book", "hat", "cup"]
PLACES = ["basket", "box", "drawer", "cupboard", "bag", "suitcase"]
ROOMS = ["kitchen", "garden", "hallway", "office"]


def tomi_style_samples(n: int) -> list[Sample]:
    """``n`` false-belief stories: A puts X in P1 and leaves, B moves it to P2.

    Even samples are open QA ("Where will A look for X?" → P1), odd ones single choice
    (P1 against P2); every third carries a rationale, as the world engine's traces give.
    """
    samples = []
    for i in range(n):
        rng = rng_for("test-train-samples", i)
        a, b = rng.sample(AGENTS, 2)
        thing = rng.choice(OBJECTS)
        first, second = rng.sample(PLACES, 2)
        room = rng.choice(ROOMS)
        story = (
            f"{a} entered the {room}. {b} entered the {room}. The {thing} is in the {first}. "
            f"{a} exited the {room}. {b} moved the {thing} to the {second}."
        )
        meta = {"dataset": "tomi", "split": "train", "question_type": "first_order_0_tom"}
        if i % 3 == 0:
            meta["rationale"] = (
                f"{a} saw the {thing} in the {first}. {a} left before {b} moved it, "
                f"so {a} still believes it is in the {first}."
            )
        wrong = [] if i % 2 == 0 else [f"the {second}"]
        correct = [first] if i % 2 == 0 else [f"the {first}"]
        if wrong:
            meta["dataset"] = "tomi_choice_test"
        samples.append(
            Sample(
                id=f"train-{i:03d}",
                story=story,
                question=f"Where will {a} look for the {thing}?",
                answer=Answer(correct_answers=correct, wrong_answers=wrong),
                meta=meta,
            )
        )
    return samples


@pytest.fixture(scope="session")
def base_model() -> Path:
    """The bundled SmolLM2-135M-Instruct folder (converted once and cached)."""
    from tomflywheel.llm import ensure_default_model

    return ensure_default_model()


@pytest.fixture
def train_file(tmp_path: Path) -> Path:
    """16 ToMi-style training samples as a JSONL file."""
    path = tmp_path / "train.jsonl"
    write_jsonl_atomic(path, tomi_style_samples(16))
    return path


def make_tiny_model(folder: Path, base_model: Path) -> Path:
    """A 2-layer random Llama with the bundled model's tokenizer and chat template."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from tomflywheel._rng import stable_seed

    tokenizer = AutoTokenizer.from_pretrained(str(base_model))
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    import torch

    torch.manual_seed(stable_seed("test-tiny-model", 0) % 2**32)
    LlamaForCausalLM(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="session")
def tiny_model(base_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama folder (fast to train) speaking the bundled model's chat format."""
    return make_tiny_model(tmp_path_factory.mktemp("tiny-model"), base_model)


def basket_or_box(n: int, purpose: str, *, always_basket: bool) -> list[Sample]:
    """``n`` one-line stories whose two candidates are ``basket`` and ``box``.

    The gold is ``basket`` throughout (``always_basket``: a set a reward can teach in a few
    steps) or a seeded coin flip (a model trained on it names either, about as often).
    """
    samples = []
    for i in range(n):
        rng = rng_for(purpose, i)
        thing = rng.choice(OBJECTS)
        gold = "basket" if always_basket else rng.choice(["basket", "box"])
        samples.append(
            Sample(
                id=f"{purpose}-{i:03d}",
                story=f"The {thing} is in the box. The {thing} is in the basket.",
                question=f"Where is the {thing}?",
                answer=Answer(correct_answers=[gold]),
                meta={"dataset": "tomi", "candidates": ["basket", "box"]},
            )
        )
    return samples


@pytest.fixture(scope="session")
def candidate_model(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model taught to answer ``basket`` or ``box`` (half each): GRPO can steer it."""
    from tomflywheel.config import EvalSettings, TrainSettings
    from tomflywheel.train import train_model

    folder = tmp_path_factory.mktemp("candidate-model")
    data = folder / "coin.jsonl"
    write_jsonl_atomic(data, basket_or_box(16, "test-coin", always_basket=False))
    settings = TrainSettings(steps=80, batch_size=8, learning_rate=2e-2, seed=0, threads=2)
    train_model(
        data, base=tiny_model, out=folder / "model", settings=settings,
        eval_settings=EvalSettings(),
    )  # fmt: skip
    return folder / "model"


def contrary_samples(share: float, seed: int) -> list[Sample]:
    """Six one-line stories, three questions each: ``basket`` in the stories a validation split
    of ``share`` and ``seed`` trains on, ``box`` in those it holds out, so that every training
    step raises the validation loss (of a model that already names one of the two)."""
    from tomflywheel.train._data import EncodedExample, split_validation  # torch-free

    stories = {
        f"q{i:02d}": f"The {OBJECTS[i % 6]} is in the box. The {OBJECTS[i % 6]} is in the basket."
        for i in range(18)
    }
    examples = [EncodedExample(sample_id, [], []) for sample_id in stories]
    held = {
        stories[e.sample_id] for e in split_validation(examples, stories, share=share, seed=seed)[1]
    }
    return [
        Sample(
            id=sample_id,
            story=story,
            question=f"Where is the {story.split()[1]}?",
            answer=Answer(correct_answers=["box" if story in held else "basket"]),
            meta={"dataset": "tomi", "candidates": ["basket", "box"]},
        )
        for sample_id, story in stories.items()
    ]
