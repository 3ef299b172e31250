from tomflywheel.world.model import Enter, Exit, Move, Noise, Place, QuestionSpec, Story
from tomflywheel.world.samples import (
    answer_explanations,
    classify_answer,
    explain_answers,
    make_trace,
    rationale,
)


def _story():
    return Story(
        (
            Enter(("Sally", "Anne"), "room"),
            Place("ball", "basket", "room"),
            Noise("Anne likes the green_drawer", "Anne", ("green_drawer",)),
            Exit("Sally", "room"),
            Move("Anne", "ball", "box"),
        )
    )


def test_every_plausible_answer_is_mapped_to_what_it_corresponds_to():
    spec = QuestionSpec("belief", "ball", chain=("Anne", "Sally"))
    found = answer_explanations(_story(), spec)
    assert found["box"] == [
        "true current location (reality)",
        "Anne's belief (order 1)",
    ]
    assert found["basket"][:4] == [
        "first location (memory)",
        "Sally's belief (order 1)",
        "Sally thinks Anne believes (order 2)",
        "Anne thinks Sally believes (order 2)",
    ]
    assert found["green_drawer"] == ["named only in a distractor sentence"]
    assert found["room"] == ["mentioned in the story (room)"]
    assert found["Sally"] == ["mentioned in the story (agent)"]


def test_reasons_carry_their_chain_and_line():
    spec = QuestionSpec("belief", "ball", chain=("Sally",))
    reasons = explain_answers(_story(), spec)
    belief = [r for r in reasons["basket"] if r.kind == "belief"]
    assert [r.chain for r in belief] == [("Sally",)]
    assert [r.line for r in reasons["green_drawer"]] == [3]


def test_wrong_answers_are_classified():
    spec = QuestionSpec("belief", "ball", chain=("Sally",))
    story = _story()
    assert classify_answer(story, spec, "basket") == "correct"
    assert classify_answer(story, spec, "box") == "reality_bias"
    assert classify_answer(story, spec, "green_drawer") == "distractor"
    assert classify_answer(story, spec, "room") == "other_entity"
    assert classify_answer(story, spec, "fridge") == "hallucination"
    deep = QuestionSpec("belief", "ball", chain=("Anne", "Sally"))
    assert classify_answer(story, deep, "basket") == "correct"
    first = QuestionSpec("belief", "ball", chain=("Anne",))
    assert classify_answer(story, first, "basket", gold="box") == "stale_memory"


def test_a_rationale_says_who_saw_what_and_why_the_answer_follows():
    spec = QuestionSpec("belief", "ball", chain=("Anne", "Sally"))
    trace = make_trace(
        generator="test",
        version="1",
        seed=0,
        story_index=0,
        story=_story(),
        spec=spec,
        answer="basket",
    )
    assert rationale(trace).splitlines() == [
        "Line 2: The ball is in the basket. Seen by Sally and Anne.",
        "Line 5: Anne moved the ball to the box. Seen by Anne; not seen by Sally.",
        "For Anne thinks Sally: the last event that Anne witnessed while seeing Sally witness it "
        "too (or that all of them heard and trust) is line 2, so the answer is basket.",
    ]
