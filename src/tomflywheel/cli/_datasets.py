"""``tomflywheel datasets ...``: list the registered datasets and import benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import out, status
from tomflywheel.datasets import ImportSummary, import_dataset, list_datasets

datasets_app = typer.Typer(
    help="Import, generate and inspect evaluation datasets.", no_args_is_help=True
)


@datasets_app.command("list")
def list_command() -> None:
    """Show every dataset: prompt kind, default judge, metric groupings, importer options."""
    table = Table(title="datasets")
    for column in ("dataset", "description", "kind", "judge", "groupings", "all correct by"):
        # Names and kinds stay on one line; free text wraps.
        table.add_column(column, no_wrap=column in ("dataset", "kind", "judge", "all correct by"))
    table.add_column("import options")
    for row in list_datasets():
        groupings = ", ".join(" x ".join(group) for group in row.groupings) or "-"
        if row.trial_fields:
            groupings += f"; by value: {', '.join(row.trial_fields)}"
        if row.excludable_question_types:
            groupings += f"; excludable: {', '.join(row.excludable_question_types)}"
        options = ", ".join(
            f"--{o.name.replace('_', '-')}"
            + (f" {'|'.join(o.choices)}" if o.choices else "")
            + (f" (default {o.default})" if o.choices else "")
            for o in row.options
        )
        importer = options or ("-" if row.importer else "(no importer)")
        table.add_row(
            escape(row.name),
            escape(row.description),
            row.prompt_kind,
            row.judge,
            escape(groupings),
            row.all_correct_by or "-",
            escape(importer),
        )
    out.print(table)


def _render(summary: ImportSummary) -> None:
    out.print(
        f"[bold]{summary.count}[/bold] samples of [bold]{escape(summary.dataset)}[/bold] "
        f"written to [bold]{escape(str(summary.out))}[/bold]"
    )
    if summary.units is not None:
        out.print(f"{summary.units} units scored together (all must be right)")
    for field, counts in summary.counts.items():
        table = Table(title=f"by {field}", show_header=True)
        table.add_column(field, overflow="fold")
        table.add_column("samples", justify="right")
        for value, count in counts.items():
            table.add_row(escape(value), str(count))
        out.print(table)


@datasets_app.command("import")
def import_command(
    name: Annotated[str, typer.Argument(help="Importer name (see `tomflywheel datasets list`).")],
    path: Annotated[
        Path, typer.Argument(help="The benchmark's own file or folder (nothing is downloaded).")
    ],
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Output file (default: datasets/<dataset>[_<option>].jsonl)."
        ),
    ] = None,
    split: Annotated[
        Literal["train", "val", "test"] | None, typer.Option(help="ToMi: split to read.")
    ] = None,
    language: Annotated[
        Literal["en", "zh"] | None, typer.Option(help="ToMBench, EmoBench: language.")
    ] = None,
    context: Annotated[
        Literal["short", "full"] | None,
        typer.Option(help="FANToM: short or full conversation as context."),
    ] = None,
    include_fact: Annotated[
        bool | None,
        typer.Option("--include-fact/--no-include-fact", help="FANToM: also the fact questions."),
    ] = None,
    prompting: Annotated[
        Literal["CoTP", "VP"] | None, typer.Option(help="Hi-ToM: whose gold answers to use.")
    ] = None,
    narrative: Annotated[
        Literal["normal", "long"] | None,
        typer.Option(help="OpenToM: the normal stories or the 100 long narratives."),
    ] = None,
    mapping: Annotated[
        Path | None, typer.Option(help="Generic importer: the YAML mapping of the fields.")
    ] = None,
) -> None:
    """Import a benchmark from its own files into a normalized JSONL dataset (all or nothing)."""
    given: dict[str, Any] = {
        "split": split,
        "language": language,
        "context": context,
        "include_fact": include_fact,
        "prompting": prompting,
        "narrative": narrative,
        "mapping": mapping,
    }
    status(f"importing {name} from {path}")
    summary = import_dataset(
        name,
        path,
        out=out_path,
        **{key: value for key, value in given.items() if value is not None},
    )
    _render(summary)
