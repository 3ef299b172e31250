"""``tomflywheel flywheel``: the whole loop, round after round, with a final summary."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tomflywheel.cli._common import ConfigOption, ExecutorOption, load, out, rich_progress, status
from tomflywheel.config import DEFAULT_CONFIG

if TYPE_CHECKING:  # the records load with the command, not at start-up (issue 29)
    from tomflywheel.artifacts import RoundSummary


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def rounds_table(rounds: Sequence[RoundSummary]) -> Table:
    """Accuracy per dataset and round (beside its chance level), then what each round made.

    A set that asks minds also shows its belief-balanced accuracy (with its interval) and the
    margin over the best heuristic on all items; other sets a dash.
    """
    # The report package loads when a command runs, not at start-up (issue 29).
    from tomflywheel.report import accuracy_cell, balanced_cell, margin_cell

    table = Table(title="Flywheel summary")
    table.add_column("round", justify="right")
    table.add_column("dataset")
    table.add_column("n", justify="right")
    table.add_column("acc %", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("belief-bal. % [95% CI]", justify="right")
    table.add_column("margin vs best heuristic", justify="right")
    for summary in rounds:
        for dataset, entry in summary.accuracy.items():
            overall = entry.overall
            ci = overall.ci95
            scores = entry.shortcut  # absent from summaries written before it
            table.add_row(
                str(summary.round),
                escape(dataset),
                str(overall.n),
                accuracy_cell(overall.accuracy, overall.chance),
                f"{_pct(ci[0])}–{_pct(ci[1])}" if ci else "",
                escape(balanced_cell(scores)),
                escape(margin_cell(scores)),
            )
    return table


def round_lines(summary: RoundSummary) -> list[str]:
    """What a round made, in a few lines: bad cases, candidates, admissions, cost, notes."""
    # The report package loads when a command runs, not at start-up (issue 29).
    from tomflywheel.report import admission_audit_text, usage_text

    f = summary.filter
    top = ", ".join(
        f"{k} {v}" for k, v in list((summary.error_profile.by_category or {}).items())[:4]
    )
    reasons = ", ".join(f"{k} {v}" for k, v in f.reject_reasons.items())
    used = {"requests_sent": summary.requests, "cache_hits": summary.cache_hits}
    lines = [
        f"round {summary.round}: {summary.error_profile.total or 0} bad cases "
        f"({top or 'none'}) · {summary.candidates.total} candidates · admitted {f.admitted} · "
        f"rejected {f.rejected}"
        + (f" ({escape(reasons)})" if reasons else "")
        + " · "
        + usage_text(used, tokens=False)
        + " · "
        + " ".join(f"{k} {v:.0f}s" for k, v in summary.seconds.items())
    ]
    if summary.admission_audit:
        lines.append(f"  admission audit: {escape(admission_audit_text(summary.admission_audit))}")
    fresh = summary.fresh
    if fresh:
        lines.append(
            f"  fresh GRPO stories: {fresh.candidates} candidates · admitted "
            f"{fresh.admitted} · rejected {fresh.rejected}"
        )
    lines.extend(f"  [yellow]note:[/] {escape(note)}" for note in summary.notes)
    return lines


def lift_table(rounds: Sequence[RoundSummary]) -> Table | None:
    """The held-out lift of every trained round (``None`` when no round trained)."""
    # The report package loads when a command runs, not at start-up (issue 29).
    from tomflywheel.report import lift_rows

    lifts = lift_rows(rounds)
    if not lifts:
        return None
    table = Table(title="Held-out lift after fine-tuning")
    for name in ("round", "dataset", "part", "n", "before %", "after %", "lift", "note"):
        table.add_column(
            name, justify="right" if name in ("n", "before %", "after %", "lift") else "left"
        )
    for row in lifts:
        table.add_row(*(escape(str(cell)) for cell in row))
    return table


def flywheel_command(
    config: ConfigOption = DEFAULT_CONFIG,
    rounds: Annotated[
        int | None, typer.Option(min=1, help="Rounds (default: flywheel.rounds).")
    ] = None,
    run_dir: Annotated[
        Path | None,
        typer.Option(help="Run folder to create or resume (default: a new runs/<run_id>)."),
    ] = None,
    train: Annotated[
        bool | None,
        typer.Option(
            "--train/--no-train",
            help="Fine-tune on the admitted data each round and report the held-out lift "
            "(default: flywheel.train).",
        ),
    ] = None,
    executor: ExecutorOption = None,
) -> None:
    """Evaluate, diagnose, synthesize, filter and admit, round after round (resumable)."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.flywheel import run_flywheel

    settings = load(config, executor)
    if train is not None:
        flywheel = settings.flywheel.model_copy(update={"train": train})
        settings = settings.model_copy(update={"flywheel": flywheel})
    result = run_flywheel(
        settings, rounds=rounds, run_dir=run_dir, progress=rich_progress, on_status=status
    )
    if result.skipped:
        status(
            f"resumed: {len(result.skipped)} finished stage(s) skipped "
            f"({'; '.join(result.skipped)})"
        )
    out.print(rounds_table(result.rounds))
    for summary in result.rounds:
        for line in round_lines(summary):
            out.print(line)
    lifts = lift_table(result.rounds)
    if lifts is not None:
        out.print(lifts)
    out.print(f"run: {result.run_dir}")
    out.print(f"training set: {settings.flywheel.train_dir / result.manifest.train_name}.jsonl")
    out.print(f"report: {result.report}")
