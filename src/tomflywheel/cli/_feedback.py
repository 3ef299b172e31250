"""``tomflywheel feedback``: diagnose bad cases of an experiment, synthesize training data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tomflywheel.cli._common import (
    ConfigOption,
    ExecutorChoice,
    ExecutorOption,
    load,
    out,
    rich_progress,
    status,
)
from tomflywheel.config import DEFAULT_CONFIG, Settings

if TYPE_CHECKING:
    from tomflywheel.feedback import FeedbackSummary

feedback_app = typer.Typer(
    help="Diagnose bad cases of an experiment and synthesize targeted training candidates.",
    invoke_without_command=True,
)


def _run_feedback(settings: Settings, exp: Path, **options: Any) -> FeedbackSummary:
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.feedback import run_feedback

    return run_feedback(settings, exp, **options)


ExpOption = Annotated[Path, typer.Option("--exp", help="Experiment folder (results/<exp_id>).")]


def _settings(config: Path, executor: ExecutorChoice | None = None, **updates: object) -> Settings:
    settings = load(config, executor)
    changes = {k: v for k, v in updates.items() if v is not None}
    return settings.model_copy(update={"feedback": settings.feedback.model_copy(update=changes)})


def _render(summary: FeedbackSummary) -> None:
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.report import calibration_words, error_profile_table, plan_table, usage_text

    reasons = ", ".join(f"{k} {v}" for k, v in summary.cases.items()) or "none"
    out.print(f"bad cases: {reasons} · diagnosed now {summary.diagnosed_now}")
    if summary.profile:
        out.print(error_profile_table(summary.profile))
    if summary.plan is not None:
        out.print(plan_table(summary.plan))
        if summary.plan.self_diagnoses_left_out:
            status(
                f"{summary.plan.self_diagnoses_left_out} LLM diagnoses by the evaluated model "
                "itself left out of the plan (feedback.plan_self_diagnoses lets them in)"
            )
        if summary.plan.uncalibrated_left_out:
            status(
                f"{summary.plan.uncalibrated_left_out} LLM diagnoses left out of the plan: "
                f"{calibration_words(summary.plan.diagnoser_calibration)} "
                "(feedback.plan_uncalibrated_diagnoses lets them in)"
            )
    if summary.candidates:
        made = ", ".join(f"{k} {v}" for k, v in summary.candidates.items())
        out.print(f"candidates: {made}")
    for note in summary.notes:
        status(note)
    if summary.usage:
        status(usage_text(summary.usage, tokens=False))
    out.print(f"written to {summary.folder}")


@feedback_app.callback()
def feedback_command(
    ctx: typer.Context,
    exp: Annotated[
        Path | None, typer.Option("--exp", help="Experiment folder (both steps).")
    ] = None,
    config: ConfigOption = DEFAULT_CONFIG,
    budget: Annotated[
        int | None, typer.Option(min=0, help="Candidates to synthesize (default: feedback.budget).")
    ] = None,
    executor: ExecutorOption = None,
) -> None:
    """Diagnose and synthesize in one go (or use the diagnose / synthesize subcommands)."""
    if ctx.invoked_subcommand is not None:
        return
    if exp is None:
        raise typer.BadParameter("--exp is required", param_hint="--exp")
    _render(
        _run_feedback(
            _settings(config, executor, budget=budget),
            exp,
            progress=rich_progress,
            on_status=status,
        )
    )


@feedback_app.command("diagnose")
def diagnose_command(exp: ExpOption, config: ConfigOption = DEFAULT_CONFIG) -> None:
    """Mine wrong, unjudged and unsure predictions and diagnose them; print the error profile."""
    _render(
        _run_feedback(
            _settings(config),
            exp,
            synthesize_candidates=False,
            progress=rich_progress,
            on_status=status,
        )
    )


@feedback_app.command("synthesize")
def synthesize_command(
    exp: ExpOption,
    config: ConfigOption = DEFAULT_CONFIG,
    budget: Annotated[
        int | None, typer.Option(min=0, help="Candidates to synthesize (default: feedback.budget).")
    ] = None,
    adversarial: Annotated[
        bool | None,
        typer.Option(
            "--adversarial/--no-adversarial",
            help="Keep only candidates the model fails (default: feedback.adversarial).",
        ),
    ] = None,
    naturalize: Annotated[
        bool | None,
        typer.Option(
            "--naturalize/--no-naturalize",
            help="Also rewrite some stories as prose (default: feedback.naturalize).",
        ),
    ] = None,
    free_form: Annotated[
        bool | None,
        typer.Option(
            "--free-form/--no-free-form",
            help="Also ask the LLM for new stories (default: feedback.free_form).",
        ),
    ] = None,
    executor: ExecutorOption = None,
) -> None:
    """Plan from the diagnoses and synthesize candidates with lineage (diagnoses first)."""
    settings = _settings(
        config,
        executor,
        budget=budget,
        adversarial=adversarial,
        naturalize=naturalize,
        free_form=free_form,
    )
    _render(_run_feedback(settings, exp, progress=rich_progress, on_status=status))
