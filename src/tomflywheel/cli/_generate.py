"""``datasets generate``, ``stats`` and ``verify``: synthetic samples, figures, re-derivation."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel._cpus import available_cpus
from tomflywheel._io import read_text
from tomflywheel.cli._common import names_in_help, out, progress
from tomflywheel.errors import UserInputError

if TYPE_CHECKING:
    from tomflywheel.world import DatasetStats


def _generators() -> str:
    # The world engine loads when a command runs, not at start-up (issue 29).
    from tomflywheel.world import GENERATORS

    return f"Generators: {', '.join(GENERATORS.names())}."


BAR_FROM_STORIES = 500
"""Runs of this many stories or more draw a progress bar (about a second of generation)."""
BAR_FROM_SAMPLES = 20_000
"""``datasets verify`` draws a bar for files of this many lines or more (about a second)."""

GenerateCommand = names_in_help(_generators)
"""``datasets generate`` lists the generators in its help, importing them only then."""


def _params(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    source = Path(text)
    raw = read_text(source) if source.is_file() else text
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise UserInputError(f"--params: not a JSON object or file ({err.msg})") from err
    if not isinstance(data, dict):
        raise UserInputError("--params: expected a JSON object")
    return data


def generate_command(
    kind: Annotated[str, typer.Argument(help="Generator (listed below).")],
    n: Annotated[int, typer.Option("--n", min=0, help="Number of stories.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same bytes.")] = 0,
    out_path: Annotated[Path, typer.Option("--out", "-o", help="Output JSONL file.")] = Path(
        "datasets/synthetic.jsonl"
    ),
    diversity: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of sentences in non-benchmark wording.")
    ] = 0.0,
    controls: Annotated[
        bool, typer.Option(help="Also write matched control items (true-belief twins).")
    ] = False,
    params: Annotated[
        str | None,
        typer.Option(
            help="More generator parameters: a JSON object or a JSON file "
            "(e.g. '{\"orders\": [1, 2]}' for tomi)."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=0,
            help="Worker processes generating blocks of stories (0: one per CPU core). "
            "The file has the same bytes with any number.",
        ),
    ] = 0,
) -> None:
    """Generate synthetic ToM samples with the world engine and write them as JSONL."""
    # The world engine loads when a command runs, not at start-up (issue 29).
    from tomflywheel.world import GENERATORS, write_generated

    extra = _params(params)
    name = GENERATORS.get(kind).name
    # A bar where the run is long enough to watch: its import (~50 ms) would slow a short start-up.
    bar = progress(f"generate {name} stories") if n >= BAR_FROM_STORIES else nullcontext(None)
    with bar as update:
        count = write_generated(
            name,
            out_path,
            workers=workers,
            progress=update,
            **{**extra, "n": n, "seed": seed, "diversity": diversity, "controls": controls},
        )
    out.print(f"[bold]{count}[/bold] samples written to [bold]{escape(str(out_path))}[/bold]")


def _counter_table(title: str, counts: dict[str, int]) -> Table:
    table = Table(title=title)
    table.add_column("value", overflow="fold")
    table.add_column("count", justify="right")
    for value, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        table.add_row(escape(value), str(count))
    return table


def _render(stats: DatasetStats) -> None:
    out.print(f"[bold]{stats.samples}[/bold] samples")
    out.print(_counter_table("QA kinds", dict(stats.kinds)))
    for name, counts in stats.meta.items():
        out.print(_counter_table(f"by {name}", dict(counts)))
    if not stats.traced:
        return
    out.print(
        f"{stats.traced} traced samples, {stats.stories} stories; agents per story "
        f"{min(stats.agents)}-{max(stats.agents)} (mean {mean(stats.agents):.1f}); events per "
        f"story {min(stats.events)}-{max(stats.events)} (mean {mean(stats.events):.1f})"
    )
    out.print(_counter_table("event types", dict(stats.event_types)))
    out.print(_counter_table("chain depths", dict(stats.chain_depths)))
    if stats.targeted:
        table = Table(title="targeted perturbations")
        for column in ("question type", "targeted", "total", "rate"):
            table.add_column(column, justify="left" if column == "question type" else "right")
        for qtype, (hit, total) in sorted(stats.targeted.items()):
            table.add_row(escape(qtype), str(hit), str(total), f"{hit / total:.0%}")
        out.print(table)


def stats_command(
    path: Annotated[Path, typer.Argument(help="A normalized JSONL file (generated or imported).")],
) -> None:
    """Counts and distributions of a dataset (stories, events and targeted rates if traced)."""
    # The pydantic schema loads where samples are read: ``datasets verify`` never builds one.
    from tomflywheel.schema import read_samples

    # The world engine loads when a command runs, not at start-up (issue 29).
    from tomflywheel.world import dataset_stats

    _render(dataset_stats(read_samples(path)))


def verify_command(
    path: Annotated[Path, typer.Argument(help="A JSONL file of traced samples (generated).")],
    workers: Annotated[
        int,
        typer.Option(
            min=0,
            help="Worker processes, each verifying a stretch of the file (0: one per CPU core).",
        ),
    ] = 0,
    show: Annotated[int, typer.Option(min=0, help="List at most this many failures.")] = 10,
) -> None:
    """Re-derive every sample's answer from its trace with both verifiers; exit 1 on a failure.

    A sample passes when the forward tracker and the temporal belief graph agree and their
    answer is among its correct answers. A sample without ``meta.trace`` fails.
    """
    # The world engine loads when a command runs, not at start-up (issue 29).
    from tomflywheel.world import verify_file

    lines = _line_count(path)
    bar = progress("verify samples") if lines >= BAR_FROM_SAMPLES else nullcontext(None)
    failures: list[tuple[int, str, str]] = []
    total = 0
    with bar as update:
        for outcome in verify_file(path, workers=workers or available_cpus()):
            total += 1
            if not outcome.verification.ok:
                failures.append((outcome.line, outcome.id, outcome.verification.reason or ""))
            if update is not None and total % 1000 == 0:
                update(min(outcome.line, lines), lines)
        if update is not None:
            update(lines, lines)
    for line, sample_id, reason in failures[:show]:
        out.print(f"line {line} [bold]{escape(sample_id)}[/bold]: {escape(reason)}")
    if len(failures) > show:
        out.print(f"... and {len(failures) - show} more failures")
    out.print(
        f"[bold]{total - len(failures)}[/bold] of {total} samples verified by both verifiers; "
        f"{len(failures)} failed ({escape(str(path))})"
    )
    if failures or not total:
        raise typer.Exit(1)


def _line_count(path: Path) -> int:
    """Lines of a file, counted in blocks (an unreadable path is left to the verifier's error)."""
    try:
        with path.open("rb") as handle:
            return sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return 0
