"""Targets and controls of bad cases: which show the skill failing, which a shortcut would pass.

A *target* is a belief question whose answer differs from reality (a false belief); a
*control* is a memory, reality or true-belief question, which "the object is where it really
is" answers right. The plan spends its budget mainly on targets, so the admitted data teaches
belief tracking instead of the reality shortcut. A case's role is the audit's
:func:`~tomflywheel.audit.sample_role` (the one rule plan, audit, lift and report share);
:func:`diagnosis_role` reads the same markers when only the diagnosis is at hand.
"""

from __future__ import annotations

from tomflywheel.audit import Role, marked_role, sample_role
from tomflywheel.schema import Diagnosis, ErrorCategory

__all__ = ["Role", "diagnosis_role", "sample_role"]


def diagnosis_role(diagnosis: Diagnosis) -> Role:
    """The role a diagnosis implies without its sample (its question type, order and error).

    Reality bias is only possible where the gold differs from reality; otherwise the sample
    rule's markers decide on the question type, and order-0 questions are controls.
    """
    if diagnosis.category is ErrorCategory.REALITY_BIAS:
        return "target"
    if marked_role({"question_type": diagnosis.question_type}) or diagnosis.order == 0:
        return "control"
    return "target"
