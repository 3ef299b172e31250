import pytest
from pydantic import ValidationError

from tomflywheel.world.model import (
    CONTENTS,
    Claim,
    Enter,
    Look,
    Move,
    Place,
    QuestionSpec,
    Read,
    SetState,
    Story,
    StoryRecord,
)
from tomflywheel.world.verifiers import derive_answer


def test_an_llm_reply_converts_to_engine_events_and_answers():
    reply = {
        "events": [
            {"type": "enter", "agents": ["Sally", "Anne"], "room": "room"},
            {"type": "place", "obj": "ball", "container": "basket", "room": "room"},
            {"type": "exit", "agent": "Sally", "room": "room"},
            {"type": "move", "agent": "Anne", "obj": "ball", "container": "box"},
        ]
    }
    story = StoryRecord.model_validate(reply).to_story()
    assert story.events[1] == Place("ball", "basket", "room")
    spec = QuestionSpec("belief", "ball", chain=("Sally",))
    assert derive_answer(story.events, spec, "default") == "basket"


def test_an_engine_story_round_trips_through_the_schema():
    story = Story(
        (
            Enter(("Sam", "Kim"), "room"),
            SetState("bag", CONTENTS, "popcorn", "room"),
            Read("Sam", "bag", "chocolate"),
            Look("Sam", "bag", transparent=True),
            Claim("Kim", "bag", "popcorn", "Sam", CONTENTS),
            Move("Kim", "ball", "box", help="Sam"),
        ),
        agents=("Sam", "Kim"),
    )
    record = StoryRecord.from_story(story)
    assert StoryRecord.model_validate_json(record.model_dump_json()).to_story(story.agents) == story


def test_the_schema_rejects_unknown_event_types_and_fields():
    with pytest.raises(ValidationError):
        StoryRecord.model_validate({"events": [{"type": "teleport", "agent": "A"}]})
    with pytest.raises(ValidationError):
        StoryRecord.model_validate(
            {"events": [{"type": "exit", "agent": "A", "room": "r", "x": 1}]}
        )


def test_the_json_schema_describes_fields_for_the_model():
    schema = StoryRecord.model_json_schema()
    move = schema["$defs"]["MoveRecord"]["properties"]
    assert "hidden" in move["hide"]["description"]
