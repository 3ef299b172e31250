"""Targets and controls: which bad cases show the skill failing, which a shortcut would pass.

A *target* is a belief question whose answer differs from reality (a false belief); a
*control* is a memory, reality or true-belief question, which "the object is where it really
is" answers right. The plan spends its budget mainly on targets, so the admitted data teaches
belief tracking instead of the reality shortcut.
"""

from __future__ import annotations

from typing import Literal

from tomflywheel.audit import audit_item
from tomflywheel.schema import Diagnosis, ErrorCategory, Sample

Role = Literal["target", "control"]


def sample_role(sample: Sample) -> Role:
    """The role of a benchmark item, by the engine's reading of its story.

    Items the engine cannot read count as targets (they ask a mind; nothing says they don't).
    """
    item = audit_item(sample)
    if item.asks is not None and not item.asks_mind:
        return "control"
    if item.false_belief is False:
        return "control"
    if item.false_belief is None and sample.meta.get("tom") is False:
        return "control"
    return "target"


def diagnosis_role(diagnosis: Diagnosis) -> Role:
    """The role a diagnosis implies without its sample (question-type names and the error).

    Reality bias is only possible where the gold differs from reality; ToMi-style names say
    ``_tom``/``_no_tom``; memory, reality and order-0 questions are controls.
    """
    if diagnosis.category is ErrorCategory.REALITY_BIAS:
        return "target"
    qtype = diagnosis.question_type or ""
    if qtype in ("memory", "reality") or qtype.endswith("_no_tom") or diagnosis.order == 0:
        return "control"
    return "target"
