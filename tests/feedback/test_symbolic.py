"""Symbolic diagnosis of hand-checked failures on real ToMi and Hi-ToM stories.

Each case names the story facts that make the expected category right.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.feedback.conftest import bad_case
from tomflywheel.feedback import symbolic_diagnosis
from tomflywheel.schema import ErrorCategory as C
from tomflywheel.schema import Verdict

# tomi-test-000000: Aria and Aiden enter the front_yard; the grapefruit is in the green_bucket;
# Aria moves it to the blue_container; Aiden exits; Noah enters the playroom.
# tomi-test-000020: Isabella and Olivia in the den; "Isabella dislikes the pumpkin"; broccoli in
# the blue_pantry; Isabella exits; Olivia moves it to the red_drawer; Abigail and Isabella enter
# the garden. Q: where does Olivia think Isabella searches? Gold blue_pantry.
# hitom-cotp-0020 / -0040: Avery moves the lettuce to the green_bathtub (3) and leaves (5);
# Charlotte moves it to the blue_pantry (6), watched by Isabella and Elizabeth, who all leave;
# "Owen likes the green_envelope" (7); Owen moves it back to the green_drawer (14), the first
# location. -0020 asks Avery's belief (green_bathtub); -0040 what Charlotte thinks Avery thinks.
# hitom-cotp-0622: Lily saw the last move (red_drawer); afterwards Liam privately told Elizabeth
# it is in the blue_treasure_chest.
CASES = [
    # The true location after Olivia's move, which Isabella never saw.
    ("tomi-test-000020", "red_drawer", C.REALITY_BIAS),
    ("tomi-test-000020", "It is in the red drawer.", C.REALITY_BIAS),
    # Where will Aria (who moved it) look? The first location, which nobody believes any more.
    ("tomi-test-000001", "green_bucket", C.STALE_MEMORY),
    # The pumpkin is only in a distractor sentence.
    ("tomi-test-000020", "pumpkin", C.DISTRACTOR),
    # A room of the story: no belief, order or moment puts the broccoli there.
    ("tomi-test-000020", "garden", C.UNSUPPORTED),
    # No such place in the story.
    ("tomi-test-000020", "the kitchen", C.HALLUCINATION),
    # Restates the question without a place.
    ("tomi-test-000020", "Olivia thinks that Isabella searches for the broccoli", C.FORMAT),
    # Charlotte, Isabella and Elizabeth believe blue_pantry: right order, wrong mind.
    ("hitom-cotp-0020", "blue_pantry", C.PERSPECTIVE_CONFUSION),
    # Named only in "Owen likes the green_envelope".
    ("hitom-cotp-0020", "green_envelope", C.DISTRACTOR),
    # Charlotte's own (first-order) belief given for the second-order question.
    ("hitom-cotp-0040", "blue_pantry", C.ORDER_CONFUSION),
    # A private claim Lily never heard.
    ("hitom-cotp-0622", "blue_treasure_chest", C.KNOWLEDGE_ACCESS),
]


@pytest.mark.parametrize(("sample_id", "output", "expected"), CASES)
def test_each_failure_gets_the_category_its_story_explains(real, sample_id, output, expected):
    diagnosis = symbolic_diagnosis(bad_case(real[sample_id], output))
    assert diagnosis is not None and diagnosis.method == "symbolic"
    assert diagnosis.category is expected, (diagnosis.category, diagnosis.evidence)


def test_every_symbolic_category_is_hit():
    symbolic = {
        C.REALITY_BIAS,
        C.STALE_MEMORY,
        C.ORDER_CONFUSION,
        C.PERSPECTIVE_CONFUSION,
        C.DISTRACTOR,
        C.HALLUCINATION,
        C.FORMAT,
        C.UNSUPPORTED,
        C.KNOWLEDGE_ACCESS,
    }
    assert {expected for _, _, expected in CASES} == symbolic


def test_reality_bias_also_records_the_other_fits(real):
    # green_drawer is both the real location and the first one in hitom-cotp-0020.
    diagnosis = symbolic_diagnosis(bad_case(real["hitom-cotp-0020"], "green_drawer"))
    assert diagnosis.category is C.REALITY_BIAS
    assert C.STALE_MEMORY in diagnosis.also
    assert "true current location" in diagnosis.evidence


def test_the_gold_answer_is_not_called_an_error(real):
    diagnosis = symbolic_diagnosis(bad_case(real["tomi-test-000020"], "blue_pantry"))
    assert diagnosis.category is None and "judging problem" in diagnosis.failure


def test_an_ambiguous_reply_is_a_format_error_not_a_judging_problem(real):
    # The reply names the gold among others: the strict policy scores it wrong, rightly.
    case = bad_case(real["tomi-test-000020"], "blue_pantry")
    case = replace(case, judgment=case.judgment.model_copy(update={"verdict": Verdict.AMBIGUOUS}))
    diagnosis = symbolic_diagnosis(case)
    assert diagnosis.category is C.FORMAT and diagnosis.failure is None
    assert diagnosis.evidence.startswith("names several answers")


def test_an_unparsable_choice_is_a_format_error(real):
    diagnosis = symbolic_diagnosis(
        bad_case(real["hitom-cotp-0020"], "Let me think.", match_type="unparsable")
    )
    assert diagnosis.category is C.FORMAT


def test_a_story_the_engine_cannot_read_is_left_to_the_llm(real):
    original = real["tomi-test-000020"]
    # A sentence no grammar reads: under any dataset name the engine cannot walk the story.
    story = original.story + "\nA dragon swallowed the room whole."
    sample = original.model_copy(update={"story": story, "meta": {"dataset": "bigtom"}})
    assert symbolic_diagnosis(bad_case(sample, "red_drawer")) is None


def test_a_tomi_style_story_under_another_dataset_name_is_still_read(real):
    sample = real["tomi-test-000020"].model_copy(update={"meta": {"dataset": "my_tomi_copy"}})
    assert symbolic_diagnosis(bad_case(sample, "red_drawer")) is not None
