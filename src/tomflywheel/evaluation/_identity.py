"""Which model judged and which was evaluated: a judge grading itself is flagged."""

from __future__ import annotations

from typing import Any

from tomflywheel.config import Settings
from tomflywheel.schema import Judgment


def evaluated_model(settings: Settings) -> str:
    """The evaluated model's name (the embedded server's model folder or served name)."""
    if settings.server == "embedded":
        return str(settings.embedded.model or settings.embedded.served_model_name)
    return settings.llm.model or "(unnamed)"


def judge_identity(settings: Settings, judgments: list[Judgment]) -> dict[str, Any] | None:
    """Judge model vs evaluated model, when an LLM judge was asked about any item.

    Returns:
        ``{"evaluated_model", "judge_model", "same", "asked"}`` (``asked``: items on which the
        LLM judge was consulted), or ``None`` when no LLM judge was asked.
    """
    asked = sum(j.judge_verdict is not None or j.match_type == "judge" for j in judgments)
    if not asked:
        return None
    evaluated = evaluated_model(settings)
    judge = settings.judge.llm.model if settings.judge.llm and settings.judge.llm.model else None
    judge = judge or evaluated
    return {
        "evaluated_model": evaluated,
        "judge_model": judge,
        "same": judge == evaluated,
        "asked": asked,
    }
