"""The data model: events and stories, facts, counterfactual edits, question specs.

Also the pydantic event records an LLM fills when it extracts a story's events.

May import: no other sub-package (the order is in ``world/_layers.py``).
"""

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
from tomflywheel.world.model._records import EventRecord, StoryRecord
from tomflywheel.world.model._spec import (
    INTENT,
    Answer,
    QuestionSpec,
    intent_answer,
    intent_subject,
    intent_value,
)

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
