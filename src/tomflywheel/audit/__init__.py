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

__all__ = [
    "HEURISTICS",
    "PROBE",
    "AuditItem",
    "AuditReport",
    "AuditRow",
    "Heuristic",
    "ProbeResult",
    "SetFit",
    "answered",
    "audit",
    "audit_item",
    "audit_items",
    "audit_predictions",
    "audit_samples",
    "fit_set",
    "heuristic",
    "item_chance",
    "question_family",
    "run_probe",
]
