"""The shortcut audit: can a set (or a model's answers) be explained without tracking minds?

Registered heuristics (:data:`HEURISTICS`) answer samples without theory of mind — the
object's real or first location, the candidate named last/first/most, option A, the longest
option, the most frequent gold letter, always yes/no, the family's majority answer — and a
learned probe on surface features is scored held out. :func:`audit_samples` reports each one's
accuracy per question family against chance, flagging those above chance + margin;
:func:`audit_predictions` says which heuristic best explains a model's answers and how often
it names the real location on false-belief targets. Below the stages: it may import
``world``, ``asking``, ``schema`` and the base modules.
"""

# Built-in heuristics register themselves on import (the module is their list).
from tomflywheel.audit._heuristics import HEURISTICS, Heuristic, SetFit, fit_set, heuristic
from tomflywheel.audit._items import AuditItem, audit_item, audit_items, question_family
from tomflywheel.audit._predictions import answered, audit_predictions
from tomflywheel.audit._probe import ProbeResult, run_probe
from tomflywheel.audit._report import (
    PROBE,
    AuditReport,
    AuditRow,
    audit,
    audit_samples,
    item_chance,
)
from tomflywheel.audit._roles import (
    CONTROL_QUESTION_TYPES,
    Role,
    is_control,
    marked_role,
    sample_role,
)

__all__ = [
    "CONTROL_QUESTION_TYPES",
    "HEURISTICS",
    "PROBE",
    "AuditItem",
    "AuditReport",
    "AuditRow",
    "Heuristic",
    "ProbeResult",
    "Role",
    "SetFit",
    "answered",
    "audit",
    "audit_item",
    "audit_items",
    "audit_predictions",
    "audit_samples",
    "fit_set",
    "heuristic",
    "is_control",
    "item_chance",
    "marked_role",
    "question_family",
    "run_probe",
    "sample_role",
]
