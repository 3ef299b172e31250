import json

import pytest
from hypothesis import HealthCheck, given, settings

from tests.world.strategies import stories
from tomflywheel.errors import DataError
from tomflywheel.world.language import parse_question, parse_story, render_story
from tomflywheel.world.model import Claim, Enter, Exit, Move, Noise, Place, Stay

TOMI = """1 Aria entered the front_yard.
2 Aiden entered the front_yard.
3 The grapefruit is in the green_bucket.
4 Isla dislikes the hall
5 Aria moved the grapefruit to the blue_container.
6 Aiden exited the front_yard.
7 Noah entered the playroom."""


def test_tomi_sentences_become_events_with_their_line_numbers():
    story = parse_story(TOMI, "tomi")
    assert story.events == (
        Enter(("Aria",), "front_yard"),
        Enter(("Aiden",), "front_yard"),
        Place("grapefruit", "green_bucket", "front_yard"),
        Noise("Isla dislikes the hall", "Isla", ("hall",)),
        Move("Aria", "grapefruit", "blue_container"),
        Exit("Aiden", "front_yard"),
        Enter(("Noah",), "playroom"),
    )
    assert story.lines == (1, 2, 3, 4, 5, 6, 7)


def test_plain_sentences_joined_by_spaces_parse_too():
    # A ToMi distractor without its final period must not swallow the next sentence.
    text = "Aria entered the den. Isla dislikes the hall Aria exited the den."
    story = parse_story(text, "tomi")
    assert [event.type for event in story.events] == ["enter", "noise", "exit"]
    assert story.lines == (1, 2, 3)


def test_hitom_groups_stays_claims_and_its_instruction_line():
    text = (
        "Read the following story and answer the multiple-choice question.\n"
        "1 Ava, Ben and Cleo entered the den.\n"
        "2 The pear is in the blue_crate.\n"
        "3 Ava made no movements and stayed in the den for 1 minute.\n"
        "4 Ben publicly claimed that pear is in the green_box.\n"
        "5 Cleo privately told Ava that the pear is in the red_box.\n"
        "***\n"
    )
    story = parse_story(text, "hitom")
    assert story.events == (
        Enter(("Ava", "Ben", "Cleo"), "den"),
        Place("pear", "blue_crate", "den"),
        Stay("Ava", "den"),
        Claim("Ben", "pear", "green_box"),
        Claim("Cleo", "pear", "red_box", "Ava"),
    )


def test_tgtom_motives_parse_in_all_three_forms():
    text = (
        "1 A, B and C entered the den.\n2 The vase is in the red_box.\n"
        "3 A moved the vase to the blue_box to help B find it.\n"
        "4 B moved the vase to the red_box to hide it from C.\n"
        "5 C moved the vase to the blue_box to help A find it and to hide it from B."
    )
    moves = [e for e in parse_story(text, "tgtom").events if isinstance(e, Move)]
    assert [(m.help, m.hide) for m in moves] == [("B", None), (None, "C"), ("A", "B")]


def test_an_unparsable_sentence_is_a_data_error_naming_it_and_its_line():
    with pytest.raises(DataError) as info:
        parse_story("1 Ava entered the den.\n2 Ava juggled three torches.", "tomi", source="s.txt")
    assert "s.txt:2" in str(info.value)
    assert "Ava juggled three torches" in str(info.value)


@pytest.mark.parametrize(
    ("text", "kind", "chain"),
    [
        ("Where was the apple at the beginning?", "memory", ()),
        ("Where is the apple really?", "reality", ()),
        ("Where will Ava look for the apple?", "belief", ("Ava",)),
        ("Where does Ava think that Ben searches for the apple?", "belief", ("Ava", "Ben")),
        ("Where does Ava really think the apple is?", "belief", ("Ava",)),
        (
            "Where does Ava think Ben thinks Cleo thinks the apple is?",
            "belief",
            ("Ava", "Ben", "Cleo"),
        ),
    ],
)
def test_tomi_and_hitom_questions(text, kind, chain):
    spec = parse_question(text, "hitom", parse_story(TOMI, "tomi"))
    assert (spec.kind, spec.subject, spec.chain) == (kind, "apple", chain)


@settings(max_examples=150, suppress_health_check=list(HealthCheck), deadline=None)
@given(stories())
def test_render_then_parse_returns_the_same_events(story):
    for diversity in (0.0, 0.5, 1.0):
        text = render_story(story, key="property", diversity=diversity)
        assert parse_story(text, "tgtom") == story.__class__(story.events, story.lines)


def test_benchmark_wording_renders_tgtom_stories_byte_for_byte(benchmarks):
    rows = [json.loads(line) for line in (benchmarks / "tgtom/stories_v10.jsonl").open()]
    for row in rows:
        assert render_story(parse_story(row["story"], "tgtom")) == row["story"]


def test_benchmark_wording_renders_hitom_stories_byte_for_byte(benchmarks):
    records = json.loads((benchmarks / "hitom/Hi-ToM_data.json").read_text())["data"]
    for record in records[:600]:
        if record["prompting_type"] != "CoTP" or "***" in record["story"]:
            continue
        story = parse_story(record["story"], "hitom")
        assert render_story(story, style="hitom") == record["story"].strip()
