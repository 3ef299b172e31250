"""Deterministic option shuffling, seeded by sample id, with everything needed to undo it."""

from __future__ import annotations

import string
from dataclasses import dataclass

from tomflywheel._rng import rng_for
from tomflywheel.schema import QAKind, Sample

LETTERS = string.ascii_uppercase


@dataclass(frozen=True, slots=True)
class ShuffledOptions:
    """Options in the order shown to the model."""

    options: list[str]
    """Option texts as shown (A, B, C, ...)."""
    option_map: list[int]
    """For each shown option, its index in ``sample.options`` (correct answers come first)."""
    gold_letters: list[str]
    """Letters of the correct options as shown, in letter order."""

    @property
    def letters(self) -> list[str]:
        """The letters in use."""
        return list(LETTERS[: len(self.options)])


def shuffle_options(
    sample: Sample, *, purpose: str = "option-shuffle", key: str | None = None
) -> ShuffledOptions:
    """Shuffle a choice sample's options; the same (purpose, key) always gives the same order.

    Args:
        sample: The sample whose options (correct answers first) are shuffled.
        purpose: What the order is for; another purpose gives an independent order.
        key: What the order is seeded by (default: the sample id).

    Raises:
        ValueError: More options than letters (26).
    """
    options = sample.options
    if len(options) > len(LETTERS):
        raise ValueError(f"{sample.id}: {len(options)} options, at most {len(LETTERS)} supported")
    order = list(range(len(options)))
    rng_for(purpose, sample.id if key is None else key).shuffle(order)
    n_correct = len(sample.answer.correct_answers)
    gold = [LETTERS[position] for position, index in enumerate(order) if index < n_correct]
    return ShuffledOptions(
        options=[options[index] for index in order], option_map=order, gold_letters=gold
    )


def shown_options(sample: Sample, *, completion: bool) -> ShuffledOptions | None:
    """The options a generation prompt shows: none for open QA or a completion prompt."""
    return None if completion or sample.kind is QAKind.OPEN else shuffle_options(sample)


def format_options(options: list[str]) -> str:
    """``A. first`` / ``B. second`` lines."""
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(options))
