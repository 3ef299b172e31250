"""Who diagnosed a bad case: the evaluated model's own diagnoses are named, counted apart and
kept out of the synthesis plan unless a setting lets them in."""

from __future__ import annotations

from tests.feedback.conftest import bad_case
from tomflywheel.config import FeedbackSettings
from tomflywheel.feedback import build_plan, diagnoser_calibration, error_profile
from tomflywheel.feedback._llm_diagnosis import LLMDiagnosis, llm_record
from tomflywheel.llm import StructureFailure
from tomflywheel.schema import Answer, Diagnosis, ErrorCategory, Sample

TASKS = {"tomi_test": "tomi"}


def _case():
    sample = Sample(
        id="s1",
        story="Ann put the ball in the box. Ann left. Bob moved the ball to the bag.",
        question="Where will Ann look for the ball?",
        answer=Answer(correct_answers=["box"]),
        meta={"dataset": "tomi_test", "question_type": "first_order_0_tom", "order": 1},
    )
    return bad_case(sample, "bag")


def _diagnoses() -> list[Diagnosis]:
    def symbolic(i: int) -> Diagnosis:
        return Diagnosis(
            dataset="tomi_test",
            sample_id=f"s{i}",
            reason="wrong",
            method="symbolic",
            category=ErrorCategory.STALE_MEMORY,
            order=1,
        )

    def own(i: int) -> Diagnosis:
        return Diagnosis(
            dataset="tomi_test",
            sample_id=f"o{i}",
            reason="wrong",
            method="llm",
            category=ErrorCategory.REALITY_BIAS,
            order=2,
            diagnoser="smollm2",
            by_evaluated_model=True,
        )

    return [symbolic(0), symbolic(1), own(0), own(1), own(2)]


def test_an_llm_diagnosis_names_its_model_and_whether_it_is_the_evaluated_one():
    answer = LLMDiagnosis(category=ErrorCategory.REALITY_BIAS, evidence="none", explanation="x")
    record = llm_record(_case(), answer, diagnoser="smollm2", by_evaluated_model=True)
    assert (record.method, record.diagnoser, record.by_evaluated_model) == ("llm", "smollm2", True)
    # No model was asked (no parser, no LLM): nothing to flag.
    failed = llm_record(_case(), StructureFailure("no LLM", None, 0), by_evaluated_model=True)
    assert (failed.diagnoser, failed.by_evaluated_model, failed.category) == (None, False, None)


def test_the_profile_counts_self_diagnoses_apart():
    profile = error_profile(_diagnoses())
    assert profile["by_category"] == {"stale_memory": 2}
    assert profile["self_diagnosed"] == {"reality_bias": 3}
    assert profile["by_diagnoser"] == {"smollm2": 3, "symbolic": 2}
    categories = {cell["order"]: cell["categories"] for cell in profile["cells"]}
    assert categories == {"1": {"stale_memory": 2}, "2": {"reality_bias (self)": 3}}


def test_self_diagnoses_stay_out_of_the_plan_unless_allowed():
    settings = FeedbackSettings(budget=20, complete_families=False)
    plan = build_plan(_diagnoses(), TASKS, settings)
    assert [item.category for item in plan.items] == [ErrorCategory.STALE_MEMORY]
    assert plan.self_diagnoses_left_out == 3
    # Self-diagnoses let in still face the diagnoser's calibration (none here: no cross-check).
    let_in = {"plan_self_diagnoses": True, "plan_uncalibrated_diagnoses": True}
    allowed = build_plan(_diagnoses(), TASKS, settings.model_copy(update=let_in))
    assert {item.category for item in allowed.items} == {
        ErrorCategory.STALE_MEMORY,
        ErrorCategory.REALITY_BIAS,
    }
    assert allowed.self_diagnoses_left_out == 0


def _calibrated(agreeing: int, disagreeing: int) -> list[Diagnosis]:
    """Cross-checked engine diagnoses (``agreeing`` the LLM matched) and two other-model LLM
    diagnoses of stories the engine could not read."""
    checked = [
        Diagnosis(
            dataset="tomi_test",
            sample_id=f"c{i}",
            reason="wrong",
            method="symbolic",
            category=ErrorCategory.STALE_MEMORY,
            order=1,
            cross_check=ErrorCategory.STALE_MEMORY if i < agreeing else ErrorCategory.FORMAT,
        )
        for i in range(agreeing + disagreeing)
    ]
    other = [
        Diagnosis(
            dataset="tomi_test",
            sample_id=f"l{i}",
            reason="wrong",
            method="llm",
            category=ErrorCategory.REALITY_BIAS,
            order=2,
            diagnoser="a-larger-model",
        )
        for i in range(2)
    ]
    return checked + other


def test_llm_diagnoses_steer_the_plan_only_from_a_calibrated_diagnoser():
    settings = FeedbackSettings(budget=20, complete_families=False, min_diagnoser_agreement=0.6)
    passed = build_plan(_calibrated(4, 1), TASKS, settings)  # 80% agreement on 5 cases
    assert passed.diagnoser_calibration == {
        "n": 5, "agree": 4, "rate": 0.8, "min_agreement": 0.6, "status": "passed"
    }  # fmt: skip
    assert ErrorCategory.REALITY_BIAS in {item.category for item in passed.items}
    assert passed.uncalibrated_left_out == 0
    failed = build_plan(_calibrated(2, 3), TASKS, settings)  # 40% agreement
    assert failed.diagnoser_calibration["status"] == "failed"
    assert [item.category for item in failed.items] == [ErrorCategory.STALE_MEMORY]
    assert failed.uncalibrated_left_out == 2
    few = build_plan(_calibrated(2, 0), TASKS, settings)  # 2 of the 5 cases calibration needs
    assert (few.diagnoser_calibration["status"], few.uncalibrated_left_out) == ("uncalibrated", 2)
    let_in = settings.model_copy(update={"plan_uncalibrated_diagnoses": True})
    assert build_plan(_calibrated(2, 3), TASKS, let_in).uncalibrated_left_out == 0


def test_calibration_is_unknown_without_cross_checks_and_a_plan_without_llm_has_none():
    assert diagnoser_calibration([], min_agreement=0.5, min_cases=1)["status"] == "uncalibrated"
    engine_only = [d for d in _calibrated(3, 0) if d.method == "symbolic"]
    plan = build_plan(engine_only, TASKS, FeedbackSettings(budget=20, complete_families=False))
    assert plan.diagnoser_calibration is None and plan.uncalibrated_left_out == 0
