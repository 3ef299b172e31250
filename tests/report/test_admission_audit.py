"""The admission audit in one line: families, what is still flagged, what balancing did."""

from __future__ import annotations

from tomflywheel.artifacts import AdmissionAudit, RoundSummary
from tomflywheel.report import admission_audit_text


def test_the_line_names_what_balancing_dropped_by_family_and_heuristic():
    audit = {
        "admitted": {"families": {"first_order": 40, "reality": 12, "memory": 9}, "flagged": []},
        "this_round": {
            "flagged_before": ["kosinski: named_last"],
            "complements": ["c1", "c2"],
            "dropped": {"a": "kosinski: named_last", "b": "kosinski: named_last", "c": "tomi: a"},
        },
    }
    assert admission_audit_text(AdmissionAudit.model_validate(audit)) == (
        "3 families, no shortcut above chance; balancing added 2 complements, dropped 3 "
        "(kosinski: named_last 2, tomi: a 1)"
    )


def test_a_flagged_set_without_balancing_says_so():
    audit = {
        "admitted": {"families": {"first_order": 5}, "flagged": ["first_order: named_last"]},
        "this_round": {"flagged_before": [], "complements": [], "dropped": {}},
    }
    assert admission_audit_text(AdmissionAudit.model_validate(audit)) == (
        "1 family, 1 shortcut(s) above chance (first_order: named_last)"
    )
    assert admission_audit_text(None) == "no admission audit"


def test_the_run_report_says_what_each_drop_was_against():
    from tomflywheel.report._shortcuts import audit_section

    audit = {
        "admitted": {"families": {"false_belief": 40}, "flagged": []},
        "this_round": {
            "flagged_before": ["false_belief: named_last"],
            "complements": [],
            "dropped": {f"k{i}": "false_belief: named_last" for i in range(40)},
        },
    }
    html = audit_section(
        [RoundSummary.model_validate({"round": 1, "model": "m", "admission_audit": audit})]
    )
    assert "<td>40 (false_belief: named_last 40)</td>" in html
