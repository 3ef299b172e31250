"""The filter stage: verify, score, deduplicate, repair and admit training data.

Checks (record, set and LLM phases), label verification through the world engine, a rubric
judge, near-duplicate and contamination guards (MinHash LSH), repair by LLM rewrite, admission.

Public API: ``run_filter`` (the stage, one call) on a ``FilterRun`` (the settings and the
run's own choices), and its ``FilterSummary``; ``FilterSettings`` (every threshold); the
``CHECKS`` registry with ``REASONS`` (every reason code and whether it is repairable);
``CheckContext`` and ``read_candidates`` to run checks directly; ``DuplicateIndex`` /
``ContaminationIndex`` (MinHash LSH) and ``write_manifest``.
"""

# The sub-packages, lowest first; each may import only the ones before it: ``records``
# (candidates, evidence), ``dedup`` (MinHash, duplicate and contamination indexes), ``checks``
# (the registry, record- and set-phase checks, label verification), ``llm`` (rubric, repair,
# the LLM work runner) and ``admit`` (balance, train store, label table, manifest); the stage
# itself (``_options``, ``_pipeline``, ``_static_ray``, ``_run``) sits above them all.
# Built-in checks register on import; within a phase they run in this order (record: schema
# ... symbolic_label, engine_label; set: unique_id ... contamination; llm: ... rubric).
# isort: off
from tomflywheel.filter import checks  # noqa: F401
from tomflywheel.filter import llm  # noqa: F401

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
from tomflywheel.filter._options import FilterRun
from tomflywheel.filter._run import FilterSummary, config_hash, run_filter
from tomflywheel.filter.admit import (
    STATUSES,
    CheckCount,
    JudgeCalibration,
    LabelRow,
    TrainStore,
    admitted_sample,
    check_counts,
    judge_calibration,
    label_rows,
    label_status,
    write_manifest,
)
from tomflywheel.filter.checks import CHECKS, REASONS, Check, CheckContext, Reason, ordered_checks
from tomflywheel.filter.dedup import ContaminationIndex, DuplicateIndex, eval_files
from tomflywheel.filter.records import (
    Candidate,
    Evidence,
    Extraction,
    Origin,
    QuestionRecord,
    Rewrite,
    RubricScore,
    SolveTrial,
    origin_of,
    read_candidates,
)

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
    "FilterRun",
    "FilterSettings",
    "FilterSummary",
    "JudgeCalibration",
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
    "judge_calibration",
    "label_rows",
    "label_status",
    "ordered_checks",
    "origin_of",
    "read_candidates",
    "run_filter",
    "write_manifest",
]
