"""The ``tomflywheel`` command: each subcommand parses options, calls the library, renders."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from tomflywheel import __version__
from tomflywheel.cli._audit import audit_command
from tomflywheel.cli._common import err, setup_logging
from tomflywheel.cli._datasets import datasets_app
from tomflywheel.cli._eval import eval_command, example_command
from tomflywheel.cli._feedback import feedback_app
from tomflywheel.cli._filter import filter_command
from tomflywheel.cli._flywheel import flywheel_command
from tomflywheel.cli._generate import generate_command, stats_command
from tomflywheel.cli._report import report_app
from tomflywheel.cli._serve import serve
from tomflywheel.cli._train import train_command
from tomflywheel.cli._world import world_app
from tomflywheel.errors import TomflywheelError

app = typer.Typer(
    name="tomflywheel",
    help="Evaluate and improve the Theory-of-Mind reasoning of LLMs served by vLLM.",
    no_args_is_help=True,
    add_completion=False,
    # Locals in tracebacks could show an API key: never print them.
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="More logs (-v info, -vv debug).")
    ] = 0,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Evaluate and improve the Theory-of-Mind reasoning of LLMs served by vLLM."""
    setup_logging(verbose)


app.command("serve")(serve)
app.command("eval")(eval_command)
app.command("flywheel")(flywheel_command)
app.command("example")(example_command)
app.command("train")(train_command)
app.command("filter")(filter_command)
app.add_typer(report_app, name="report")
app.add_typer(feedback_app, name="feedback")
app.add_typer(datasets_app, name="datasets")
app.add_typer(world_app, name="world")
datasets_app.command("generate")(generate_command)
datasets_app.command("stats")(stats_command)
datasets_app.command("audit")(audit_command)


def main() -> None:
    """Entry point: known failures are one red line (exit 1); usage errors exit 2; Ctrl-C 130."""
    try:
        app()  # typer's standalone mode: usage errors exit 2, Ctrl-C exits 130
    except TomflywheelError as error:
        err.print(f"[bold red]error:[/bold red] {escape(str(error))}", highlight=False)
        sys.exit(1)
