"""Closed answer sets: one named answer decides, several are ambiguous, none is wrong."""

import asyncio

import pytest

from tomflywheel.asking import JUDGES, JudgeContext, named_letters
from tomflywheel.schema import Answer, Prediction, Sample, Verdict


def _judge(sample, prediction, **args):
    return asyncio.run(JUDGES.get("rules")(JudgeContext(), **args)(sample, prediction))


def _tomi(output):
    """A real ToMi-shaped item: gold with its spelling variant, the story's two containers."""
    sample = Sample(
        id="tomi-1",
        story="The grapes is in the purple_container.\nJayden moved the grapes to the yellow_trunk",
        question="Where will Sophia look for the grapes?",
        answer=Answer(correct_answers=["yellow_trunk", "yellow trunk"]),
        meta={"candidates": ["purple_container", "yellow_trunk"]},
    )
    return sample, Prediction(
        sample_id="tomi-1", mode="generate", endpoint="chat", raw_output=output
    )


@pytest.mark.parametrize(
    ("output", "verdict", "match_type", "answer"),
    [
        # The outputs of the first paragraph (SmolLM2-135M on ToMi).
        ("The grapes is in the purple_container.", "incorrect", "candidate", "purple_container"),
        ("The potato was at the beginning of the story.", "incorrect", "no_candidate", None),
        ("The yellow trunk.", "correct", "candidate", "yellow_trunk"),
        (
            "It was in the purple_container, then in the yellow_trunk.",
            "ambiguous",
            "candidates",
            "purple_container, yellow_trunk",
        ),
        ("yellow", "correct", "candidate", "yellow_trunk"),  # cut short: fits one candidate
    ],
)
def test_an_open_answer_over_the_story_candidates_is_decided_by_the_one_named(
    output, verdict, match_type, answer
):
    judgment = _judge(*_tomi(output))
    assert (judgment.verdict.value, judgment.match_type) == (verdict, match_type)
    if answer is not None:
        assert judgment.answer == answer


def test_the_lenient_policy_takes_the_last_answer_named():
    output = "It was in the purple_container, then in the yellow_trunk."
    judgment = _judge(*_tomi(output), policy="lenient")
    assert (judgment.verdict, judgment.answer) == (Verdict.CORRECT, "yellow_trunk")
    assert judgment.method.args["policy"] == "lenient"


def _hitom(output):
    options = ["green_trunk", "red_box", "blue_bag", "blue_cabinet"]
    sample = Sample(
        id="h",
        story="s",
        question="Where does Ella think the apple is?",
        answer=Answer(
            correct_answers=["blue_cabinet"], wrong_answers=["green_trunk", "red_box", "blue_bag"]
        ),
    )
    prediction = Prediction(
        sample_id="h",
        mode="generate",
        endpoint="chat",
        raw_output=output,
        options=options,
        option_map=[1, 2, 3, 0],
        gold_letters=["D"],
    )
    return sample, prediction


def test_a_reply_naming_two_letters_is_ambiguous_not_its_first_letter():
    # A real Hi-ToM reply of SmolLM2: read as "A" before issue 18.
    judgment = _judge(*_hitom("A. green_trunk\n\nThe answer is D. blue_cabinet"))
    assert (judgment.verdict, judgment.answer) == (Verdict.AMBIGUOUS, "A,D")
    lenient = _judge(*_hitom("A. green_trunk\n\nThe answer is D. blue_cabinet"), policy="lenient")
    assert (lenient.verdict, lenient.answer) == (Verdict.CORRECT, "D")


def test_a_reply_naming_two_option_texts_is_ambiguous():
    judgment = _judge(*_hitom("Either the red_box or the blue_cabinet."))
    assert (judgment.verdict, judgment.match_type, judgment.answer) == (
        Verdict.AMBIGUOUS,
        "option_text",
        "B,D",
    )


def test_one_letter_repeated_with_its_text_is_not_ambiguous():
    judgment = _judge(*_hitom("D. blue_cabinet\nThe answer is D."))
    assert (judgment.verdict, judgment.answer) == (Verdict.CORRECT, "D")


@pytest.mark.parametrize(
    ("output", "letters"),
    [
        ("A. green_trunk\n\nThe answer is D. blue_cabinet", ["A", "D"]),
        ("The answer is (B) because she left.", ["B"]),
        # Lower-case "a" after "answer is" is the article, not option A.
        ("The answer is a blue_cabinet.", []),
        ("O. hat\nP. box", ["O"]),  # P is out of range for 15 options
    ],
)
def test_named_letters_reads_every_letter_in_order(output, letters):
    assert named_letters(output, 15) == letters


@pytest.mark.parametrize(
    ("output", "verdict", "answer"),
    [
        # What a model taught rationales replies: every container named, then its answer.
        (
            "Line 1: The grapes is in the purple_container. Seen by Sophia.\n"
            "Line 2: Jayden moved the grapes to the yellow_trunk. Seen by Sophia.\n"
            "Answer: yellow_trunk",
            "correct",
            "yellow_trunk",
        ),
        (
            "Line 2: Jayden moved the grapes to the yellow_trunk. Not seen by Sophia.\n"
            "answer:\nthe purple_container",
            "incorrect",
            "purple_container",
        ),
    ],
)
def test_a_reply_that_reasons_first_is_judged_on_its_answer_line(output, verdict, answer):
    judgment = _judge(*_tomi(output))
    assert (judgment.verdict.value, judgment.answer) == (verdict, answer)


def test_a_rationale_cut_off_before_its_answer_line_gave_no_single_answer():
    output = (
        "Line 1: The grapes is in the purple_container. Seen by Sophia.\n"
        "Line 2: Jayden moved the grapes to the yellow_trunk. Seen by"
    )
    assert _judge(*_tomi(output)).verdict is Verdict.AMBIGUOUS
