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
    "QAKind",
    "Sample",
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
