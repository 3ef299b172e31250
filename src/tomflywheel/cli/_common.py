"""What every command shares: consoles, logging set-up, and one way to report known failures."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.logging import RichHandler

from tomflywheel.config import DEFAULT_CONFIG, Settings, load_settings

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


def load(config: Path | None) -> Settings:
    """Load the config file (the default one when none is given)."""
    return load_settings(config or DEFAULT_CONFIG)


def status(message: str) -> None:
    """A one-line status message on stderr."""
    err.print(f"[dim]{message}[/dim]")
