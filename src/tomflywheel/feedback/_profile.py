"""The error profile: diagnoses counted by category within dataset x question type x order."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from tomflywheel.schema import Diagnosis


def _cross_checks(diagnoses: Sequence[Diagnosis]) -> tuple[int, int]:
    """(cases the LLM cross-checked, cases where it agreed with the engine)."""
    checked = [d for d in diagnoses if d.cross_check is not None and d.category is not None]
    return len(checked), sum(d.cross_check == d.category for d in checked)


def diagnoser_calibration(
    diagnoses: Sequence[Diagnosis], *, min_agreement: float, min_cases: int
) -> dict[str, Any]:
    """How far the LLM diagnoser can be trusted, from the cases the engine also diagnosed.

    Returns ``n`` (cross-checked cases), ``agree``, ``rate``, ``min_agreement`` and ``status``:
    ``passed``, ``failed`` (agrees on less than ``min_agreement``) or ``uncalibrated`` (fewer
    than ``min_cases`` cross-checks), as for the LLM judge against certain rule verdicts.
    """
    n, agree = _cross_checks(diagnoses)
    rate = agree / n if n else None
    if n < min_cases or rate is None:
        status = "uncalibrated"
    else:
        status = "passed" if rate >= min_agreement else "failed"
    return {
        "n": n,
        "agree": agree,
        "rate": None if rate is None else round(rate, 4),
        "min_agreement": min_agreement,
        "status": status,
    }


def error_profile(diagnoses: Sequence[Diagnosis]) -> dict[str, Any]:
    """Aggregate diagnoses; plain JSON-able data, cells sorted for stable output.

    Returns:
        ``total``, ``diagnosed`` (with a category), ``failed``, ``by_category`` (independent
        diagnoses only), ``by_method``,
        ``cells`` (one per dataset x question type x order, with category counts),
        ``llm_agreement`` (symbolic vs LLM category on the cross-checked cases, if any),
        ``by_diagnoser`` (diagnoses per model; ``symbolic`` for the engine's) and
        ``self_diagnosed`` (the evaluated model's diagnoses of itself, by category: counted
        apart, since a model explaining its own mistakes is no independent finding).
    """
    cells: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    for d in diagnoses:
        key = (d.dataset, d.question_type or "–", "–" if d.order is None else str(d.order))
        name = d.category.value if d.category else "undiagnosed"
        cells[key][f"{name} (self)" if d.by_evaluated_model else name] += 1
    checked, agree = _cross_checks(diagnoses)
    return {
        "total": len(diagnoses),
        "diagnosed": sum(d.category is not None for d in diagnoses),
        "failed": sum(d.category is None for d in diagnoses),
        "by_category": dict(
            Counter(
                d.category.value for d in diagnoses if d.category and not d.by_evaluated_model
            ).most_common()
        ),
        "by_method": dict(sorted(Counter(d.method for d in diagnoses).items())),
        "by_reason": dict(sorted(Counter(d.reason for d in diagnoses).items())),
        "by_diagnoser": dict(sorted(Counter(d.diagnoser or "symbolic" for d in diagnoses).items())),
        "self_diagnosed": dict(
            Counter(
                d.category.value for d in diagnoses if d.category and d.by_evaluated_model
            ).most_common()
        ),
        "cells": [
            {
                "dataset": dataset,
                "question_type": question_type,
                "order": order,
                "n": sum(counts.values()),
                "categories": dict(counts.most_common()),
            }
            for (dataset, question_type, order), counts in sorted(cells.items())
        ],
        "llm_agreement": (
            {"n": checked, "agree": agree, "rate": round(agree / checked, 4)} if checked else None
        ),
    }
