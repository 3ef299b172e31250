"""Every command of the CLI, built as a user's call would build it (subcommands load lazily)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer
from typer.core import TyperGroup

from tomflywheel.cli import app


def walk(command=None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """``(path, command)`` for the root and every command under it, depth first."""
    command = command if command is not None else typer.main.get_command(app)
    yield path, command
    if isinstance(command, TyperGroup):
        ctx = typer.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            yield from walk(sub, (*path, name))
