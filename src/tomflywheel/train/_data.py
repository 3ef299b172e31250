"""Training samples to token ids and labels (loss on the reply only), and their seeded order."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tomflywheel._rng import rng_for
from tomflywheel.asking import taught_rationale, training_messages
from tomflywheel.audit import story_key
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.datasets import TaskSpec, task_for_sample
from tomflywheel.errors import ConfigError, DataError
from tomflywheel.schema import Sample

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

logger = logging.getLogger(__name__)

IGNORE_INDEX = -100
"""Label of a token that carries no loss (prompt, template, padding)."""


@dataclass(frozen=True, slots=True)
class EncodedExample:
    """One sample as the model sees it in training."""

    sample_id: str
    """The sample it came from."""
    input_ids: list[int]
    """The whole conversation, rendered with the base model's chat template."""
    labels: list[int]
    """``input_ids`` on the reply and its end-of-turn token; ``IGNORE_INDEX`` elsewhere."""

    @property
    def target_tokens(self) -> int:
        """How many tokens carry loss."""
        return sum(label != IGNORE_INDEX for label in self.labels)


@dataclass(frozen=True, slots=True)
class TrainData:
    """The encoded training set and what was left out of it."""

    examples: list[EncodedExample]
    """Samples that fit ``max_length``, in file order."""
    too_long: list[str]
    """Ids of the samples dropped for being longer than ``max_length`` tokens."""
    with_rationale: int
    """How many examples are taught a rationale before the answer."""


def sample_rationale(sample: Sample, *, source: Path, index: int) -> str | None:
    """The sample's ``meta.rationale`` as text (a list of steps is joined by newlines), or None.

    Raises:
        DataError: ``meta.rationale`` is neither text nor a list of texts.
    """
    value = sample.meta.get("rationale")
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(step, str) for step in value):
        value = "\n".join(step.strip() for step in value)
    if not isinstance(value, str):
        raise DataError(
            source, index, "meta.rationale", "expected text or a list of texts", unit="record"
        )
    return value.strip() or None


def sample_messages(
    sample: Sample, task: TaskSpec, settings: EvalSettings, *, rationale: str | None
) -> tuple[list[dict[str, str]], bool]:
    """The chat messages teaching one sample, prompted exactly as the evaluation prompts it.

    Returns:
        The messages (system, user, assistant) and whether the reply teaches the rationale
        (completion tasks never do: see ``taught_rationale``).
    """
    messages = training_messages(sample, settings, task=task, rationale=rationale)
    return messages, taught_rationale(task, rationale) is not None


def encode_messages(
    messages: Sequence[dict[str, str]], tokenizer: PreTrainedTokenizerBase
) -> tuple[list[int], list[int]]:
    """Token ids of a conversation and labels that are set on the last (assistant) reply only.

    The reply's tokens and the template's tokens after it up to and including the first special
    token (the end-of-turn, e.g. ChatML's ``<|im_end|>``) carry labels, so the model learns to
    stop; whatever the template puts after that (a newline) does not. A template that closes
    the turn without a special token has all of its tail labelled.

    Raises:
        ConfigError: The tokenizer has no chat template, or its template rewrites the reply or
            does not keep the prompt as a prefix of the whole conversation.
    """
    if not getattr(tokenizer, "chat_template", None):
        raise ConfigError("the base model's tokenizer has no chat template")
    if not messages or messages[-1]["role"] != "assistant":
        raise ValueError("the last message must be the assistant's reply")
    reply = messages[-1]["content"]
    prompt_text = str(
        tokenizer.apply_chat_template(
            list(messages[:-1]), tokenize=False, add_generation_prompt=True
        )
    )
    full_text = str(tokenizer.apply_chat_template(list(messages), tokenize=False))
    start = full_text.find(reply, len(prompt_text))
    if not full_text.startswith(prompt_text) or start < 0:
        raise ConfigError(
            "the base model's chat template does not render prompt + reply as the prompt followed "
            "by the reply; cannot tell which tokens to train on"
        )
    end = start + len(reply)
    encoded = tokenizer(full_text, add_special_tokens=False, return_offsets_mapping=True)
    input_ids: list[int] = list(encoded["input_ids"])
    special = set(tokenizer.all_special_ids) | {
        token_id for token_id, token in tokenizer.added_tokens_decoder.items() if token.special
    }
    labels = [IGNORE_INDEX] * len(input_ids)
    closed = False
    for position, (token_start, token_end) in enumerate(encoded["offset_mapping"]):
        if token_end <= start or closed:
            continue
        labels[position] = input_ids[position]
        if token_start >= end and input_ids[position] in special:
            closed = True  # the end-of-turn token: learn it, then nothing after it
    return input_ids, labels


