"""Admission: balancing the admitted set, the train store, the label table and the manifest.

:func:`balance` complements, then drops, accepted samples a shortcut heuristic answers until
no question family rewards one; :class:`TrainStore` keeps verdicts, admitted samples and
rejects on disk, resumably; the label table says where each verdict's label came from;
:func:`write_manifest` writes ``manifest.json`` from every verdict log, with the card and
``label_changes/<name>.jsonl`` (every admitted label the filter changed).

May import: ``records``, ``dedup``, ``checks``, ``llm`` (the order is in
``filter/__init__.py``).
"""

from tomflywheel.filter.admit._admit import StoreState, TrainStore, admitted_sample
from tomflywheel.filter.admit._balance import BalanceOutcome, audit_only, balance
from tomflywheel.filter.admit._changes import CHANGES_DIR, changes_file, label_changes
from tomflywheel.filter.admit._judge_calibration import JudgeCalibration, judge_calibration
from tomflywheel.filter.admit._label_table import STATUSES, LabelRow, label_rows, label_status
from tomflywheel.filter.admit._manifest import (
    CheckCount,
    check_counts,
    reason_counts,
    reasons_by_check,
    repair_attempted,
    write_manifest,
)

__all__ = [
    "CHANGES_DIR",
    "STATUSES",
    "BalanceOutcome",
    "CheckCount",
    "JudgeCalibration",
    "LabelRow",
    "StoreState",
    "TrainStore",
    "admitted_sample",
    "audit_only",
    "balance",
    "changes_file",
    "check_counts",
    "judge_calibration",
    "label_changes",
    "label_rows",
    "label_status",
    "reason_counts",
    "reasons_by_check",
    "repair_attempted",
    "write_manifest",
]
