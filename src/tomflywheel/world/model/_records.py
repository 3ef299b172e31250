"""A JSON event schema an LLM can fill (pydantic, at the boundary) and its conversion to events.

The filter stage asks a model to extract the events back from a fluent rewrite of a story; the
schema's field descriptions reach the model through the JSON schema. ``StoryRecord.to_story``
turns a reply into engine events, ``StoryRecord.from_story`` goes the other way.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from tomflywheel.world.model._events import (
    CONTENTS,
    LOCATION,
    Event,
    Look,
    Noise,
    Read,
    Story,
    event_from_dict,
    event_to_dict,
)

_STRICT = ConfigDict(extra="forbid")


class EnterRecord(BaseModel):
    """Agents enter a room."""

    model_config = _STRICT
    type: Literal["enter"]
    agents: list[str] = Field(description="Names of the agents who enter together.")
    room: str = Field(description="The room they enter.")


class ExitRecord(BaseModel):
    """An agent leaves a room."""

    model_config = _STRICT
    type: Literal["exit"]
    agent: str = Field(description="Who leaves.")
    room: str = Field(description="The room left.")


class PlaceRecord(BaseModel):
    """An object is (or is put) in a container."""

    model_config = _STRICT
    type: Literal["place"]
    obj: str = Field(description="The object.")
    container: str = Field(description="The container holding it.")
    room: str = Field(description="The room the container is in.")
    agent: str | None = Field(default=None, description="Who put it there, if the story says.")


class MoveRecord(BaseModel):
    """An agent moves an object to another container."""

    model_config = _STRICT
    type: Literal["move"]
    agent: str = Field(description="Who moves it.")
    obj: str = Field(description="The object moved.")
    container: str = Field(description="The container it is moved to.")
    help: str | None = Field(default=None, description="Whom the move is meant to help find it.")
    hide: str | None = Field(default=None, description="From whom the object is hidden.")


class StayRecord(BaseModel):
    """An agent stays in a room doing nothing."""

    model_config = _STRICT
    type: Literal["stay"]
    agent: str = Field(description="Who stays.")
    room: str = Field(description="Where.")


class ClaimRecord(BaseModel):
    """Someone says where something is (public to all, or private to one listener)."""

    model_config = _STRICT
    type: Literal["claim"]
    speaker: str = Field(description="Who speaks.")
    subject: str = Field(description="The object (or container, for its contents).")
    value: str = Field(description="The container claimed (or the contents claimed).")
    listener: str | None = Field(
        default=None, description="The one listener of a private tell; null for a public claim."
    )
    attribute: Literal["location", "contents"] = Field(
        default="location", description="location: where the object is; contents: what is inside."
    )


class WitnessRecord(BaseModel):
    """An agent secretly watches the next action."""

    model_config = _STRICT
    type: Literal["witness"]
    agent: str = Field(description="Who watches unseen.")


class DistractRecord(BaseModel):
    """A present agent misses the next action."""

    model_config = _STRICT
    type: Literal["distract"]
    agent: str = Field(description="Who is distracted.")


class StateRecord(BaseModel):
    """What a container holds is stated or changed ("the bag is full of popcorn")."""

    model_config = _STRICT
    type: Literal["state"]
    subject: str = Field(description="The container.")
    value: str = Field(description="What it holds.")
    room: str = Field(description="The room it is in.")
    agent: str | None = Field(default=None, description="Who filled it, if the story says.")
    attribute: Literal["contents"] = "contents"


class LookRecord(BaseModel):
    """An agent looks inside a container (opens it or sees through it)."""

    model_config = _STRICT
    type: Literal["look"]
    agent: str = Field(description="Who looks.")
    subject: str = Field(description="The container.")
    transparent: bool = Field(default=False, description="True if it sees through the container.")


class ReadRecord(BaseModel):
    """An agent reads a label saying what a container holds."""

    model_config = _STRICT
    type: Literal["read"]
    agent: str = Field(description="Who reads.")
    subject: str = Field(description="The labelled container.")
    value: str = Field(description="What the label says it holds.")


class NoiseRecord(BaseModel):
    """A sentence that changes nothing (a distractor)."""

    model_config = _STRICT
    type: Literal["noise"]
    text: str = Field(description="The sentence.")


EventRecord = Annotated[
    EnterRecord
    | ExitRecord
    | PlaceRecord
    | MoveRecord
    | StayRecord
    | ClaimRecord
    | WitnessRecord
    | DistractRecord
    | StateRecord
    | LookRecord
    | ReadRecord
    | NoiseRecord,
    Field(discriminator="type"),
]
"""One extracted event, tagged by ``type``."""


class StoryRecord(BaseModel):
    """The events of a story, in order, as an LLM extracts them."""

    model_config = _STRICT
    events: list[EventRecord] = Field(description="Every event of the story, in story order.")

    def to_story(self, agents: tuple[str, ...] = ()) -> Story:
        """The engine story (lines numbered 1, 2, ...)."""
        events: list[Event] = []
        for record in self.events:
            data = record.model_dump()
            if record.type == "state":
                data["attribute"] = CONTENTS
            if record.type == "read":
                data["attribute"] = CONTENTS
            if record.type == "claim" and data.get("attribute") is None:
                data["attribute"] = LOCATION
            events.append(event_from_dict(data))
        return Story(tuple(events), agents=agents)

    @classmethod
    def from_story(cls, story: Story) -> StoryRecord:
        """The record of an engine story (noise keeps only its text)."""
        items = []
        for event in story.events:
            data = event_to_dict(event)
            if isinstance(event, Noise):
                data = {"type": "noise", "text": event.text}
            if isinstance(event, Look):
                data.pop("attribute", None)
            if isinstance(event, Read):
                data.pop("attribute", None)
            items.append(data)
        return cls.model_validate({"events": items})
