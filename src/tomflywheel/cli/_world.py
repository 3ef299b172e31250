"""``tomflywheel world ...``: re-derive benchmark gold answers with the symbolic world engine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import names_in_help, out

if TYPE_CHECKING:
    from tomflywheel.world import CheckReport, Unparsed

Benchmark = Literal["tomi", "hitom", "tgtom"]
"""``world.Benchmark``, spelt here so the argument's choices need no import at start-up (a test
holds the two equal)."""


def _profiles() -> str:
    # The world engine loads when a command runs, not at start-up (issue 29).
    from tomflywheel.world import PROFILES

    return f"Rule profiles: {', '.join(sorted(PROFILES))}."


world_app = typer.Typer(
    help="The symbolic ToM world engine: check benchmark golds against it.", no_args_is_help=True
)


def _unparsed_runs(records: tuple[Unparsed, ...]) -> list[tuple[Unparsed, int]]:
    """Consecutive records with one line and reason (a ToMi story asked six times) as one."""
    runs: list[tuple[Unparsed, int]] = []
    for record in records:
        if runs and (runs[-1][0].line, runs[-1][0].reason) == (record.line, record.reason):
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((record, 1))
    return runs


def _render_unparsed(report: CheckReport, shown: int) -> None:
    runs = _unparsed_runs(report.unparsed)
    for record, count in runs[:shown]:
        where = f"story line {record.line}" if record.line is not None else "question"
        if record.source_line is not None:
            where += f" (file line {record.source_line})"
        more = f" and the next {count - 1} (same line and reason)" if count > 1 else ""
        out.print(
            f"[bold]unparsed[/bold] {escape(record.sample_id)}{more}, {where}: "
            f"{escape(record.reason)}"
        )
    if len(runs) > shown:
        out.print(f"... and {len(runs) - shown} more unparsed stories or questions")


def _render(report: CheckReport, shown: int) -> None:
    table = Table(title=f"{report.benchmark}: profile {report.profile}")
    table.add_column("question type")
    table.add_column("agree", justify="right")
    table.add_column("total", justify="right")
    table.add_column("rate", justify="right")
    table.add_column("unparsed", justify="right")
    for row in report.rows:
        table.add_row(
            escape(row.qtype), str(row.agree), str(row.total), f"{row.rate:.2%}", str(row.unparsed)
        )
    rate = report.agree / report.total if report.total else 1.0
    table.add_row(
        "[bold]all[/bold]",
        str(report.agree),
        str(report.total),
        f"{rate:.2%}",
        str(len(report.unparsed)),
    )
    out.print(table)
    out.print(
        f"{report.questions} questions: {report.total} parsed, {len(report.unparsed)} unparsed; "
        f"{report.agree} agreeing, {report.total - report.agree} disagreeing"
    )
    _render_unparsed(report, shown)
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


@world_app.command("check", cls=names_in_help(_profiles))
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
        typer.Option(help="Rule profile (listed below); default: the benchmark's own."),
    ] = None,
    max_mismatches: Annotated[
        int,
        typer.Option(
            min=0,
            help="Exit 0 only when mismatches + unparsed questions + verifier disagreements "
            "are at most this many (and at least one question parsed).",
        ),
    ] = 0,
    show: Annotated[
        int, typer.Option(min=0, help="List at most this many mismatches and unparsed stories.")
    ] = 50,
) -> None:
    """Import a benchmark, re-derive every answer from its stories, and compare with its golds.

    A story or question the engine cannot parse is counted as unparsed (listed with its line
    and reason) and the check goes on; an unparsed question counts toward --max-mismatches, as
    a gold the engine did not reproduce.
    """
    # The importers (openai under them) load when a command runs, not at start-up (issue 29).
    from tomflywheel.datasets import load_all_splits
    from tomflywheel.world import check_samples  # on use (start-up time)

    samples = load_all_splits(benchmark, path)
    report = check_samples(benchmark, samples, profile=profile)
    _render(report, show)
    failures = len(report.mismatches) + len(report.verifier_disagreements) + len(report.unparsed)
    if failures > max_mismatches or report.total == 0:
        raise typer.Exit(1)
