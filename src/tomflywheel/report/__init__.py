"""Rendering: terminal tables and progress (rich), markdown/CSV tables, HTML reports."""

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
from tomflywheel.report._progress import progress_bar
from tomflywheel.report._run_report import lift_rows, write_run_report
from tomflywheel.report._shortcuts import admission_audit_text, shortcut_summary, shortcut_text
from tomflywheel.report._summary import summarize, summary_csv, summary_table, write_summary_html
from tomflywheel.report._tables import (
    accuracy_cell,
    metric_rows,
    metrics_table,
    to_csv,
    to_markdown,
    write_tables,
)
from tomflywheel.report._usage import usage_text

__all__ = [
    "Bar",
    "accuracy_cell",
    "admission_audit_text",
    "bar_chart",
    "calibration_text",
    "calibration_words",
    "embed_json",
    "error_profile_table",
    "esc",
    "judge_notes",
    "lift_rows",
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
