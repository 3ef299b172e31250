"""The temporal belief graph, and its agreement with the forward tracker on random stories."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.world.strategies import CONTAINERS, OBJECTS, chains, stories
from tomflywheel.world.model import (
    CONTENTS,
    LOCATION,
    Claim,
    Enter,
    Exit,
    Move,
    Place,
    QuestionSpec,
    Story,
)
from tomflywheel.world.physics import PROFILES
from tomflywheel.world.verifiers import BeliefEdge, answer_many, build_graph, track


def _story():
    return Story(
        (
            Enter(("A", "B", "C"), "den"),
            Place("vase", "red_box", "den"),
            Move("A", "vase", "blue_box", help="B", hide="C"),
            Exit("A", "den"),
            Exit("C", "den"),
            Exit("B", "den"),
            Claim("B", "vase", "green_box"),
        )
    )


def test_nodes_hold_each_agents_belief_after_every_step():
    graph = build_graph(_story(), "tgtom")
    assert graph.trajectory(("vase", LOCATION)) == [
        {"A": None, "B": None, "C": None},
        {"A": "red_box", "B": "red_box", "C": "red_box"},
        {"A": "blue_box", "B": "blue_box", "C": "red_box"},
        {"A": "green_box", "B": "blue_box", "C": "green_box"},
    ]


def test_edges_are_claims_trusted_or_not_and_motives():
    graph = build_graph(_story(), "tgtom")
    assert graph.edges == [
        BeliefEdge("A", "B", 3, "cooperative"),
        BeliefEdge("A", "C", 3, "deceptive"),
        BeliefEdge("B", "A", 7, "trusted"),
        BeliefEdge("B", "C", 7, "trusted"),
    ]


def test_a_chain_is_anchored_at_the_last_step_reaching_all_its_members():
    graph = build_graph(_story(), "tgtom")
    assert graph.belief(("A", "C"), ("vase", LOCATION)) == "green_box"  # both trust B
    # B's claim cannot anchor a chain holding B; both saw the move of line 3.
    assert graph.belief(("A", "B"), ("vase", LOCATION)) == "blue_box"
    assert graph.belief(("B", "C"), ("vase", LOCATION)) == "red_box"  # line 3 hid it from C


@settings(max_examples=250, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.data())
def test_the_two_verifiers_agree_on_random_stories_under_every_profile(data):
    story = data.draw(stories())
    asked = [data.draw(chains(story.agents)) for _ in range(5)]
    facts = [(obj, LOCATION) for obj in OBJECTS] + [(c, CONTENTS) for c in CONTAINERS]
    specs = [
        QuestionSpec("cause", "apple", chain=(story.agents[0],)),
        QuestionSpec("common_knowledge", "apple", group=story.agents[:3]),
        QuestionSpec("intent", "apple", chain=asked[0], actor=story.agents[0]),
        QuestionSpec("memory", "key"),
        QuestionSpec("reality", "key"),
    ]
    for profile in PROFILES.values():
        tracker = track(story, asked, profile)
        graph = build_graph(story, profile)
        for chain in asked:
            for fact in facts:
                assert tracker.belief(chain, fact) == graph.belief(chain, fact)
        assert answer_many(story, specs, profile) == answer_many(
            story, specs, profile, verifier="graph"
        )
