"""Every registered check is documented (docstring and docs/filter.md) and returns its own name."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.filter.conftest import candidate, context, sample

from tomflywheel.filter import CHECKS, REASONS, ordered_checks

DOCS = Path(__file__).resolve().parents[2] / "docs" / "filter.md"


def test_checks_run_record_then_set_then_llm():
    assert [c.name for c in ordered_checks()] == [
        "schema",
        "fields",
        "answer_leak",
        "choices",
        "symbolic_label",
        "engine_label",
        "unique_id",
        "exact_duplicate",
        "near_duplicate",
        "contamination",
        "naturalization",
        "solve_agreement",
        "judge_calibration",
        "rubric",
    ]


def test_repairable_reasons_are_exactly_the_rewritable_ones():
    repairable = sorted(code for code, reason in REASONS.items() if reason.repairable)
    assert repairable == [
        "answer_leak",
        "extraction_failed",
        "label_unconfirmed",
        "low_clarity",
        "low_solvability",
        "naturalization_drift",
        "tom_not_needed",
    ]


@pytest.mark.parametrize("name", CHECKS.names())
def test_every_check_has_a_docstring_and_a_docs_entry(name):
    entry = CHECKS.get(name)
    assert entry.description
    text = DOCS.read_text(encoding="utf-8")
    assert f"`{name}`" in text
    for reason in entry.reasons:
        assert f"`{reason.code}`" in text, reason.code


@pytest.mark.parametrize("name", CHECKS.names())
def test_every_check_answers_for_itself_on_good_and_broken_records(name):
    for value in (sample(), "not json"):
        result = CHECKS.get(name)(candidate(value), context())
        assert result.check == name
        assert result.reason is None or result.reason in REASONS or result.status == "skipped"
