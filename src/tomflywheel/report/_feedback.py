"""Terminal tables for the feedback stage: the error profile and the synthesis plan."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table


def error_profile_table(profile: dict[str, Any]) -> Table:
    """Categories per dataset x question type x order, most frequent first."""
    table = Table(
        title=f"Error profile ({profile.get('diagnosed', 0)} diagnosed, "
        f"{profile.get('failed', 0)} undiagnosed)"
    )
    for name, justify in (
        ("dataset", "left"),
        ("question type", "left"),
        ("order", "right"),
        ("n", "right"),
        ("categories", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for cell in profile.get("cells", []):
        categories = ", ".join(f"{k} {v}" for k, v in cell["categories"].items())
        table.add_row(
            escape(cell["dataset"]),
            escape(cell["question_type"]),
            cell["order"],
            str(cell["n"]),
            escape(categories),
        )
    captions = []
    by_diagnoser = profile.get("by_diagnoser") or {}
    if by_diagnoser:
        captions.append("diagnosed by " + ", ".join(f"{k} {v}" for k, v in by_diagnoser.items()))
    own = sum((profile.get("self_diagnosed") or {}).values())
    if own:
        captions.append(
            f"{own} LLM diagnoses by the evaluated model itself, marked (self): counted apart, "
            "not planned from unless feedback.plan_self_diagnoses"
        )
    agreement = profile.get("llm_agreement")
    if agreement:
        captions.append(
            f"LLM cross-check agrees with the symbolic diagnosis on "
            f"{agreement['agree']}/{agreement['n']} ({100 * agreement['rate']:.0f}%)"
        )
    if captions:
        table.caption = "; ".join(captions)
    return table


def plan_table(plan: Any) -> Table:
    """One line per plan item: weakness, generator, parameters, count."""
    table = Table(
        title=f"Synthesis plan {plan.plan_id} (budget {plan.budget}, "
        f"controls {'on' if plan.controls else 'off'})"
    )
    for name in ("weakness", "cases", "generator", "why", "samples"):
        table.add_column(name, justify="right" if name in ("cases", "samples") else "left")
    for item in plan.items:
        table.add_row(
            escape(item.weakness),
            str(item.n_diagnoses),
            item.generator,
            escape(item.why),
            str(item.count),
        )
    return table
