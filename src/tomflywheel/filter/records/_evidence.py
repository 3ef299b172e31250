"""What the LLM said about a candidate: the structured replies the LLM checks read.

The pydantic models here are sent to the model as JSON schemas (their field descriptions reach
it); :class:`Evidence` collects one candidate's replies, or the failure of each call as a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from tomflywheel.llm import StructureFailure
from tomflywheel.world import EventRecord


class RubricScore(BaseModel):
    """The rubric judge's view of one training item."""

    model_config = ConfigDict(extra="forbid")

    issues: list[Annotated[str, StringConstraints(max_length=160)]] = Field(
        max_length=5,
        description="Short descriptions of problems with the item (empty list if none).",
    )
    clarity: int = Field(
        ge=1, le=5, description="1-5: how clear and unambiguous the story and question are."
    )
    solvability: int = Field(
        ge=1, le=5, description="1-5: how surely the given answer follows from the story alone."
    )
    needs_tom: bool = Field(
        description="True if answering requires reasoning about what someone believes, knows, "
        "wants or intends."
    )


class QuestionRecord(BaseModel):
    """What a location question asks."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["memory", "reality", "belief"] = Field(
        description="memory: where the object was at the beginning; reality: where it is now; "
        "belief: where someone thinks it is."
    )
    subject: str = Field(description="The object asked about.")
    chain: list[str] = Field(
        default_factory=list,
        description="belief: who thinks, outermost first ('A thinks B thinks': [A, B]); "
        "empty for memory and reality.",
    )


class Extraction(BaseModel):
    """A story's events and its question, extracted back from prose."""

    model_config = ConfigDict(extra="forbid")

    events: list[EventRecord] = Field(
        max_length=200, description="Every event of the story, in story order."
    )
    question: QuestionRecord = Field(description="What the question asks.")


class Rewrite(BaseModel):
    """A repaired training item (the answer stays the same)."""

    model_config = ConfigDict(extra="forbid")

    story: str = Field(description="The rewritten story.")
    question: str = Field(description="The rewritten question.")


@dataclass(frozen=True, slots=True)
class SolveTrial:
    """One attempt of the judge model at a free-form sample."""

    trial: int
    answer: str | None
    """The answer as parsed (letters for choice QA, text for open QA); None when unreadable."""
    agrees: bool
    """Whether it matches the sample's label."""
    error: str | None = None
    """Why no answer came back (the server refused the request)."""


class Evidence:
    """One candidate version's LLM replies, by question name; ``None``: the call was not made.

    Args:
        replies: Each asked question's reply (or failure value, or tuple of trials).
    """

    __slots__ = ("_replies",)

    def __init__(self, **replies: Any) -> None:
        self._replies: Mapping[str, Any] = MappingProxyType(dict(replies))

    def get(self, question: str) -> Any:
        """The reply to a question, or None when it was not asked."""
        return self._replies.get(question)

    @property
    def rubric(self) -> RubricScore | StructureFailure | None:
        """The rubric judge's scores."""
        return self.get("rubric")  # type: ignore[no-any-return]

    @property
    def extraction(self) -> Extraction | StructureFailure | None:
        """The events and question extracted back from a naturalized story."""
        return self.get("extraction")  # type: ignore[no-any-return]

    @property
    def solves(self) -> tuple[SolveTrial, ...] | None:
        """The judge model's trials at a free-form sample."""
        return self.get("solves")  # type: ignore[no-any-return]
