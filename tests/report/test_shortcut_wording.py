"""The shortcut line names a heuristic only when it gives some of the model's answers."""

from __future__ import annotations

from tomflywheel.artifacts import AnswerAudit
from tomflywheel.report import shortcut_summary, shortcut_text


def _shortcuts(accuracy: float) -> AnswerAudit:
    return AnswerAudit.model_validate(
        {
            "best_explained_by": "true_location",
            "agreement": {"true_location": {"n": 16, "accuracy": accuracy}},
            "reality_bias": {"n": 8, "correct": 2, "accuracy": 0.25},
        }
    )


def test_a_heuristic_that_agrees_is_named_with_its_share():
    assert shortcut_text(_shortcuts(0.5)) == (
        "agrees most with true_location (50.0%); reality bias 25.0% of 8"
    )
    assert "the <b>true_location</b> heuristic (same answer on 50.0% of 16 items)" in (
        shortcut_summary(_shortcuts(0.5))
    )


def test_a_top_agreement_of_zero_explains_nothing():
    # "best explained by true_location (0.0%)" read as an explanation; no answer matched it.
    assert (
        shortcut_text(_shortcuts(0.0)) == "no heuristic gives its answers; reality bias 25.0% of 8"
    )
    assert "true_location" not in shortcut_summary(_shortcuts(0.0))
