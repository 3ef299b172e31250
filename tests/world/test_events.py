import json

import pytest

from tomflywheel.world.model import (
    Claim,
    Enter,
    Exit,
    Move,
    Noise,
    Place,
    Story,
    event_from_dict,
    event_to_dict,
)


def test_an_event_round_trips_through_plain_json():
    event = Move("Ava", "apple", "red_box", help="Ben", hide="Cleo")
    data = event_to_dict(event)
    assert data == {
        "type": "move",
        "agent": "Ava",
        "obj": "apple",
        "container": "red_box",
        "help": "Ben",
        "hide": "Cleo",
    }
    assert event_from_dict(json.loads(json.dumps(data))) == event


def test_a_story_round_trips_exactly_and_keeps_its_line_numbers():
    story = Story(
        (Enter(("Ava", "Ben"), "den"), Place("apple", "red_box", "den"), Exit("Ben", "den")),
        (1, 3, 7),
    )
    data = json.loads(json.dumps(story.to_dict()))
    assert Story.from_dict(data) == story
    assert data["lines"] == [1, 3, 7]


def test_agents_come_in_order_of_first_appearance_and_noise_names_none():
    story = Story(
        (
            Noise("Zed hummed a tune.", "Zed"),
            Enter(("Ben",), "den"),
            Claim("Ava", "apple", "red_box", "Cleo"),
        )
    )
    assert story.agents == ("Ben", "Ava", "Cleo")


def test_objects_containers_and_rooms_are_listed_once_in_story_order():
    story = Story(
        (
            Enter(("Ava",), "den"),
            Place("apple", "red_box", "den"),
            Move("Ava", "apple", "blue_box"),
            Claim("Ava", "apple", "green_jar"),
            Move("Ava", "apple", "red_box"),
        )
    )
    assert story.objects() == ("apple",)
    assert story.containers() == ("red_box", "blue_box", "green_jar")
    assert story.rooms() == ("den",)


def test_unknown_event_types_and_fields_are_rejected():
    with pytest.raises(ValueError, match="unknown event type"):
        event_from_dict({"type": "teleport"})
    with pytest.raises(ValueError, match="unexpected field"):
        event_from_dict({"type": "exit", "agent": "Ava", "room": "den", "mood": "happy"})


def test_a_story_needs_one_line_per_event():
    with pytest.raises(ValueError, match="one line number per event"):
        Story((Enter(("Ava",), "den"),), (1, 2))
