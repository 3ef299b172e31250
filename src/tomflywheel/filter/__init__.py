"""The filter stage: verify, score, deduplicate, repair and admit training data.

Checks (record, set and LLM phases), label verification through the world engine, a rubric
judge, near-duplicate and contamination guards (MinHash LSH), repair by LLM rewrite, admission.

Public API: ``run_filter`` (the stage, one call) and its ``FilterSummary``; ``FilterSettings``
(every threshold); the ``CHECKS`` registry with ``REASONS`` (every reason code and whether it
is repairable); ``CheckContext`` and ``read_candidates`` to run checks directly;
``DuplicateIndex`` / ``ContaminationIndex`` (MinHash LSH) and ``write_manifest``.
"""

# Built-in checks: each module registers its checks on import; within a phase they run in this
# order (record: schema ... symbolic_label, engine_label; set: unique_id ... contamination;
# llm: ... rubric).
# isort: off
from tomflywheel.filter import _checks_record  # noqa: F401
from tomflywheel.filter import _checks_label  # noqa: F401
from tomflywheel.filter import _engine_label  # noqa: F401
from tomflywheel.filter import _checks_set  # noqa: F401
from tomflywheel.filter import _rubric  # noqa: F401

# isort: on
from tomflywheel.config import (
    ContaminationSettings,
    DedupSettings,
    FilterSettings,
    LabelSettings,
    LimitSettings,
    RepairSettings,
    RubricSettings,
    SolveSettings,
)
from tomflywheel.filter._admit import TrainStore, admitted_sample
from tomflywheel.filter._candidate import Candidate, Origin, origin_of, read_candidates
from tomflywheel.filter._context import CheckContext
from tomflywheel.filter._dedup import ContaminationIndex, DuplicateIndex, eval_files
from tomflywheel.filter._evidence import (
    Evidence,
    Extraction,
    QuestionRecord,
    Rewrite,
    RubricScore,
    SolveTrial,
)
from tomflywheel.filter._label_table import STATUSES, LabelRow, label_rows, label_status
from tomflywheel.filter._manifest import CheckCount, check_counts, write_manifest
from tomflywheel.filter._registry import CHECKS, REASONS, Check, Reason, ordered_checks
from tomflywheel.filter._run import FilterSummary, config_hash, run_filter

__all__ = [
    "CHECKS",
    "REASONS",
    "STATUSES",
    "Candidate",
    "Check",
    "CheckContext",
    "CheckCount",
    "ContaminationIndex",
    "ContaminationSettings",
    "DedupSettings",
    "DuplicateIndex",
    "Evidence",
    "Extraction",
    "FilterSettings",
    "FilterSummary",
    "LabelRow",
    "LabelSettings",
    "LimitSettings",
    "Origin",
    "QuestionRecord",
    "Reason",
    "RepairSettings",
    "Rewrite",
    "RubricScore",
    "RubricSettings",
    "SolveSettings",
    "SolveTrial",
    "TrainStore",
    "admitted_sample",
    "check_counts",
    "config_hash",
    "eval_files",
    "label_rows",
    "label_status",
    "ordered_checks",
    "origin_of",
    "read_candidates",
    "run_filter",
    "write_manifest",
]
