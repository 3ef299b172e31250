"""The records every stage reads and writes: samples, answers, and their JSONL I/O."""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tomflywheel._io import JsonlAppender, read_jsonl

__all__ = [
    "Answer",
    "JsonlAppender",
    "Judgment",
    "MethodRef",
    "Prediction",
    "QAKind",
    "Sample",
    "Verdict",
    "read_samples",
]


class QAKind(StrEnum):
    """How a sample is answered, derived from its answer lists."""

    OPEN = "open"
    SINGLE_CHOICE = "single_choice"
    MULTI_CHOICE = "multi_choice"


class Answer(BaseModel):
    """Gold answers; no wrong answers means open QA, otherwise choice QA."""

    model_config = ConfigDict(extra="forbid")

    correct_answers: list[str] = Field(min_length=1)
    """Every acceptable answer (open QA) or every correct option (choice QA)."""
    wrong_answers: list[str] = Field(default_factory=list)
    """The wrong options of a choice question; empty for open QA."""

    @field_validator("correct_answers")
    @classmethod
    def _no_blank_gold(cls, value: list[str]) -> list[str]:
        if any(not answer.strip() for answer in value):
            raise ValueError("a correct answer is blank")
        return value


class Sample(BaseModel):
    """One normalized question about a story; grouping fields for metrics live in ``meta``."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    """Unique within its dataset, stable across imports (seeds and resumes key on it)."""
    story: str
    """The context the question is about."""
    question: str
    """The question (may be empty for sentence-completion tasks, whose prompt is the story)."""
    answer: Answer
    """Gold answers and, for choice QA, the wrong options."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Dataset, split, question type, order, condition, trace, lineage, ..."""

    @property
    def kind(self) -> QAKind:
        """Open, single-choice or multi-choice, derived from the answer lists."""
        if not self.answer.wrong_answers:
            return QAKind.OPEN
        if len(self.answer.correct_answers) == 1:
            return QAKind.SINGLE_CHOICE
        return QAKind.MULTI_CHOICE

    @property
    def options(self) -> list[str]:
        """Correct then wrong answers, unshuffled (the evaluation shuffles them by sample id)."""
        return [*self.answer.correct_answers, *self.answer.wrong_answers]


def read_samples(path: Path) -> Iterator[Sample]:
    """Yield the samples of a JSONL file.

    Raises:
        DataError: A line is malformed; the message names file:line:field.
    """
    return read_jsonl(Path(path), Sample)


class MethodRef(BaseModel):
    """A pluggable piece named with its arguments, so any record says what produced it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """Registry name (``rules``, ``hybrid``, ``logprob``, ...)."""
    args: dict[str, Any] = Field(default_factory=dict)
    """The factory's arguments."""


class Prediction(BaseModel):
    """What the model said about one sample in one trial (``prediction.jsonl``)."""

    model_config = ConfigDict(extra="forbid")

    sample_id: str
    """The sample asked about."""
    trial: int = 0
    """Trial index (0 when one trial)."""
    mode: str
    """``generate`` (a generated answer) or ``logprob`` (options scored, no generation)."""
    endpoint: str
    """``chat`` or ``completions``."""
    messages: list[dict[str, str]] | None = None
    """Chat messages sent (chat endpoint)."""
    prompt: str | None = None
    """Prompt text sent (completions endpoint, log-prob context)."""
    options: list[str] | None = None
    """Options in the order shown (after the seeded shuffle); ``None`` for open QA."""
    option_map: list[int] | None = None
    """For each shown option, its index in ``sample.options`` (correct answers first)."""
    gold_letters: list[str] | None = None
    """Letters of the correct options as shown."""
    temperature: float = 0.0
    """Sampling temperature."""
    seed: int | None = None
    """Sampling seed (trials)."""
    raw_output: str | None = None
    """The model's text, untouched."""
    option_logprobs: list[float] | None = None
    """Log-prob of each shown option as a continuation (log-prob mode)."""
    option_token_counts: list[int] | None = None
    """Number of tokens of each shown option (for per-token normalization)."""
    usage: dict[str, int] = Field(default_factory=dict)
    """Token counts reported by the server."""
    latency_s: float | None = None
    """Request wall time."""
    error: str | None = None
    """Why no output exists (the server refused the request); such a record is never judged."""


class Verdict(StrEnum):
    """The outcome of judging one prediction."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    UNJUDGED = "unjudged"
    """The judge failed (no valid verdict): counted and shown, never scored."""
    ERROR = "error"
    """The prediction itself failed (no output to judge)."""


class Judgment(BaseModel):
    """The verdict on one prediction (``judgment.jsonl``)."""

    model_config = ConfigDict(extra="forbid")

    sample_id: str
    """The sample judged."""
    trial: int = 0
    """Trial index."""
    verdict: Verdict
    """Correct, incorrect, unjudged or error."""
    method: MethodRef
    """The judging method and its arguments."""
    match_type: str | None = None
    """How rules matched (exact, normalized, contained, prefix, suffix, letter, option_text,
    first_token, logprob), or ``none``/``unparsable`` when nothing matched; ``judge`` when an LLM
    decided."""
    answer: str | None = None
    """The answer as parsed from the output (letters for choice QA)."""
    rules_verdict: Verdict | None = None
    """What the rules alone said, when an LLM judge also ran (for agreement)."""
    reason: str | None = None
    """The LLM judge's one-sentence reason."""
    failure: str | None = None
    """Why the judge gave no verdict (with ``unjudged``)."""
    raw_judge_output: str | None = None
    """The judge's last reply when it failed to validate."""
