"""Counterfactual edits: applied to stories, and as shortcuts on percepts (must agree)."""

from dataclasses import replace

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.world.strategies import OBJECTS, chains, stories
from tomflywheel.world.model import (
    Claim,
    DropMove,
    Enter,
    Exit,
    Move,
    Place,
    QuestionSpec,
    ReplaceClaim,
    SetExits,
    SetMotive,
    Story,
    describe_edit,
    edit_from_dict,
    edit_to_dict,
)
from tomflywheel.world.physics import PROFILES
from tomflywheel.world.verifiers import Answerer


def _story():
    return Story(
        (
            Enter(("A", "B", "C"), "den"),
            Place("vase", "red_box", "den"),
            Move("A", "vase", "blue_box", help="B"),
            Exit("A", "den"),
            Move("B", "vase", "green_box", hide="C"),
            Exit("B", "den"),
            Exit("C", "den"),
            Claim("B", "vase", "red_box"),
        )
    )


def test_edits_keep_printed_line_numbers():
    story = _story()
    assert DropMove(3).apply(story).lines == (1, 2, 4, 5, 6, 7, 8)
    assert ReplaceClaim(8, "blue_box").apply(story).events[-1].value == "blue_box"
    flipped = SetMotive(5, "C", None).apply(story).events[4]
    assert (flipped.help, flipped.hide) == ("C", None)


def test_moved_exits_happen_before_the_event_of_their_line():
    story = SetExits((("C", 5), ("B", 7))).apply(_story())
    assert [(type(e).__name__, line) for e, line in zip(story.events, story.lines, strict=True)][
        3:
    ] == [
        ("Exit", 4),
        ("Exit", 5),
        ("Move", 5),
        ("Exit", 7),
        ("Claim", 8),
    ]


def test_edits_round_trip_as_json_and_read_as_words():
    for edit in (
        DropMove(3),
        ReplaceClaim(8, "x_box"),
        SetMotive(5, None, "A"),
        SetExits((("A", 6),)),
    ):
        assert edit_from_dict(edit_to_dict(edit)) == edit
    assert (
        describe_edit(SetMotive(5, "C", "A"))
        == "the move at line 5 was made to help C and to hide it from A"
    )


def _specs(story, chain):
    movers = {}
    for event in story.events:
        if isinstance(event, Move):
            movers[event.agent] = movers.get(event.agent, 0) + 1
    specs = [QuestionSpec("reality", obj) for obj in OBJECTS]
    specs += [QuestionSpec("memory", obj) for obj in OBJECTS]
    specs += [QuestionSpec("belief", obj, chain=chain) for obj in OBJECTS]
    specs += [QuestionSpec("belief", obj, chain=(a,)) for obj in OBJECTS for a in story.agents]
    specs += [QuestionSpec("cause", obj, chain=chain[:1]) for obj in OBJECTS]
    specs += [QuestionSpec("common_knowledge", obj, group=story.agents[:3]) for obj in OBJECTS]
    specs += [
        QuestionSpec("intent", "x", chain=chain, actor=a, occurrence=k)
        for a, count in movers.items()
        for k in range(count)
    ]
    return specs


@settings(max_examples=300, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.data())
def test_percept_shortcuts_match_walking_the_edited_story(data):
    story = data.draw(stories())
    lines = {
        "move": [
            line for e, line in zip(story.events, story.lines, strict=True) if isinstance(e, Move)
        ],
        "claim": [
            line for e, line in zip(story.events, story.lines, strict=True) if isinstance(e, Claim)
        ],
    }
    kind = data.draw(st.sampled_from(["drop", "claim", "motive", "exits"]))
    if kind == "exits":
        moved = data.draw(
            st.lists(st.sampled_from(story.agents), min_size=1, max_size=2, unique=True)
        )
        edit = SetExits(
            tuple((agent, data.draw(st.integers(1, len(story.events) + 1))) for agent in moved)
        )
    elif kind == "claim":
        assume(lines["claim"])
        edit = ReplaceClaim(data.draw(st.sampled_from(lines["claim"])), "old_trunk")
    else:
        assume(lines["move"])
        line = data.draw(st.sampled_from(lines["move"]))
        if kind == "drop":
            edit = DropMove(line)
        else:
            edit = SetMotive(line, data.draw(st.sampled_from(story.agents)), None)
    chain = data.draw(chains(story.agents, 3))
    specs = _specs(edit.apply(story), chain)
    for profile in PROFILES.values():
        shortcut = Answerer(story, profile).answer_both([replace(s, edit=edit) for s in specs])
        walked = Answerer(edit.apply(story), profile).answer_both(specs)
        assert shortcut == walked, (profile.name, edit)
