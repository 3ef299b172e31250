"""The ``CHECKS`` registry and the built-in record-phase and set-phase checks.

A check is a function ``(candidate, context) -> CheckResult`` registered with :func:`check`;
:class:`CheckContext` is what it may read besides the candidate. Label verification lives here
too: the world engine re-derives traced labels (``_verify``) and reads free-form stories
(``_engine_label``), and the judge model's k solve trials (``_solve``) vote on the rest. An
LLM-phase check declares a :class:`Question` whose ``ask`` calls the judge through an
:class:`Asker`; the LLM phase (``filter.llm``) runs it, so nothing here imports that phase.

May import: ``records``, ``dedup`` (the order is in ``filter/__init__.py``).
"""

# Built-in checks: each module registers its checks on import; within a phase they run in this
# order (record: schema ... symbolic_label, engine_label; set: unique_id ... contamination).
# isort: off
from tomflywheel.filter.checks import _record  # noqa: F401
from tomflywheel.filter.checks import _label  # noqa: F401
from tomflywheel.filter.checks import _engine_label  # noqa: F401
from tomflywheel.filter.checks import _set  # noqa: F401

# isort: on
from tomflywheel.filter.checks._context import CheckContext
from tomflywheel.filter.checks._engine_label import (
    CONVENTION,
    REPAIRED,
    RepairKind,
    answer_forms,
    answer_profile,
    read_engine_labels,
    relabelled,
    repair_detail,
    writes_aliases,
)
from tomflywheel.filter.checks._label import (
    CALIBRATION_AGREES,
    CALIBRATION_DISAGREES,
    calibration_choice,
)
from tomflywheel.filter.checks._registry import (
    CHECKS,
    PHASES,
    REASONS,
    Asker,
    Check,
    Phase,
    Question,
    Reason,
    SkipReason,
    check,
    failed,
    ordered_checks,
    passed,
    skipped,
)
from tomflywheel.filter.checks._verify import extraction_messages

__all__ = [
    "CALIBRATION_AGREES",
    "CALIBRATION_DISAGREES",
    "CHECKS",
    "CONVENTION",
    "PHASES",
    "REASONS",
    "REPAIRED",
    "Asker",
    "Check",
    "CheckContext",
    "Phase",
    "Question",
    "Reason",
    "RepairKind",
    "SkipReason",
    "answer_forms",
    "answer_profile",
    "calibration_choice",
    "check",
    "extraction_messages",
    "failed",
    "ordered_checks",
    "passed",
    "read_engine_labels",
    "relabelled",
    "repair_detail",
    "skipped",
    "writes_aliases",
]
