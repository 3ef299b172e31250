"""Rendering: terminal tables and progress (rich), markdown/CSV tables, HTML reports.

The exports load their module on first use (PEP 562), so a command that only draws a progress
bar does not import the report builders and what they bring (about 2 s of start-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tomflywheel._lazy_exports import attach

if TYPE_CHECKING:
    from tomflywheel.report._experiment_report import write_experiment_report
    from tomflywheel.report._feedback import error_profile_table, plan_table
    from tomflywheel.report._html import (
        Bar,
        bar_chart,
        embed_json,
        esc,
        page,
        sample_browser,
        table_html,
    )
    from tomflywheel.report._judge import calibration_text, calibration_words, judge_notes
    from tomflywheel.report._lift_report import lift_rows
    from tomflywheel.report._progress import progress_bar
    from tomflywheel.report._run_report import write_run_report
    from tomflywheel.report._scores import balanced_cell, margin_cell
    from tomflywheel.report._shortcuts import admission_audit_text, shortcut_summary, shortcut_text
    from tomflywheel.report._summary import (
        summarize,
        summary_csv,
        summary_table,
        write_summary_html,
    )
    from tomflywheel.report._tables import (
        accuracy_cell,
        metric_rows,
        metrics_table,
        to_csv,
        to_markdown,
        write_tables,
    )
    from tomflywheel.report._usage import usage_text

__getattr__, __dir__ = attach(
    __name__,
    {
        "_experiment_report": ("write_experiment_report",),
        "_feedback": (
            "error_profile_table",
            "plan_table",
        ),
        "_html": (
            "Bar",
            "bar_chart",
            "embed_json",
            "esc",
            "page",
            "sample_browser",
            "table_html",
        ),
        "_judge": (
            "calibration_text",
            "calibration_words",
            "judge_notes",
        ),
        "_lift_report": ("lift_rows",),
        "_progress": ("progress_bar",),
        "_run_report": ("write_run_report",),
        "_scores": (
            "balanced_cell",
            "margin_cell",
        ),
        "_shortcuts": (
            "admission_audit_text",
            "shortcut_summary",
            "shortcut_text",
        ),
        "_summary": (
            "summarize",
            "summary_csv",
            "summary_table",
            "write_summary_html",
        ),
        "_tables": (
            "accuracy_cell",
            "metric_rows",
            "metrics_table",
            "to_csv",
            "to_markdown",
            "write_tables",
        ),
        "_usage": ("usage_text",),
    },
)
"""Each export's module: ``import tomflywheel.report`` loads none of them."""

__all__ = [
    "Bar",
    "accuracy_cell",
    "admission_audit_text",
    "balanced_cell",
    "bar_chart",
    "calibration_text",
    "calibration_words",
    "embed_json",
    "error_profile_table",
    "esc",
    "judge_notes",
    "lift_rows",
    "margin_cell",
    "metric_rows",
    "metrics_table",
    "page",
    "plan_table",
    "progress_bar",
    "sample_browser",
    "shortcut_summary",
    "shortcut_text",
    "summarize",
    "summary_csv",
    "summary_table",
    "table_html",
    "to_csv",
    "to_markdown",
    "usage_text",
    "write_experiment_report",
    "write_run_report",
    "write_summary_html",
    "write_tables",
]
