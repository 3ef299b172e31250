"""The rules judge on outputs like the ones real models give (several taken from SmolLM2 runs)."""

import asyncio

import pytest

from tomflywheel.asking import (
    JUDGES,
    JudgeContext,
    match_text,
    normalize,
    parse_letters,
    scoring_sample,
    shuffle_options,
)
from tomflywheel.asking.judge import gold_positions
from tomflywheel.schema import Answer, Prediction, Sample, Verdict


@pytest.mark.parametrize(
    ("output", "gold", "expected"),
    [
        ("green_bucket", "green_bucket", "exact"),
        ("  green_bucket\n", "green_bucket", "exact"),
        ("The green bucket.", "green_bucket", "normalized"),
        ("Green_Bucket", "green_bucket", "normalized"),
        ("The grapefruit is in the green_bucket.", "green_bucket", "contained"),
        ("It was moved to the green bucket by Aria", "green_bucket", "contained"),
        ("green", "green_bucket", "prefix"),  # cut short, e.g. by max_tokens
        ("bucket", "green_bucket", "suffix"),
        ("blue_container", "green_bucket", None),
        # "theatre" contains "the" but articles are removed only as whole words.
        ("theatre", "theatre", "exact"),
        ("the theatre", "theatre", "normalized"),
        # 25 ends with 5, but 25 is not 5: whole tokens only.
        ("25", "5", None),
        ("Line 13.", "13", "contained"),
    ],
)
def test_cascade_records_which_step_matched(output, gold, expected):
    match = match_text(output, [gold])
    assert (match.match_type if match else None) == expected


def test_strict_matching_accepts_exact_only():
    assert match_text("green_bucket", ["green_bucket"], strict=True).match_type == "exact"
    assert match_text("The green bucket.", ["green_bucket"], strict=True) is None


def test_articles_are_removed_as_whole_words_only():
    assert normalize("The Theatre, an Anchor!") == "theatre anchor"


@pytest.mark.parametrize(
    ("output", "n", "multi", "letters"),
    [
        ("D. blue_crate", 15, False, ["D"]),  # SmolLM2 on Hi-ToM
        ("B", 4, False, ["B"]),
        ("(C)", 4, False, ["C"]),
        ("b)", 4, False, ["B"]),
        ("Answer: C", 4, False, ["C"]),
        ("The answer is (B) because she left.", 4, False, ["B"]),
        ("A bucket is where it is.", 4, False, None),  # the article, not option A
        ("E", 4, False, None),  # out of range
        ("A, C", 4, True, ["A", "C"]),
        ("C and A", 4, True, ["A", "C"]),
        ("A, C", 4, False, None),  # two letters for a single-choice question
        ("I don't know", 4, False, None),
    ],
)
def test_letter_parsing(output, n, multi, letters):
    assert parse_letters(output, n, multi=multi) == letters


def _judge(sample, prediction, **args):
    judge = JUDGES.get("rules")(JudgeContext(), **args)
    return asyncio.run(judge(sample, prediction))


def _choice(output):
    sample = Sample(
        id="c1",
        story="s",
        question="Where is it?",
        answer=Answer(correct_answers=["red_box"], wrong_answers=["blue_bag", "green_crate"]),
    )
    prediction = Prediction(
        sample_id="c1",
        mode="generate",
        endpoint="chat",
        raw_output=output,
        options=["blue_bag", "red_box", "green_crate"],
        option_map=[1, 0, 2],
        gold_letters=["B"],
    )
    return sample, prediction


def test_choice_letter_is_compared_with_the_gold_letter():
    assert _judge(*_choice("B")).verdict is Verdict.CORRECT
    wrong = _judge(*_choice("A."))
    assert (wrong.verdict, wrong.match_type, wrong.answer) == (Verdict.INCORRECT, "letter", "A")


