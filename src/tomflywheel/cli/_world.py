"""``tomflywheel world ...``: re-derive benchmark gold answers with the symbolic world engine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import out
from tomflywheel.datasets import load_all_splits
from tomflywheel.world import PROFILES, Benchmark, CheckReport, check_samples

world_app = typer.Typer(
    help="The symbolic ToM world engine: check benchmark golds against it.", no_args_is_help=True
)


def _render(report: CheckReport, shown: int) -> None:
    table = Table(title=f"{report.benchmark}: profile {report.profile}")
    table.add_column("question type")
    table.add_column("agree", justify="right")
    table.add_column("total", justify="right")
    table.add_column("rate", justify="right")
    for row in report.rows:
        table.add_row(escape(row.qtype), str(row.agree), str(row.total), f"{row.rate:.2%}")
    rate = report.agree / report.total if report.total else 1.0
    table.add_row("[bold]all[/bold]", str(report.agree), str(report.total), f"{rate:.2%}")
    out.print(table)
    if report.verifier_disagreements:
        out.print(
            f"[bold red]{len(report.verifier_disagreements)} verifier disagreements[/bold red]"
        )
        for line in report.verifier_disagreements[:shown]:
            out.print(f"  {escape(line)}")
    for mismatch in report.mismatches[:shown]:
        out.print(
            f"[bold]{escape(mismatch.story_id)}[/bold] {escape(mismatch.qtype)}: "
            f"{escape(mismatch.question)}\n  gold {escape(mismatch.gold)}, derived "
            f"{escape(mismatch.derived)}; {escape(mismatch.cause)}"
        )
    if len(report.mismatches) > shown:
        out.print(f"... and {len(report.mismatches) - shown} more mismatches")


@world_app.command("check")
def check_command(
    benchmark: Annotated[
        Benchmark, typer.Argument(help="Which benchmark the files are: tomi, hitom or tgtom.")
    ],
    path: Annotated[
        Path,
        typer.Argument(
            help="ToMi: a .txt file or a folder of splits; Hi-ToM: Hi-ToM_data.json; "
            "tgtom: the folder of the five *_v10.jsonl files."
        ),
    ],
    profile: Annotated[
        str | None,
        typer.Option(
            help=f"Rule profile ({', '.join(sorted(PROFILES))}); default: the benchmark's own."
        ),
    ] = None,
    max_mismatches: Annotated[
        int, typer.Option(min=0, help="Exit 0 only when there are at most this many mismatches.")
    ] = 0,
    show: Annotated[int, typer.Option(min=0, help="List at most this many mismatches.")] = 50,
) -> None:
    """Import a benchmark, re-derive every answer from its stories, and compare with its golds."""
    samples = load_all_splits(benchmark, path)
    report = check_samples(benchmark, samples, profile=profile)
    _render(report, show)
    failures = len(report.mismatches) + len(report.verifier_disagreements)
    if failures > max_mismatches:
        raise typer.Exit(1)
