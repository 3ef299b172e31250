"""The rubric check on crafted judge replies: thresholds, controls, and failures as failures."""

from __future__ import annotations

import pytest
from tests.filter.conftest import candidate, context, sample, tomi_samples

from tomflywheel.filter import CHECKS, Evidence, FilterSettings, RubricScore, RubricSettings
from tomflywheel.filter.llm import is_control, rubric_messages
from tomflywheel.llm import StructureFailure
from tomflywheel.schema import CheckStatus


def score(clarity=4, solvability=4, needs_tom=True, issues=()):
    return RubricScore(
        clarity=clarity, solvability=solvability, needs_tom=needs_tom, issues=list(issues)
    )


def run(item, rubric, *, use_llm=True, settings=None):
    ctx = context(settings, use_llm=use_llm, evidence=Evidence(rubric=rubric))
    return CHECKS.get("rubric")(candidate(item), ctx)


def test_rubric_passes_good_scores_with_a_summary():
    result = run(sample(), score())
    assert result.status is CheckStatus.PASSED
    assert result.detail == "clarity 4, solvability 4, needs ToM yes; issues: none"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (score(solvability=2), "low_solvability"),
        (score(clarity=2), "low_clarity"),
        (score(needs_tom=False), "tom_not_needed"),
        # Solvability is reported first when several marks are missed.
        (score(clarity=1, solvability=1, needs_tom=False), "low_solvability"),
    ],
)
def test_rubric_rejects_weak_scores_as_repairable(reply, reason):
    result = run(sample(), reply)
    assert (result.status, result.reason, result.repairable) == (CheckStatus.FAILED, reason, True)


def test_rubric_detail_keeps_the_judges_issues():
    result = run(sample(), score(clarity=1, issues=["who is 'she'?", "two balls"]))
    assert result.detail.endswith("issues: who is 'she'?; two balls")


def test_rubric_thresholds_come_from_settings():
    strict = FilterSettings(rubric={"min_clarity": 5})
    assert run(sample(), score(clarity=4), settings=strict).reason == "low_clarity"


def test_rubric_exempts_control_questions_from_needing_tom():
    reality = next(s for s in tomi_samples() if s.meta["question_type"] == "reality")
    assert run(reality, score(needs_tom=False)).status is CheckStatus.PASSED
    assert run(sample(control=True), score(needs_tom=False)).status is CheckStatus.PASSED


def test_is_control_reads_question_types_and_trace_kinds():
    settings = RubricSettings()
    kinds = {s.meta["question_type"]: is_control(s, settings) for s in tomi_samples()}
    assert kinds["memory"] and kinds["reality"]
    # the shared rule: a belief that equals reality (``_no_tom``) is a control too
    assert {k: v for k, v in kinds.items() if "order" in k} == {
        k: k.endswith("_no_tom") for k in kinds if "order" in k
    }


def test_rubric_failure_to_reply_is_a_failure_never_a_pass():
    failure = StructureFailure("1 validation error: clarity", '{"clarity": 9}', 3)
    result = run(sample(), failure)
    assert (result.status, result.reason, result.repairable) == (
        CheckStatus.FAILED,
        "rubric_unjudged",
        False,
    )
    assert result.detail == "structured call failed after 3 tries: 1 validation error: clarity"


def test_rubric_without_llm_is_skipped():
    result = run(sample(), None, use_llm=False)
    assert (result.status, result.reason) == (CheckStatus.SKIPPED, "no_llm")


def test_rubric_prompt_shows_story_question_options_and_answer():
    messages = rubric_messages(sample(wrong=["box"]), RubricSettings())
    assert messages[1]["content"] == (
        "Story:\nAnna put the ball in the basket. Anna left. Max moved the ball to the box."
        "\n\nQuestion: Where will Anna look for the ball?\n\nOptions: basket; box"
        "\n\nCorrect answer: basket"
    )
