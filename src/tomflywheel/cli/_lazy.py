"""A command group that imports a subcommand's module only when that subcommand is used.

``tomflywheel --help`` lists every command from the summaries below, so it imports none of
them; ``tomflywheel eval ...`` imports the eval command's module and nothing else's. The same
shape as pip's command table (module, attribute, summary); a test checks that each summary is
the first paragraph of the command's own help.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

import typer
from typer.core import TyperGroup
from typer.main import get_command_from_info, get_group_from_info
from typer.models import CommandInfo, TyperInfo

if TYPE_CHECKING:
    # Typer carries its own copy of click: its types, not the ``click`` package's.
    from typer._click import Command, HelpFormatter


class LazyCommand(NamedTuple):
    """Where a subcommand lives and the line ``--help`` shows for it."""

    module: str
    attribute: str
    summary: str


COMMANDS: dict[str, LazyCommand] = {
    "serve": LazyCommand(
        "tomflywheel.cli._serve",
        "serve",
        "Start a vLLM OpenAI-compatible server, print its base URL, and stop it on Ctrl-C.",
    ),
    "eval": LazyCommand(
        "tomflywheel.cli._eval",
        "eval_command",
        "Predict, judge, score and report the configured (or given) datasets; resumable.",
    ),
    "flywheel": LazyCommand(
        "tomflywheel.cli._flywheel",
        "flywheel_command",
        "Evaluate, diagnose, synthesize, filter and admit, round after round (resumable).",
    ),
    "example": LazyCommand(
        "tomflywheel.cli._eval",
        "example_command",
        "Run one example: print the prompt, the model's output, the parse and the verdict.",
    ),
    "train": LazyCommand(
        "tomflywheel.cli._train",
        "train_command",
        "Fine-tune a causal LM on training samples, prompted as the evaluation prompts them.",
    ),
    "filter": LazyCommand(
        "tomflywheel.cli._filter",
        "filter_command",
        "Check, verify, deduplicate, repair and admit training data; resumable, never twice.",
    ),
    "report": LazyCommand(
        "tomflywheel.cli._report", "report_app", "Tables and HTML reports from experiment folders."
    ),
    "feedback": LazyCommand(
        "tomflywheel.cli._feedback",
        "feedback_app",
        "Diagnose bad cases of an experiment and synthesize targeted training candidates.",
    ),
    "datasets": LazyCommand(
        "tomflywheel.cli._datasets",
        "datasets_app",
        "Import, generate and inspect evaluation datasets.",
    ),
    "world": LazyCommand(
        "tomflywheel.cli._world",
        "world_app",
        "The symbolic ToM world engine: check benchmark golds against it.",
    ),
}
"""The root's subcommands, in the order ``--help`` lists them."""


class LazyGroup(TyperGroup):
    """The root group: subcommands from ``COMMANDS``, each built when first asked for."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return [*COMMANDS, *(n for n in super().list_commands(ctx) if n not in COMMANDS)]

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = self._build(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: typer.Context, formatter: HelpFormatter) -> None:
        """The command list from the summaries, importing no command."""
        rows = [
            (name, COMMANDS[name].summary if name in COMMANDS else self.commands[name].help or "")
            for name in self.list_commands(ctx)
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _build(self, name: str) -> Command:
        entry = COMMANDS[name]
        target = getattr(importlib.import_module(entry.module), entry.attribute)
        if isinstance(target, typer.Typer):
            return get_group_from_info(
                TyperInfo(target, name=name),
                pretty_exceptions_short=True,
                suggest_commands=True,
                rich_markup_mode=self.rich_markup_mode,
            )
        return get_command_from_info(
            CommandInfo(name=name, callback=target),
            pretty_exceptions_short=True,
            rich_markup_mode=self.rich_markup_mode,
        )
