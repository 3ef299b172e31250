"""What every command shares: consoles, logging set-up, and one way to report known failures."""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.logging import RichHandler
from typer.core import TyperCommand

from tomflywheel.progress import Update

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tomflywheel.config import Settings

# pydantic and the config models load in the commands that use them, not for ``--help``.
M = TypeVar("M", bound="BaseModel")

out = Console(soft_wrap=True)
"""Results go to stdout."""
err = Console(stderr=True, soft_wrap=True)
"""Progress, status and logs go to stderr."""

ConfigOption = Annotated[
    Path,
    typer.Option("--config", "-c", help="YAML config file (see configs/)."),
]


def setup_logging(verbose: int) -> None:
    """Log to stderr through rich: warnings by default, info with -v, debug with -vv."""
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=level,
        format="%(message)s",
        handlers=[RichHandler(console=err, show_path=False, rich_tracebacks=False)],
        force=True,
    )
    # instructor logs every re-ask as an error; our failure records carry that information.
    logging.getLogger("instructor").setLevel(logging.CRITICAL if verbose < 2 else logging.DEBUG)
    for noisy in ("httpx", "httpx2", "openai"):
        logging.getLogger(noisy).setLevel(logging.WARNING if verbose < 2 else logging.DEBUG)


class ExecutorChoice(enum.StrEnum):
    """Values of ``--executor``."""

    local = "local"
    ray = "ray"


ExecutorOption = Annotated[
    ExecutorChoice | None,
    typer.Option(
        "--executor",
        help="Where synthesis, the filter's per-sample work and evaluation requests run: "
        "local or ray "
        "(default: executor in the config; ray settings: the config's ray section).",
    ),
]


def load(config: Path | None, executor: ExecutorChoice | None = None) -> Settings:
    """Load the config file (the default one when none is given); ``--executor`` overrides.

    The default path is relative to the working folder; where it is absent the package's own
    copy is read, and a status line says so. Any other path must exist.
    """
    # pydantic's config models load here, when a command runs, not for ``--help``.
    from tomflywheel.config import BUILTIN_CONFIG, DEFAULT_CONFIG, load_settings

    path = config or DEFAULT_CONFIG
    if path == DEFAULT_CONFIG and not path.exists():
        status(f"no {DEFAULT_CONFIG} in {Path.cwd()}: using the built-in defaults")
        path = BUILTIN_CONFIG
    settings = load_settings(path)
    if executor is not None:
        settings = settings.model_copy(update={"executor": executor.value})
    return settings


def names_in_help(names: Callable[[], str]) -> type[TyperCommand]:
    """A command class whose help ends with ``names()``, called only when help is shown.

    For names read from a registry that start-up should not import (``world``: generators,
    rule profiles), so that ``--help`` of other commands stays fast (issue 29).
    """

    class _Command(TyperCommand):
        @property  # type: ignore[override]
        def epilog(self) -> str:
            return names()

        @epilog.setter
        def epilog(self, value: str | None) -> None:
            """Ignored: the epilog is always ``names()``."""

    return _Command


def status(message: str) -> None:
    """A one-line status message on stderr."""
    err.print(f"[dim]{message}[/dim]")


@contextlib.contextmanager
def progress(
    description: str, *, skipped: int = 0, fields: Sequence[str] = ()
) -> Iterator[Callable[..., None]]:
    """A rich progress bar on stderr; yields ``(done, total, **fields)`` that moves it."""
    # The report package brings the stages' artifacts (and openai through them): a command
    # pays for it when it draws a bar, not ``--help`` (start-up time, issue 29).
    from tomflywheel.report import progress_bar

    with progress_bar(description, console=err, skipped=skipped, fields=fields) as update:
        yield update


@contextlib.contextmanager
def rich_progress(description: str, *, skipped: int) -> Iterator[Update]:
    """A rich progress bar per stage and dataset, on stderr (a ``ProgressFactory``)."""
    with progress(description, skipped=skipped) as update:
        yield update


def _given(flags: Mapping[str, Any]) -> dict[str, Any]:
    """The flags given on the command line (``None`` is "not given"), nested dicts included."""
    given: dict[str, Any] = {}
    for key, value in flags.items():
        if isinstance(value, Mapping):
            value = _given(value)
            if not value:
                continue
        if value is not None:
            given[key] = value
    return given


def _merge(data: dict[str, Any], updates: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in updates.items():
        if isinstance(value, Mapping) and isinstance(data.get(key), dict):
            _merge(data[key], value)
        else:
            data[key] = value
    return data


def with_flags(model: M, flags: Mapping[str, Any]) -> M:
    """A settings section with the command-line flags that were given set, validated.

    A flag left at ``None`` keeps the config's value; a dict of flags sets fields of a nested
    section (``{"lora": {"rank": 8}}``).

    Raises:
        typer.BadParameter: A flag's value is not valid for its field.
    """
    from pydantic import ValidationError  # with the config models: not for ``--help``

    given = _given(flags)
    if not given:
        return model
    try:
        return type(model).model_validate(_merge(model.model_dump(), given))
    except ValidationError as error:
        raise typer.BadParameter(str(error)) from error
