"""Belief tracking under the principled default and the benchmark profiles (small stories)."""

from tomflywheel.world.model import (
    CONTENTS,
    Claim,
    Distract,
    Enter,
    Exit,
    Look,
    Move,
    Place,
    Read,
    SetState,
    Story,
    Witness,
)
from tomflywheel.world.verifiers import track

APPLE = ("apple", "location")


def _sally_anne(*extra):
    return Story(
        (
            Enter(("Sally", "Anne"), "room"),
            Place("apple", "basket", "room"),
            Exit("Sally", "room"),
            Move("Anne", "apple", "box"),
            *extra,
        )
    )


def test_an_absent_agent_keeps_the_old_location_and_the_mover_knows_it():
    result = track(_sally_anne(), [("Sally",), ("Anne",), ("Anne", "Sally"), ("Sally", "Anne")])
    assert result.world.facts[APPLE] == "box"
    assert result.world.first[APPLE] == "basket"
    assert result.belief(("Sally",), APPLE) == "basket"
    assert result.belief(("Anne",), APPLE) == "box"
    assert result.belief(("Anne", "Sally"), APPLE) == "basket"
    assert result.belief(("Sally", "Anne"), APPLE) == "basket"


def test_entering_shows_where_things_are_to_the_entrant_and_to_those_present():
    story = _sally_anne(Enter(("Sally",), "room"))
    result = track(story, [("Sally",), ("Anne", "Sally"), ("Sally", "Anne")])
    assert result.belief(("Sally",), APPLE) == "box"
    assert result.belief(("Anne", "Sally"), APPLE) == "box"
    # Sally sees Anne in the room, so she thinks Anne knows too.
    assert result.belief(("Sally", "Anne"), APPLE) == "box"


def test_entering_another_room_shows_nothing():
    result = track(_sally_anne(Enter(("Sally",), "hall")), [("Sally",)])
    assert result.belief(("Sally",), APPLE) == "basket"


def test_the_hide_target_does_not_see_and_everyone_knows_it():
    story = Story(
        (
            Enter(("A", "B", "C"), "room"),
            Place("apple", "basket", "room"),
            Move("A", "apple", "box", help="B", hide="C"),
        )
    )
    result = track(story, [("C",), ("B",), ("B", "C"), ("C", "B")])
    assert result.belief(("C",), APPLE) == "basket"
    assert result.belief(("B",), APPLE) == "box"
    assert result.belief(("B", "C"), APPLE) == "basket"
    assert result.belief(("C", "B"), APPLE) == "basket"


def test_a_secret_witness_sees_but_nobody_models_it():
    story = _sally_anne()
    events = list(story.events)
    events.insert(3, Witness("Sally"))  # Sally watches the move from outside
    result = track(Story(tuple(events)), [("Sally",), ("Anne", "Sally"), ("Sally", "Anne")])
    assert result.belief(("Sally",), APPLE) == "box"
    assert result.belief(("Anne", "Sally"), APPLE) == "basket"
    # Sally saw Anne make the move, so she models Anne knowing it.
    assert result.belief(("Sally", "Anne"), APPLE) == "box"


def test_a_distracted_agent_misses_the_move_but_is_thought_to_have_seen_it():
    story = Story(
        (
            Enter(("A", "B"), "room"),
            Place("apple", "basket", "room"),
            Distract("B"),
            Move("A", "apple", "box"),
        )
    )
    result = track(story, [("B",), ("A", "B")])
    assert result.belief(("B",), APPLE) == "basket"
    assert result.belief(("A", "B"), APPLE) == "box"


def test_a_listener_trusts_a_speaker_who_stayed_longer_and_never_the_reverse():
    story = Story(
        (
            Enter(("A", "B", "C"), "room"),
            Place("apple", "basket", "room"),
            Exit("A", "room"),
            Exit("B", "room"),
            Exit("C", "room"),
            Claim("B", "apple", "box"),  # public: A trusts B (B left later), C does not
        )
    )
    result = track(story, [("A",), ("B",), ("C",), ("A", "C"), ("C", "A"), ("A", "B")])
    assert result.belief(("A",), APPLE) == "box"
    assert result.belief(("B",), APPLE) == "basket"  # one's own claim changes nothing
    assert result.belief(("C",), APPLE) == "basket"
    assert result.belief(("A", "C"), APPLE) == "basket"  # C does not trust B
    assert result.belief(("A", "B"), APPLE) == "basket"  # a claim never anchors its speaker


def test_a_label_is_believed_only_without_first_hand_knowledge():
    def story(*middle):
        return Story(
            (
                SetState("bag", CONTENTS, "popcorn", "room"),
                Enter(("Sam",), "room"),
                *middle,
                Read("Sam", "bag", "chocolate"),
            )
        )

    fact = ("bag", CONTENTS)
    assert track(story(), [("Sam",)]).belief(("Sam",), fact) == "chocolate"
    opened = story(Look("Sam", "bag"))
    assert track(opened, [("Sam",)]).belief(("Sam",), fact) == "popcorn"


def test_a_friend_told_after_the_label_wins_without_first_hand_knowledge():
    story = Story(
        (
            SetState("bag", CONTENTS, "popcorn", "room"),
            Enter(("Sam",), "room"),
            Read("Sam", "bag", "chocolate"),
            Claim("Kim", "bag", "popcorn", "Sam", CONTENTS),
        )
    )
    assert track(story, [("Sam",)]).belief(("Sam",), ("bag", CONTENTS)) == "popcorn"


def test_tgtom_profile_lets_a_mover_who_already_left_miss_its_own_move():
    story = Story(
        (
            Enter(("A", "B"), "room"),
            Place("apple", "basket", "room"),
            Exit("A", "room"),
            Move("A", "apple", "box"),  # possible only after a counterfactual edit
        )
    )
    assert track(story, [("A",)], "default").belief(("A",), APPLE) == "box"
    assert track(story, [("A",)], "tgtom").belief(("A",), APPLE) == "basket"


def test_hitom_profile_speaker_and_believers_model_each_other_but_not_deeper():
    story = Story(
        (
            Enter(("A", "B", "C"), "room"),
            Place("apple", "basket", "room"),
            Exit("A", "room"),
            Exit("B", "room"),
            Exit("C", "room"),
            Claim("B", "apple", "box"),
        )
    )
    chains = [("B", "A"), ("A", "B"), ("C", "A"), ("B", "C"), ("A", "B", "C")]
    default = track(story, chains, "default")
    hitom = track(story, chains, "hitom")
    assert [default.belief(c, APPLE) for c in chains] == ["basket"] * 5
    assert [hitom.belief(c, APPLE) for c in chains] == [
        "box",  # the speaker thinks its listeners believe it
        "box",  # a believer thinks the speaker believes it
        "basket",  # listeners do not model who believes
        "box",
        "basket",  # third order never changes through claims
    ]


def test_tomi_profile_syncs_the_pair_when_a_third_agent_enters_the_room():
    story = _sally_anne(Enter(("Carl",), "room"))
    chains = [("Anne", "Sally"), ("Sally", "Anne"), ("Sally",)]
    assert track(story, chains, "default").belief(("Anne", "Sally"), APPLE) == "basket"
    tomi = track(story, chains, "tomi")
    assert tomi.belief(("Anne", "Sally"), APPLE) == "box"
    assert tomi.belief(("Sally", "Anne"), APPLE) == "box"
    assert tomi.belief(("Sally",), APPLE) == "basket"  # first order stays principled
