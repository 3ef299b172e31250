"""``tomflywheel datasets audit``: which shortcuts answer a set, per question family."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import out
from tomflywheel.config import AuditSettings
from tomflywheel.schema import read_samples

if TYPE_CHECKING:
    from tomflywheel.audit import AuditReport

_DEFAULTS = AuditSettings()


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def audit_tables(report: AuditReport, path: str) -> list[Table]:
    """One table per question family: each heuristic's accuracy [95% interval] and flag."""
    tables = []
    for family, n in report.families.items():
        rows = [row for row in report.rows if row.family == family]
        chance = next((row.chance for row in rows if row.chance is not None), None)
        note = "" if all(row.asks_mind for row in rows) else " · world question: never flagged"
        table = Table(
            title=f"{escape(path)} · {escape(family)}: {n} items, chance {_percent(chance)}%{note}",
            title_justify="left",
        )
        for column in ("heuristic", "n", "accuracy %", "95% CI", ""):
            table.add_column(column, justify="right" if column in ("n", "accuracy %") else "left")
        for row in rows:
            interval = (
                f"{_percent(row.ci95[0])}-{_percent(row.ci95[1])}" if row.ci95 is not None else "-"
            )
            flag = "[bold red]above chance[/bold red]" if row.flagged else ""
            table.add_row(row.heuristic, str(row.n), _percent(row.accuracy), interval, flag)
        tables.append(table)
    return tables


def audit_command(
    files: Annotated[list[Path], typer.Argument(help="Normalized JSONL files to audit.")],
    margin: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Flag heuristics this far above chance.")
    ] = _DEFAULTS.margin,
    min_items: Annotated[
        int, typer.Option(min=1, help="Never flag a family with fewer items.")
    ] = _DEFAULTS.min_items,
    probe: Annotated[
        bool, typer.Option("--probe/--no-probe", help="Fit the learned surface probe.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    against: Annotated[
        list[Path] | None,
        typer.Option(
            "--against",
            help="Sets the audited data is measured on: report where their surface differs "
            "(line numbers, answer format, prompt length). Repeatable.",
        ),
    ] = None,
) -> None:
    """Score cheap non-ToM heuristics on each file, per question family, against chance.

    With ``--against``, also compare each file's surface with the sets it is measured on.
    """
    # The audit (openai under it, through the prompts) loads on use, not at start-up (issue 29).
    from tomflywheel.audit import audit_samples, surface_gaps, surface_profile

    reports = {
        str(path): audit_samples(
            read_samples(path), margin=margin, min_items=min_items, probe=probe
        )
        for path in files
    }
    measured = {str(path): surface_profile(read_samples(path)) for path in against or []}
    surfaces = {str(path): surface_profile(read_samples(path)) for path in files}
    gaps = {
        path: surface_gaps(profile, {k: v for k, v in measured.items() if v is not None})
        for path, profile in surfaces.items()
        if profile is not None and measured
    }
    if as_json:
        found = {path: r.to_dict() for path, r in reports.items()}
        for path, profile in surfaces.items():
            if measured and profile is not None:
                found[path]["surface"] = {"profile": profile.as_dict(), "gaps": gaps[path]}
        out.print_json(json.dumps(found))
        return
    for path, report in reports.items():
        for table in audit_tables(report, path):
            out.print(table)
        flagged = report.flagged()
        summary = (
            f"[bold red]{len(flagged)} shortcut(s) above chance + {report.margin:.0%}[/bold red]"
            if flagged
            else f"no shortcut above chance + {report.margin:.0%}"
        )
        out.print(summary)
        for gap in gaps.get(path, []):
            out.print(f"[bold yellow]surface differs[/bold yellow] from {escape(gap)}")
        if path in gaps and not gaps[path]:
            out.print("surface: as the sets it is measured on")
