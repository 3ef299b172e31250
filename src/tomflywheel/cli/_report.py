"""``tomflywheel report``: summaries across experiments and models, and experiment reports."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tomflywheel.cli._common import out

report_app = typer.Typer(
    help="Tables and HTML reports from experiment folders.", no_args_is_help=True
)


@report_app.command("summary")
def summary_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Experiment folders, flywheel run folders (runs/<id>), or folders of them."
        ),
    ],
    html: Annotated[
        Path | None, typer.Option(help="Also write a model-comparison HTML page.")
    ] = None,
    csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
) -> None:
    """Compare experiments, models and flywheel rounds: overall accuracy per dataset."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.report import summarize, summary_csv, summary_table, write_summary_html

    rows = summarize(paths)
    if csv:
        out.print(summary_csv(rows), end="", markup=False, highlight=False)
    else:
        out.print(summary_table(rows))
    if html is not None:
        out.print(f"written: {write_summary_html(rows, html)}")


@report_app.command("build")
def build_command(
    exp_dir: Annotated[Path, typer.Argument(help="An experiment folder (results/<exp_id>).")],
) -> None:
    """Rewrite an experiment's tables/ and report.html from its artifacts (no request)."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.artifacts import Experiment
    from tomflywheel.report import write_experiment_report  # on use (start-up time)

    files = write_experiment_report(Experiment(exp_dir))
    out.print(f"written {len(files)} files; report: {exp_dir / 'report.html'}")
