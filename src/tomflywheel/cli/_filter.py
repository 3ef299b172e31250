"""``tomflywheel filter``: check, verify, deduplicate, repair and admit training data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import (
    ConfigOption,
    ExecutorOption,
    load,
    out,
    progress,
    status,
    with_flags,
)
from tomflywheel.config import DEFAULT_CONFIG

if TYPE_CHECKING:
    from tomflywheel.filter import FilterSummary


def _skips(skipped: dict[str, int]) -> str:
    return ", ".join(f"{why} {n:,}" for why, n in sorted(skipped.items())) or "-"


def check_table(summary: FilterSummary) -> Table:
    """Pass / reject / repaired / skipped counts per check."""
    table = Table(title=f"Filter {summary.name}: {len(summary.verdicts):,} decided")
    table.add_column("check")
    for column in ("passed", "rejected", "repaired"):
        table.add_column(column, justify="right")
    table.add_column("skipped (why)")
    for count in summary.checks:
        table.add_row(
            count.check,
            f"{count.passed:,}",
            f"[red]{count.rejected:,}[/red]" if count.rejected else "0",
            f"[green]{count.repaired:,}[/green]" if count.repaired else "0",
            _skips(count.skipped),
        )
    return table


def reason_table(summary: FilterSummary) -> Table:
    """Rejected candidates per reason code."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.filter import REASONS

    table = Table(title="Reject reasons")
    table.add_column("reason")
    table.add_column("check")
    table.add_column("rejected", justify="right")
    table.add_column("repairable")
    for check, codes in summary.reasons_by_check.items():
        for code, n in codes.items():
            reason = REASONS.get(code)
            repairable = "yes" if reason and reason.repairable else "no"
            table.add_row(code, check, f"{n:,}", repairable)
    return table


def label_table(summary: FilterSummary, width: int | None = None) -> Table:
    """Per dataset: labels verified, convention-dependent, repaired, dropped, unverified.

    Also the labels only an LLM confirmed, and how many were admitted. Turned on its side (one
    column per dataset) when it would not fit ``width`` (default: the console's; 80 when the
    output is piped), so that no header is cut short.
    """
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.filter import STATUSES

    headers = ["dataset", "samples", *(s.replace("llm_confirmed", "llm ok") for s in STATUSES)]
    headers.append("admitted")
    rows = [
        [row.dataset, f"{row.candidates:,}"]
        + [f"{row.counts[status]:,}" for status in STATUSES]
        + [f"{row.admitted:,}"]
        for row in summary.labels
    ]
    table = Table(title="Labels")
    if _natural_width(headers, rows) <= (width or out.width):
        table.add_column(headers[0])
        for header in headers[1:]:
            table.add_column(header, justify="right")
        for cells in rows:
            table.add_row(escape(cells[0]), *cells[1:])
        return table
    table.add_column("label")
    for cells in rows:
        table.add_column(escape(cells[0]), justify="right")
    for position, header in enumerate(headers[1:], start=1):
        table.add_row(header, *(cells[position] for cells in rows))
    return table


