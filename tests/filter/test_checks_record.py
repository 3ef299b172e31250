"""Record checks on crafted failing and passing candidates: exact reason codes and evidence."""

from __future__ import annotations

from tests.filter.conftest import candidate, context, sample

from tomflywheel.filter import CHECKS, FilterSettings
from tomflywheel.schema import CheckStatus


def run(name: str, value, settings: FilterSettings | None = None):
    return CHECKS.get(name)(candidate(value), context(settings))


# --- schema -------------------------------------------------------------------------------


def test_schema_passes_a_valid_sample():
    assert run("schema", sample()).status is CheckStatus.PASSED


def test_schema_rejects_a_line_that_is_not_json():
    result = run("schema", '{"id": "x", "story": ')
    assert (result.status, result.reason, result.repairable) == (
        CheckStatus.FAILED,
        "invalid_json",
        False,
    )


def test_schema_rejects_a_missing_answer_naming_the_field():
    result = run("schema", {"id": "x", "story": "s", "question": "q"})
    assert result.reason == "schema_invalid"
    assert result.detail == "answer: Field required"


def test_schema_rejects_a_json_array():
    result = run("schema", "[1, 2]")
    assert (result.reason, result.detail) == ("schema_invalid", "expected a JSON object, got list")


def test_schema_rejects_a_blank_gold_answer():
    record = {"id": "x", "story": "s", "question": "q", "answer": {"correct_answers": [" "]}}
    result = run("schema", record)
    assert result.reason == "schema_invalid"
    assert result.detail.startswith("answer.correct_answers")


# --- fields -------------------------------------------------------------------------------


def test_fields_pass_a_normal_sample():
    assert run("fields", sample()).status is CheckStatus.PASSED


def test_fields_reject_an_empty_story():
    result = run("fields", sample(story="  "))
    assert (result.reason, result.detail) == ("empty_field", "story is empty")


def test_fields_reject_an_empty_question_of_a_question_task():
    result = run("fields", sample(question=""))
    assert (result.reason, result.detail) == (
        "empty_field",
        "question is empty (not a completion task)",
    )


def test_fields_accept_an_empty_question_of_a_completion_task():
    # Kosinski-style items are sentence completions: the prompt is the story itself.
    item = sample(
        story="Sam opens the bag. She believes it is full of", question="", dataset="kosinski"
    )
    assert run("fields", item).status is CheckStatus.PASSED


def test_fields_reject_a_blank_wrong_option():
    result = run("fields", sample(wrong=["box", "the"]))
    # "the" is blank once articles are dropped: as an option it says nothing.
    assert (result.reason, result.detail) == ("empty_field", "answer.wrong_answers[1] is blank")


def test_fields_reject_an_over_long_story_with_its_length():
    settings = FilterSettings(limits={"max_story_chars": 20})
    result = run("fields", sample(), settings)
    assert (result.reason, result.detail) == ("field_too_long", "story: 74 > 20 chars")


def test_fields_reject_too_many_options():
    settings = FilterSettings(limits={"max_options": 3})
    result = run("fields", sample(wrong=["box", "bag", "bin"]), settings)
    assert (result.reason, result.detail) == ("field_too_long", "4 options > 3")


# --- answer_leak --------------------------------------------------------------------------


def test_answer_leak_rejects_a_question_naming_the_gold():
    result = run("answer_leak", sample(question="Will Anna look for the ball in the basket?"))
    assert (result.reason, result.repairable) == ("answer_leak", True)
    assert result.detail == "the question names the answer 'basket'"


def test_answer_leak_matches_underscored_answers_in_plain_words():
    item = sample(question="Is the apple in the green bucket?", correct=["green_bucket"])
    assert run("answer_leak", item).reason == "answer_leak"


def test_answer_leak_passes_a_clean_question():
    assert run("answer_leak", sample()).status is CheckStatus.PASSED


def test_answer_leak_ignores_a_premise_sentence():
    # tgtom counterfactuals name a container in their premise; only the asking sentence counts.
    item = sample(
        question="Suppose Max had said the ball is in the basket. Where would Anna look?",
    )
    assert run("answer_leak", item).status is CheckStatus.PASSED


def test_answer_leak_allows_a_choice_question_naming_every_option():
    item = sample(question="Will Anna look in the basket or the box?", wrong=["box"])
    assert run("answer_leak", item).status is CheckStatus.PASSED


def test_answer_leak_does_not_match_inside_a_word():
    # "basketball" is not the answer "basket".
    item = sample(question="Where will the basketball player look for the ball?")
    assert run("answer_leak", item).status is CheckStatus.PASSED


# --- choices ------------------------------------------------------------------------------


def test_choices_reject_the_gold_among_the_wrong_answers():
    result = run("choices", sample(wrong=["box", "The Basket"]))
    assert (result.reason, result.detail) == (
        "gold_in_wrong",
        "'basket' is correct and wrong ('The Basket')",
    )


def test_choices_reject_duplicate_wrong_options():
    result = run("choices", sample(wrong=["red box", "Red  box."]))
    assert (result.reason, result.detail) == ("duplicate_options", "'red box' and 'Red  box.'")


def test_choices_pass_distinct_options():
    assert run("choices", sample(wrong=["box", "bag"])).status is CheckStatus.PASSED


def test_choices_skip_open_questions_whose_golds_are_aliases():
    # Open QA lists spellings of one answer ("green_bucket", "green bucket"): not duplicates.
    item = sample(correct=["green_bucket", "green bucket"])
    result = run("choices", item)
    assert (result.status, result.reason) == (CheckStatus.SKIPPED, "not_applicable")


def test_answer_leak_allows_naming_a_predicate_the_options_share():
    # ToMBench: "Do Xiao Li and Xiao Jie know that ...?" with options Know / Do not know.
    item = sample(
        question="Do Xiao Li and Xiao Jie know that Xiao Hua wants to come?",
        correct=["Know"],
        wrong=["Do not know"],
    )
    assert run("answer_leak", item).status is CheckStatus.PASSED