def test_choice_falls_back_to_the_option_text():
    judgment = _judge(*_choice("It is in the red box."))
    assert (judgment.verdict, judgment.match_type, judgment.answer) == (
        Verdict.CORRECT,
        "option_text",
        "B",
    )


def test_an_unreadable_choice_is_incorrect_and_marked_unparsable():
    judgment = _judge(*_choice("Hmm, hard to say."))
    assert (judgment.verdict, judgment.match_type) == (Verdict.INCORRECT, "unparsable")


def test_a_failed_prediction_is_an_error_not_a_wrong_answer():
    sample, prediction = _choice("")
    prediction = prediction.model_copy(update={"raw_output": None, "error": "HTTP 400: too long"})
    judgment = _judge(sample, prediction)
    assert judgment.verdict is Verdict.ERROR and judgment.failure == "HTTP 400: too long"


def test_first_token_judge_needs_the_first_word():
    judge = JUDGES.get("first_token")(JudgeContext())
    sample = Sample(
        id="k",
        story="She thinks the bag is full of",
        question="",
        answer=Answer(correct_answers=["popcorn"], wrong_answers=["chocolate"]),
    )
    right = Prediction(
        sample_id="k", mode="generate", endpoint="completions", raw_output=" popcorn."
    )
    late = right.model_copy(update={"raw_output": " sweet popcorn"})
    assert asyncio.run(judge(sample, right)).verdict is Verdict.CORRECT
    assert asyncio.run(judge(sample, late)).verdict is Verdict.INCORRECT


def test_logprob_judge_picks_the_highest_option_and_maps_it_back():
    judge = JUDGES.get("logprob")(JudgeContext())
    sample, prediction = _choice("")
    scored = prediction.model_copy(
        update={
            "mode": "logprob",
            "raw_output": None,
            "option_logprobs": [-3.0, -1.0, -2.0],
            "option_token_counts": [1, 4, 1],
        }
    )
    assert asyncio.run(judge(sample, scored)).verdict is Verdict.CORRECT
    per_token = JUDGES.get("logprob")(JudgeContext(), normalize="mean")
    # Per token, red_box scores -0.25: still the best; blue_bag -3, green_crate -2.
    assert asyncio.run(per_token(sample, scored)).answer == "red_box"


def test_logprob_judge_scores_candidates_against_their_gold_not_spelling_variants():
    """ToMi keeps ``green_bucket`` and ``green bucket`` as golds; only one candidate is gold."""
    sample = Sample(
        id="tomi-test-000000",
        story="The grapefruit is in the green_bucket.\nAria moved it to the blue_container.",
        question="Where was the grapefruit at the beginning?",
        answer=Answer(correct_answers=["green_bucket", "green bucket"]),
        meta={"candidates": ["green_bucket", "blue_container"]},
    )
    shuffled = shuffle_options(scoring_sample(sample))
    by_option = {"green_bucket": -11.8, "blue_container": -8.9}
    prediction = Prediction(
        sample_id=sample.id,
        mode="logprob",
        endpoint="completions",
        options=shuffled.options,
        option_map=shuffled.option_map,
        gold_letters=shuffled.gold_letters,
        option_logprobs=[by_option[o] for o in shuffled.options],
        option_token_counts=[3, 3],
    )
    judgment = asyncio.run(JUDGES.get("logprob")(JudgeContext())(sample, prediction))
    assert (judgment.verdict, judgment.answer) == (Verdict.INCORRECT, "blue_container")
    assert [shuffled.options[i] for i in gold_positions(prediction)] == ["green_bucket"]


def test_tasks_without_partial_credit_skip_prefix_and_suffix():
    # tgtom's scorer gives no partial credit: "yes" must not pass for "yes: blue_container".
    assert match_text("yes", ["yes: blue_container"]).match_type == "prefix"
    assert match_text("yes", ["yes: blue_container"], partial=False) is None
    contained = match_text("It is yes: blue_container.", ["yes: blue_container"], partial=False)
    assert contained.match_type == "contained"
