"""The data model: events and stories, facts, counterfactual edits, question specs.

Also the pydantic event records an LLM fills when it extracts a story's events; they load on
first use (pydantic's models cost a tenth of a second to build, and the engine's walks never
need them).

May import: no other sub-package (the order is in ``world/_layers.py``).
"""

from typing import TYPE_CHECKING

from tomflywheel._lazy_exports import attach
from tomflywheel.world.model._edits import (
    DropMove,
    Edit,
    ReplaceClaim,
    SetExits,
    SetMotive,
    describe_edit,
    edit_from_dict,
    edit_to_dict,
)
from tomflywheel.world.model._events import (
    CONTENTS,
    LOCATION,
    Claim,
    Distract,
    Enter,
    Event,
    Exit,
    Fact,
    Look,
    Move,
    Noise,
    Place,
    Read,
    SetState,
    Stay,
    Story,
    Witness,
    event_from_dict,
    event_to_dict,
)
from tomflywheel.world.model._spec import (
    INTENT,
    Answer,
    QuestionSpec,
    intent_answer,
    intent_subject,
    intent_value,
)

if TYPE_CHECKING:
    from tomflywheel.world.model._records import EventRecord, StoryRecord

__getattr__, __dir__ = attach(__name__, {"_records": ("EventRecord", "StoryRecord")})

__all__ = [
    "CONTENTS",
    "INTENT",
    "LOCATION",
    "Answer",
    "Claim",
    "Distract",
    "DropMove",
    "Edit",
    "Enter",
    "Event",
    "EventRecord",
    "Exit",
    "Fact",
    "Look",
    "Move",
    "Noise",
    "Place",
    "QuestionSpec",
    "Read",
    "ReplaceClaim",
    "SetExits",
    "SetMotive",
    "SetState",
    "Stay",
    "Story",
    "StoryRecord",
    "Witness",
    "describe_edit",
    "edit_from_dict",
    "edit_to_dict",
    "event_from_dict",
    "event_to_dict",
    "intent_answer",
    "intent_subject",
    "intent_value",
]
