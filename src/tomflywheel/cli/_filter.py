"""``tomflywheel filter``: check, verify, deduplicate, repair and admit training data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import ConfigOption, ExecutorOption, load, out, progress, status
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


def label_table(summary: FilterSummary) -> Table:
    """Per dataset: labels verified, repaired, dropped, LLM-confirmed and unverified."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.filter import STATUSES

    table = Table(title="Labels")
    table.add_column("dataset")
    for column in ("samples", *STATUSES, "admitted"):
        table.add_column(column.replace("llm_confirmed", "llm ok"), justify="right")
    for row in summary.labels:
        counts = [f"{row.counts[status]:,}" for status in STATUSES]
        table.add_row(escape(row.dataset), f"{row.candidates:,}", *counts, f"{row.admitted:,}")
    return table


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
            "own), default, tomi, hitom, tgtom (default: filter.answer_profile)."
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
    executor: ExecutorOption = None,
) -> None:
    """Check, verify, deduplicate, repair and admit training data; resumable, never twice."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.filter import run_filter

    settings = load(config, executor)
    filter_settings = settings.filter
    if profile is not None:
        filter_settings = filter_settings.model_copy(update={"answer_profile": profile})
    if balance is not None:
        audit = filter_settings.audit.model_copy(update={"enforce": balance})
        filter_settings = filter_settings.model_copy(update={"audit": audit})
    label = name or input_path.stem
    with progress(f"filter {label}") as update:
        summary = run_filter(
            settings,
            input_path=input_path,
            name=name,
            use_llm=not no_llm,
            repair_attempts=repair,
            filter_settings=filter_settings,
            train_dir=train_dir,
            eval_dir=eval_dir,
            on_progress=update,
            on_status=status,
        )
    print_filter_summary(summary)