def _natural_width(headers: list[str], rows: list[list[str]]) -> int:
    """A rich table's width with no cell cut: each column's widest text, padding and borders."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    return sum(w + 3 for w in widths) + 1


def label_reasons(summary: FilterSummary, *, top: int = 5) -> list[str]:
    """Why labels were repaired, dropped or left unverified: the most frequent reasons."""
    lines = []
    for row in summary.labels:
        for label, reasons in sorted(row.why.items()):
            for why, n in list(reasons.items())[:top]:
                lines.append(f"  {row.dataset} {label} {n:,}: {why}")
            if len(reasons) > top:
                lines.append(f"  {row.dataset} {label}: {len(reasons) - top} more reasons")
    return lines


def print_filter_summary(summary: FilterSummary) -> None:
    """The tables, the counts, requests spent, and where the files went."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.filter import STATUSES

    out.print(check_table(summary))
    if summary.reasons:
        out.print(reason_table(summary))
    out.print(label_table(summary))
    for line in label_reasons(summary):
        out.print(escape(line))
    line = (
        f"{summary.candidates:,} candidates: {summary.accepted_inputs:,} accepted "
        f"({summary.repaired:,} after an LLM rewrite), {summary.rejected:,} rejected"
    )
    if summary.complements:
        line += f"; balancing added {summary.complements:,} complements"
    if summary.repair_attempted:
        line += f"; repair succeeded for {summary.repaired}/{summary.repair_attempted}"
    totals = {status: sum(row.counts[status] for row in summary.labels) for status in STATUSES}
    line += (
        f"; labels: {totals['verified']:,} verified, {totals['convention']:,} "
        f"convention-dependent kept as given, {totals['repaired']:,} changed by the engine"
    )
    out.print(line)
    flagged = summary.balance.after.get("flagged") if summary.balance is not None else None
    if flagged:
        out.print(escape(f"shortcut audit of the admitted set: still flagged {', '.join(flagged)}"))
    if summary.judge_is_evaluated and summary.used_llm:
        status(
            f"the LLM judge is the evaluated model ({summary.judge}): labels only it agrees "
            "with are counted as unverified (set judge.llm for an independent judge)"
        )
    calibration = summary.judge_calibration
    if calibration is not None:
        words = calibration.words()
        if calibration.untrusted:
            words += "; labels only it confirmed are counted as unverified"
        status(escape(words))
    if summary.already_decided or summary.already_admitted:
        status(
            f"skipped {summary.already_decided:,} decided by an earlier run and "
            f"{summary.already_admitted:,} already admitted"
        )
    if not summary.used_llm:
        status("--no-llm: the rubric and LLM label checks did not run (see manifest)")
    status(f"contamination guard: {len(summary.guarded)} evaluation file(s)")
    if summary.usage:
        u = summary.usage
        status(
            f"requests sent {u.get('requests_sent', 0)}, cache hits {u.get('cache_hits', 0)}, "
            f"tokens {u.get('prompt_tokens', 0)} in / {u.get('completion_tokens', 0)} out"
        )
    out.print(f"admitted: {escape(str(summary.admitted_path))}")
    out.print(f"rejected: {escape(str(summary.rejected_path))}")
    if summary.changes_path.exists():
        out.print(f"label changes: {escape(str(summary.changes_path))}")
    out.print(f"manifest: {escape(str(summary.manifest_path))}")


def filter_command(
    input_path: Annotated[
        Path,
        typer.Option(
            "--input", "-i", exists=True, dir_okay=False, help="Normalized JSONL candidates."
        ),
    ],
    config: ConfigOption = DEFAULT_CONFIG,
    name: Annotated[
        str | None,
        typer.Option(help="Training set name: train_datasets/NAME.jsonl (default: input stem)."),
    ] = None,
    no_llm: Annotated[
        bool,
        typer.Option("--no-llm", help="Skip the rubric, LLM label checks and repairs."),
    ] = False,
    repair: Annotated[
        int | None,
        typer.Option(
            "--repair",
            min=0,
            help="Rewrites per repairable candidate, 0: none (default: filter.repair.attempts).",
        ),
    ] = None,
    train_dir: Annotated[
        Path,
        typer.Option(file_okay=False, help="Where admitted data, rejects and the manifest go."),
    ] = Path("train_datasets"),
    eval_dir: Annotated[
        Path,
        typer.Option(file_okay=False, help="Evaluation sets the contamination guard protects."),
    ] = Path("datasets"),
    profile: Annotated[
        str | None,
        typer.Option(
            help="World-engine rule profile labels are verified under: auto (each benchmark's "
            "own; labels a convention decides are kept as given), or default, tomi, hitom, "
            "tgtom, which also resolves those to its rules (default: filter.answer_profile)."
        ),
    ] = None,
    balance: Annotated[
        bool | None,
        typer.Option(
            "--balance/--no-balance",
            help="Balance the admitted set against shortcuts (default: filter.audit.enforce); "
            "a curated external set may be admitted as it is.",
        ),
    ] = None,
    admit_unverified: Annotated[
        bool | None,
        typer.Option(
            "--admit-unverified/--reject-unverified",
            help="Admit labels nothing could verify (no LLM, prose the engine cannot read) "
            "(default: filter.label.admit_unverified).",
        ),
    ] = None,
    allow_license_override: Annotated[
        bool,
        typer.Option(
            "--allow-license-override",
            help="Build the training set although some input comes from a benchmark whose "
            "authors forbid training on it (refused otherwise); the dataset card records it.",
        ),
    ] = False,
    executor: ExecutorOption = None,
) -> None:
    """Check, verify, deduplicate, repair and admit training data; resumable, never twice."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.filter import FilterRun, run_filter

    settings = load(config, executor)
    flags = {
        "answer_profile": profile,
        "audit": {"enforce": balance},
        "label": {"admit_unverified": admit_unverified},
    }
    run = FilterRun(
        settings=settings.model_copy(update={"filter": with_flags(settings.filter, flags)}),
        input_path=input_path,
        name=name,
        use_llm=not no_llm,
        repair_attempts=repair,
        train_dir=train_dir,
        eval_dir=eval_dir,
        allow_license_override=allow_license_override,
    )
    with progress(f"filter {run.set_name}") as update:
        summary = run_filter(run, on_progress=update, on_status=status)
    print_filter_summary(summary)
