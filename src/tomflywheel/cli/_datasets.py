"""``tomflywheel datasets ...``: list the registered datasets, fetch and import benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import out, progress, status
from tomflywheel.cli._lazy import DatasetsGroup

if TYPE_CHECKING:
    from tomflywheel.datasets import FetchSummary, ImportSummary

ENV_FETCH_BASE_URL = "TOMFLYWHEEL_FETCH_BASE_URL"
"""``datasets.ENV_FETCH_BASE_URL``, spelt here so the option's help needs no import (a test
holds the two equal)."""

datasets_app = typer.Typer(
    help="Import, generate, verify and inspect evaluation datasets.",
    no_args_is_help=True,
    # The commands of ``_lazy.DATASETS_COMMANDS`` import their modules when used.
    cls=DatasetsGroup,
)


FetchDirOption = Annotated[
    Path | None,
    typer.Option(
        "--to",
        file_okay=False,
        help="Folder of fetched benchmark files (default: <cache>/benchmarks).",
    ),
]


def _data_status(fetched: bool | None, imported: bool) -> str:
    fetch = {None: "no source", True: "fetched", False: "not fetched"}[fetched]
    return f"{fetch}, imported" if imported else fetch


_WIDE = 160
"""Below this many columns ``datasets list`` prints a compact table and the details as text."""


def _details(row: Any) -> tuple[str, str]:
    """A dataset's groupings and import options, in words."""
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
    return groupings, options or ("-" if row.importer else "(no importer)")


@datasets_app.command("list")
def list_command(to: FetchDirOption = None) -> None:
    """Show every dataset: kind, judge, groupings, import options, fetched / imported."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.datasets import list_datasets

    rows = list_datasets(fetch_dir=to)
    wide = out.width >= _WIDE
    table = Table(title="datasets")
    columns = (
        ("dataset", "description", "kind", "judge", "groupings", "all correct by")
        if wide
        else ("dataset", "kind", "judge")
    )
    for column in columns:
        # Names and kinds stay on one line; free text wraps.
        table.add_column(column, no_wrap=column in ("dataset", "kind", "judge", "all correct by"))
    if wide:
        table.add_column("import options")
    table.add_column("data", no_wrap=not wide)
    for row in rows:
        groupings, importer = _details(row)
        data = _data_status(row.fetched, row.imported)
        if wide:
            cells = (
                escape(row.description),
                row.prompt_kind,
                row.judge,
                escape(groupings),
                row.all_correct_by or "-",
                escape(importer),
            )
        else:
            cells = (row.prompt_kind, row.judge)
        table.add_row(escape(row.name), *cells, data)
    out.print(table)
    if wide:
        return
    # A narrow terminal cut eight columns to a letter each: the free text goes below instead.
    for row in rows:
        groupings, importer = _details(row)
        out.print(
            f"[bold]{escape(row.name)}[/bold]: {escape(row.description)}\n"
            f"  groupings: {escape(groupings)}\n"
            f"  all correct by: {row.all_correct_by or '-'} · import options: {escape(importer)}",
            soft_wrap=False,
        )


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
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.datasets import import_dataset

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


@datasets_app.command("export")
def export_command(
    path: Annotated[
        Path,
        typer.Argument(
            exists=True, dir_okay=False, help="A dataset JSONL file (e.g. admitted training data)."
        ),
    ],
    to: Annotated[
        Path,
        typer.Option(
            "--to", help="hf: the dataset folder to create; parquet: the folder of the file."
        ),
    ],
    fmt: Annotated[
        Literal["hf", "parquet"],
        typer.Option("--format", help="hf: a `datasets` folder (load_from_disk); parquet."),
    ] = "hf",
) -> None:
    """Export a dataset as a Hugging Face dataset folder or Parquet, its card along."""
    # The datasets layer (and pyarrow under the export) loads when the command runs.
    from tomflywheel.datasets import export_dataset

    status(f"exporting {path} as {fmt}")
    summary = export_dataset(path, fmt=fmt, to=to)
    out.print(
        f"[bold]{summary.samples}[/bold] samples written to "
        f"[bold]{escape(str(summary.path))}[/bold]"
        + (f"; card {escape(str(summary.card))}" if summary.card else "; no card beside the file")
        + (f"; label changes {escape(str(summary.changes))}" if summary.changes else "")
    )


def _render_fetch(summary: FetchSummary) -> None:
    source = summary.source
    counts: dict[str, int] = {}
    for fetched in summary.files:
        counts[fetched.status] = counts.get(fetched.status, 0) + 1
    done = ", ".join(f"{n} {status}" for status, n in counts.items())
    out.print(
        f"[bold]{len(summary.files)}[/bold] files of [bold]{escape(source.name)}[/bold] "
        f"verified in [bold]{escape(str(summary.folder))}[/bold] ({done})"
    )
    out.print(f"source: {escape(source.origin)}")
    out.print(f"license: {escape(source.license)}")
    if source.evaluation_only:
        out.print(f"[bold yellow]evaluation only:[/bold yellow] {escape(source.evaluation_only)}")
    if summary.imported is not None:
        _render(summary.imported)
    else:
        path = summary.folder / source.import_path
        out.print(f"import with: tomflywheel datasets import {source.name} {escape(str(path))}")


@datasets_app.command("fetch")
def fetch_command(
    name: Annotated[str, typer.Argument(help="Dataset name (see `tomflywheel datasets list`).")],
    to: FetchDirOption = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="Fetch from <URL>/<relative path> instead of the public URLs (a mirror).",
            envvar=ENV_FETCH_BASE_URL,
        ),
    ] = None,
    datasets_dir: Annotated[
        Path, typer.Option(file_okay=False, help="Where the import writes <name>.jsonl.")
    ] = Path("datasets"),
    run_import: Annotated[
        bool, typer.Option("--import/--no-import", help="Import the files once verified.")
    ] = True,
) -> None:
    """Download a benchmark's pinned files (sha256-verified, resumable), then import them."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.datasets import default_fetch_dir, fetch_dataset, get_source

    source = get_source(name)
    folder = to if to is not None else default_fetch_dir()
    status(f"fetching {name} from {source.origin} into {folder}")
    with progress(f"fetch {name}", fields=("file",)) as update:
        summary = fetch_dataset(
            name,
            to=folder,
            base_url=base_url,
            on_progress=lambda done, total, path: update(done, total, file=path),
            datasets_dir=datasets_dir,
            run_import=run_import,
        )
    _render_fetch(summary)