def build_examples(
    samples: Sequence[Sample],
    tokenizer: PreTrainedTokenizerBase,
    settings: EvalSettings,
    *,
    rationale: bool,
    max_length: int,
    source: Path,
) -> TrainData:
    """Encode every sample; those longer than ``max_length`` tokens are dropped and listed.

    Args:
        samples: Training samples, in file order.
        tokenizer: The base model's tokenizer (with its chat template).
        settings: Evaluation settings: the system prompt and templates the prompts use.
        rationale: Teach ``meta.rationale`` before the answer where a sample has one.
        max_length: Longest tokenized sample kept.
        source: The data file, named in errors.

    Raises:
        DataError: No sample at all, none that fits ``max_length``, or a malformed rationale.
        ConfigError: The chat template cannot be trained on (see ``encode_messages``).
    """
    if not samples:
        raise DataError(source, None, None, "no training samples")
    examples: list[EncodedExample] = []
    too_long: list[str] = []
    with_rationale = 0
    for index, sample in enumerate(samples, start=1):
        text = sample_rationale(sample, source=source, index=index) if rationale else None
        messages, taught = sample_messages(
            sample, task_for_sample(sample), settings, rationale=text
        )
        input_ids, labels = encode_messages(messages, tokenizer)
        if len(input_ids) > max_length:
            too_long.append(sample.id)
            continue
        examples.append(EncodedExample(sample.id, input_ids, labels))
        with_rationale += int(taught)
    if too_long:
        logger.warning("%d sample(s) longer than %d tokens dropped", len(too_long), max_length)
    if not examples:
        raise DataError(
            source, None, None, f"every sample is longer than max_length={max_length} tokens"
        )
    return TrainData(examples=examples, too_long=too_long, with_rationale=with_rationale)


def batch_order(
    n_examples: int,
    *,
    batch_size: int,
    n_batches: int,
    seed: int,
    stages: Sequence[int] | None = None,
    groups: Sequence[int] | None = None,
) -> list[list[int]]:
    """Example indices of each micro-batch: epochs shuffled by seed, one after another.

    Epoch ``e`` is a permutation drawn from ``rng_for("train-order", f"{seed}:{e}")``; the
    epochs are concatenated and cut into consecutive batches, so a batch may span two epochs.
    With ``stages`` (a curriculum: one stage per example) each epoch lists the lowest stage's
    examples first, in the permutation's order within a stage. With ``groups`` (one group per
    example, e.g. its story) the permutation is of the groups, and a group's examples follow
    one another in file order, so they share micro-batches.

    Args:
        n_examples: How many examples there are.
        batch_size: Examples per micro-batch.
        n_batches: How many micro-batches to return.
        seed: The run's seed.
        stages: Each example's curriculum stage; ``None``: no curriculum.
        groups: Each example's group; ``None``: examples are shuffled one by one.
    """
    if n_examples < 1:
        raise ValueError("no examples to order")
    if stages is not None and len(stages) != n_examples:
        raise ValueError(f"{len(stages)} curriculum stages for {n_examples} examples")
    if groups is not None and len(groups) != n_examples:
        raise ValueError(f"{len(groups)} groups for {n_examples} examples")
    if stages is not None and groups is not None:
        raise ValueError("a curriculum orders examples one by one: it cannot keep groups together")
    members = _members(groups) if groups is not None else [[i] for i in range(n_examples)]
    needed = n_batches * batch_size
    stream: list[int] = []
    epoch = 0
    while len(stream) < needed:
        order = list(range(len(members)))
        rng_for("train-order", f"{seed}:{epoch}").shuffle(order)
        if stages is not None:
            order.sort(key=stages.__getitem__)  # stable: shuffled within a stage
        stream.extend(index for unit in order for index in members[unit])
        epoch += 1
    return [stream[i * batch_size : (i + 1) * batch_size] for i in range(n_batches)]


def _members(groups: Sequence[int]) -> list[list[int]]:
    """Example indices of each group, groups in order of first appearance."""
    found: dict[int, list[int]] = {}
    for index, group in enumerate(groups):
        found.setdefault(group, []).append(index)
    return list(found.values())


def unit_keys(samples: Sequence[Sample], group_by: str) -> dict[str, str]:
    """Each sample's unit under ``group_by``, by sample id.

    ``family``: its story's family (:func:`tomflywheel.audit.story_key`: ``meta.story_id``,
    which a story and its true-belief twin share); otherwise (``story``, ``none``) its story
    text, the question where there is no story.
    """
    if group_by == "family":
        return {s.id: story_key(s) for s in samples}
    return {s.id: s.story.strip() or s.question for s in samples}


