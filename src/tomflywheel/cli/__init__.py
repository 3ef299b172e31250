"""The ``tomflywheel`` command: each subcommand parses options, calls the library, renders."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from tomflywheel import __version__
from tomflywheel.cli._common import err, setup_logging
from tomflywheel.cli._serve import serve
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


def main() -> None:
    """Entry point: known failures are one red line (exit 1); usage errors exit 2; Ctrl-C 130."""
    try:
        app()  # typer's standalone mode: usage errors exit 2, Ctrl-C exits 130
    except TomflywheelError as error:
        err.print(f"[bold red]error:[/bold red] {escape(str(error))}", highlight=False)
        sys.exit(1)
