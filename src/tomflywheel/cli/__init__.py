"""The ``tomflywheel`` command: each subcommand parses options, calls the library, renders."""

from __future__ import annotations

import json
import sys
import traceback
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.markup import escape

from tomflywheel import __version__
from tomflywheel.cli._common import err, setup_logging
from tomflywheel.cli._lazy import LazyGroup
from tomflywheel.errors import TomflywheelError, UserInputError

if TYPE_CHECKING:
    import yaml

app = typer.Typer(
    name="tomflywheel",
    help="Evaluate and improve the Theory-of-Mind reasoning of LLMs served by vLLM.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    # Subcommands (``_lazy.COMMANDS``) import their modules when used: ``--help`` starts at once.
    cls=LazyGroup,
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
    _state["verbose"] = verbose
    setup_logging(verbose)


_state = {"verbose": 0}
"""The root's ``-v`` count, for ``main`` (which runs outside the command)."""


def _fail(message: str, code: int) -> NoReturn:
    """One red line on stderr (the traceback before it with ``-v``), then exit ``code``."""
    if _state["verbose"]:
        traceback.print_exc()
    err.print(f"[bold red]error:[/bold red] {escape(message)}", highlight=False)
    sys.exit(code)


def _is_yaml_error(error: Exception) -> bool:
    """Whether PyYAML raised it: never, when no command imported PyYAML (most read no YAML)."""
    yaml = sys.modules.get("yaml")
    return yaml is not None and isinstance(error, yaml.YAMLError)


def _parse_error(error: yaml.YAMLError | json.JSONDecodeError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"invalid JSON at line {error.lineno}: {error.msg}"
    mark = getattr(error, "problem_mark", None)
    where = f" at line {mark.line + 1}" if mark is not None else ""
    return f"invalid YAML{where}: {getattr(error, 'problem', None) or error}"


def main(argv: list[str] | None = None) -> None:
    """Entry point: the one place that turns failures into one line and an exit code.

    Exit 2, as for a bad flag, when the command could not start on what the user gave: a path
    that is missing, unreadable or the wrong kind (``OSError`` naming a file), an unknown name
    or key (``UserInputError``), a YAML or JSON file that does not parse. Exit 1 for any other
    known failure (``TomflywheelError``: bad data, a dead server). Typer handles its own usage
    errors (exit 2) and Ctrl-C (130). With ``-v`` the traceback is printed before the line; any
    other exception is a bug and shows its traceback.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).
    """
    _state["verbose"] = 0
    try:
        app(args=argv, prog_name="tomflywheel")
    except UserInputError as error:
        _fail(str(error), 2)
    except TomflywheelError as error:
        _fail(str(error), 1)
    except OSError as error:
        if error.filename is None:
            raise
        # Of a rename (an atomic write's temp file -> the target), the target is the user's path.
        path = error.filename2 if error.filename2 is not None else error.filename
        _fail(f"{path}: {error.strerror or error}", 2)
    except json.JSONDecodeError as error:
        _fail(_parse_error(error), 2)
    except Exception as error:
        if not _is_yaml_error(error):
            raise
        _fail(_parse_error(error), 2)
