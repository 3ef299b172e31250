"""A command group that imports a subcommand's module only when that subcommand is used.

``tomflywheel --help`` lists every command from the summaries below, so it imports none of
them; ``tomflywheel eval ...`` imports the eval command's module and nothing else's. The same
shape as pip's command table (module, attribute, summary); a test checks that each summary is
the first paragraph of the command's own help. The ``datasets`` group does the same for the
commands whose modules are heavy (``generate`` need not load the config models).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, ClassVar, NamedTuple

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
    command_class: str = ""
    """The module's click command class for it, if not the default."""


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
        "Import, generate, verify and inspect evaluation datasets.",
    ),
    "world": LazyCommand(
        "tomflywheel.cli._world",
        "world_app",
        "The symbolic ToM world engine: check benchmark golds against it.",
    ),
}
"""The root's subcommands, in the order ``--help`` lists them."""

DATASETS_COMMANDS: dict[str, LazyCommand] = {
    "generate": LazyCommand(
        "tomflywheel.cli._generate",
        "generate_command",
        "Generate synthetic ToM samples with the world engine and write them as JSONL.",
        command_class="GenerateCommand",
    ),
    "stats": LazyCommand(
        "tomflywheel.cli._generate",
        "stats_command",
        "Counts and distributions of a dataset (stories, events and targeted rates if traced).",
    ),
    "verify": LazyCommand(
        "tomflywheel.cli._generate",
        "verify_command",
        "Re-derive every sample's answer from its trace with both verifiers; exit 1 on a failure.",
    ),
    "audit": LazyCommand(
        "tomflywheel.cli._audit",
        "audit_command",
        "Score cheap non-ToM heuristics on each file, per question family, against chance.",
    ),
}
"""``datasets`` subcommands listed after the group's own (list, import, export, fetch)."""


class LazyGroup(TyperGroup):
    """A group whose ``lazy`` subcommands are each built when first asked for."""

    lazy: ClassVar[dict[str, LazyCommand]] = COMMANDS

    def list_commands(self, ctx: typer.Context) -> list[str]:
        own = [name for name in super().list_commands(ctx) if name not in self.lazy]
        return [*own, *self.lazy]

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.commands[cmd_name] = self._build(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: typer.Context, formatter: HelpFormatter) -> None:
        """The command list from the summaries, importing no lazy command."""
        rows = [(name, self._summary(name)) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _summary(self, name: str) -> str:
        if name in self.lazy:
            return self.lazy[name].summary
        return " ".join((self.commands[name].help or "").split("\n\n")[0].split())

    def _build(self, name: str) -> Command:
        entry = self.lazy[name]
        module = importlib.import_module(entry.module)
        target = getattr(module, entry.attribute)
        if isinstance(target, typer.Typer):
            return get_group_from_info(
                TyperInfo(target, name=name),
                pretty_exceptions_short=True,
                suggest_commands=True,
                rich_markup_mode=self.rich_markup_mode,
            )
        cls = getattr(module, entry.command_class) if entry.command_class else None
        return get_command_from_info(
            CommandInfo(name=name, callback=target, cls=cls),
            pretty_exceptions_short=True,
            rich_markup_mode=self.rich_markup_mode,
        )


class DatasetsGroup(LazyGroup):
    """The ``datasets`` group: ``generate``, ``stats``, ``verify`` and ``audit`` load when used."""

    lazy = DATASETS_COMMANDS
