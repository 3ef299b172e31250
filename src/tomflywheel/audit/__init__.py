"""The shortcut audit: can a set (or a model's answers) be explained without tracking minds?

Registered heuristics (:data:`HEURISTICS`) answer samples without theory of mind — the
object's real or first location, the candidate named last/first/most, option A, the longest
option, the most frequent gold letter, always yes/no, the family's majority answer — and a
learned probe on surface features is scored held out. :func:`audit_samples` reports each one's
accuracy per question family against chance, flagging those above chance + margin;
:func:`audit_predictions` says which heuristic best explains a model's answers and how often
it names the real location on false-belief targets; :func:`shortcut_scores` scores a model
on what no such rule passes (belief-balanced, story-level and paired accuracy) against every
heuristic. Below the stages: it may import ``world``, ``asking``, ``schema`` and the base
modules.
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
from tomflywheel.audit._score_lines import score_lines
from tomflywheel.audit._scores import belief_side, shortcut_scores
from tomflywheel.audit._stories import question_part, story_key, twin_key
from tomflywheel.audit._surface import (
    AnswerFormat,
    SurfaceProfile,
    answer_format,
    is_numbered,
    surface_gaps,
    surface_profile,
)

__all__ = [
    "CONTROL_QUESTION_TYPES",
    "HEURISTICS",
    "PROBE",
    "AnswerFormat",
    "AuditItem",
    "AuditReport",
    "AuditRow",
    "Heuristic",
    "ProbeResult",
    "Role",
    "SetFit",
    "SurfaceProfile",
    "answer_format",
    "answered",
    "audit",
    "audit_item",
    "audit_items",
    "audit_predictions",
    "audit_samples",
    "belief_side",
    "fit_set",
    "heuristic",
    "is_control",
    "is_numbered",
    "item_chance",
    "marked_role",
    "question_family",
    "question_part",
    "run_probe",
    "sample_role",
    "score_lines",
    "shortcut_scores",
    "story_key",
    "surface_gaps",
    "surface_profile",
    "twin_key",
]
