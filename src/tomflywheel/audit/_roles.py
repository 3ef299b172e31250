"""Targets and controls: the one rule saying which items need the skill the loop trains.

A *target* asks a mind whose answer differs from reality (a false belief); a *control* is
answered right by the real state of the world: memory and reality questions, true beliefs,
no-ToM and order-0 questions, control variants. The synthesis plan, the rubric's exemption,
the held-out lift and the reports all call :func:`sample_role`, so "targets" counts the same
items wherever it is counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from tomflywheel.asking import normalize
from tomflywheel.audit._items import _world_facts
from tomflywheel.schema import Sample

Role = Literal["target", "control"]

CONTROL_QUESTION_TYPES = frozenset({"memory", "reality", "order_0", "Q0"})
"""Question-type names that ask the world, not a mind (ToMi, generators, TGToM's Q0)."""


def marked_role(meta: Mapping[str, Any]) -> Role | None:
    """The role a sample's own markers state (``None``: they state none).

    Markers only ever say *control*: a benchmark's ``control`` flag, ``tom: false``, a
    world or ``_no_tom`` question type, a true-belief story (``story_type`` of the generators,
    BigToM's ``belief``) or a control variant of a generated pair.
    """
    if meta.get("control") is True or meta.get("tom") is False:
        return "control"
    question_type = str(meta.get("question_type") or "")
    if question_type in CONTROL_QUESTION_TYPES or question_type.endswith("_no_tom"):
        return "control"
    if meta.get("story_type") == "true_belief" or meta.get("belief") == "true":
        return "control"
    variant = meta.get("variant")
    if isinstance(variant, str) and variant != "false_belief":
        return "control"
    return None


def sample_role(sample: Sample) -> Role:
    """Whether a sample is a target or a control: its markers, else the engine's reading.

    Without a marker the engine reads the story: a memory or reality question, or a mind
    question whose gold is the real value, is a control. Items the engine cannot read count
    as targets (they ask a mind; nothing says they don't).
    """
    marked = marked_role(sample.meta)
    if marked is not None:
        return marked
    facts = _world_facts(sample)
    if facts.asks in ("memory", "reality"):
        return "control"
    golds = {normalize(g) for g in sample.answer.correct_answers}
    if facts.asks is not None and facts.reality is not None and normalize(facts.reality) in golds:
        return "control"
    return "target"


def is_control(sample: Sample) -> bool:
    """Whether a sample is a control item (:func:`sample_role` says ``control``)."""
    return sample_role(sample) == "control"