def example_groups(examples: Sequence[EncodedExample], keys: Mapping[str, str]) -> list[int]:
    """Each example's group number: examples of one key share one (numbered as they come)."""
    numbers: dict[str, int] = {}
    return [numbers.setdefault(keys[e.sample_id], len(numbers)) for e in examples]


def curriculum_stages(
    examples: Sequence[EncodedExample], orders: Mapping[str, object], curriculum: str
) -> list[int] | None:
    """Each example's stage under ``curriculum`` (``orders``: its sample's belief order).

    ``orders`` maps a sample id to its ``meta.order``; a missing or non-integer order is 0
    (a world question). ``none``: no stages.
    """
    if curriculum == "none":
        return None
    stages = []
    for example in examples:
        order = orders.get(example.sample_id)
        stages.append(order if isinstance(order, int) and not isinstance(order, bool) else 0)
    return stages


def split_validation(
    examples: Sequence[EncodedExample], stories: Mapping[str, str], *, share: float, seed: int
) -> tuple[list[EncodedExample], list[EncodedExample]]:
    """(training, validation) examples, the validation ones telling ``share`` of the stories.

    Whole stories go to one side (a story's other questions would leak its answer), drawn by a
    shuffle seeded from ``seed``; at least one story goes to each side when ``share`` > 0 and
    there are two. ``stories`` maps a sample id to its story text. File order is kept.
    """
    if not share:
        return list(examples), []
    distinct = sorted({stories[example.sample_id] for example in examples})
    rng_for("train-validation", seed).shuffle(distinct)
    count = min(max(1, round(share * len(distinct))), len(distinct) - 1)
    held = set(distinct[:count])
    training = [e for e in examples if stories[e.sample_id] not in held]
    validation = [e for e in examples if stories[e.sample_id] in held]
    return training, validation


def total_steps(n_examples: int, settings: TrainSettings, *, processes: int = 1) -> int:
    """Optimizer steps of a run: ``steps`` if set, else enough for ``epochs`` passes.

    Each step takes ``batch_size * gradient_accumulation`` examples on each of ``processes``.
    """
    if settings.steps is not None:
        return settings.steps
    per_step = settings.batch_size * settings.gradient_accumulation * processes
    return max(1, math.ceil(settings.epochs * n_examples / per_step))


@dataclass(frozen=True, slots=True)
class PromptExample:
    """One sample as a GRPO prompt: the evaluation's messages, without a reply."""

    sample: Sample
    messages: list[dict[str, str]]
    """System and user messages, as the evaluation sends them."""


@dataclass(frozen=True, slots=True)
class PromptData:
    """GRPO's prompts and what was left out of them."""

    prompts: list[PromptExample]
    """Samples whose prompt leaves room for a reply within ``max_length``, in file order."""
    too_long: list[str]
    """Ids of the samples dropped for that."""


def build_prompts(
    samples: Sequence[Sample],
    tokenizer: PreTrainedTokenizerBase,
    settings: EvalSettings,
    *,
    max_prompt_tokens: int,
    source: Path,
) -> PromptData:
    """Each sample's evaluation prompt; those over ``max_prompt_tokens`` are dropped and listed.

    Raises:
        DataError: No sample at all, or none whose prompt fits.
        ConfigError: The tokenizer has no chat template.
    """
    if not samples:
        raise DataError(source, None, None, "no training samples")
    if not getattr(tokenizer, "chat_template", None):
        raise ConfigError("the base model's tokenizer has no chat template")
    prompts: list[PromptExample] = []
    too_long: list[str] = []
    for sample in samples:
        messages, _ = sample_messages(sample, task_for_sample(sample), settings, rationale=None)
        asked = messages[:-1]  # the evaluation's messages; the model writes the reply
        text = str(tokenizer.apply_chat_template(asked, tokenize=False, add_generation_prompt=True))
        length = len(tokenizer(text, add_special_tokens=False)["input_ids"])
        if length > max_prompt_tokens:
            too_long.append(sample.id)
            continue
        prompts.append(PromptExample(sample, asked))
    if too_long:
        logger.warning("%d prompt(s) over %d tokens dropped", len(too_long), max_prompt_tokens)
    if not prompts:
        raise DataError(
            source, None, None, f"every prompt is longer than {max_prompt_tokens} tokens"
        )
    return PromptData(prompts=prompts, too_long=too_long)
