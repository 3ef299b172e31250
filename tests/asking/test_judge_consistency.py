"""An LLM judge's reply must hold together: verdict, reason and the answer it read."""

import pytest

from tomflywheel.asking.judge import inconsistency, reason_polarity
from tomflywheel.schema import Answer, Sample

SAMPLE = Sample(
    id="f",
    story="s",
    question="How does Mia feel?",
    answer=Answer(correct_answers=["happy"]),
    meta={"candidates": ["happy", "sad"]},
)


@pytest.mark.parametrize(
    ("reason", "polarity"),
    [
        ("The answer is incorrect.", "incorrect"),
        ("It does not match the reference.", "incorrect"),
        ("The answer is correct.", "correct"),
        ("Both say she is cheerful.", "neutral"),
    ],
)
def test_reason_polarity(reason, polarity):
    assert reason_polarity(reason) == polarity


def test_a_correct_verdict_with_a_reason_saying_incorrect_is_inconsistent():
    # Seen with SmolLM2 judging itself (issue 18): "The answer is incorrect." beside correct.
    problem = inconsistency(
        SAMPLE, "She is happy.", answer="happy", reason="The answer is incorrect.", correct=True
    )
    assert problem is not None and "reason argues incorrect" in problem


def test_a_correct_verdict_on_a_wrong_candidate_is_inconsistent():
    problem = inconsistency(SAMPLE, "She is sad.", answer="sad", reason="Fine.", correct=True)
    assert problem is not None and "no gold answer" in problem


def test_an_incorrect_verdict_on_the_gold_is_inconsistent():
    problem = inconsistency(SAMPLE, "happy", answer="happy", reason="No.", correct=False)
    assert problem is not None and "is a gold answer" in problem


def test_an_answer_not_in_the_output_is_inconsistent():
    problem = inconsistency(SAMPLE, "I can't tell.", answer="happy", reason="ok", correct=True)
    assert problem is not None and "not in the output" in problem


def test_a_paraphrase_leaves_the_judges_verdict_standing():
    problem = inconsistency(
        SAMPLE, "She feels joyful.", answer="joyful", reason="Joyful means happy.", correct=True
    )
    assert problem is None
