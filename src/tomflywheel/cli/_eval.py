"""``tomflywheel eval`` and ``tomflywheel example``: run the evaluation, or one example."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from tomflywheel._io import require_writable
from tomflywheel.cli._common import (
    ConfigOption,
    ExecutorOption,
    load,
    out,
    rich_progress,
    status,
    with_flags,
)
from tomflywheel.config import DEFAULT_CONFIG, ScoringBackend
from tomflywheel.errors import PathError

if TYPE_CHECKING:
    from tomflywheel.evaluation import EvalSummary


def print_summary(summary: EvalSummary, *, report: bool) -> None:
    """Metrics table, what was skipped on resume, requests spent, and where files are."""
    # on use: the records' pydantic models and the engine the audit reads with (start-up)
    from tomflywheel.artifacts import answer_audit_of
    from tomflywheel.audit import score_lines  # on use: the engine it reads with (start-up)

    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.report import (
        calibration_text,
        judge_notes,
        metrics_table,
        shortcut_text,
        usage_text,
    )

    metrics = [d.metrics for d in summary.datasets if d.metrics]
    if metrics:
        out.print(metrics_table(metrics, title=f"Experiment {summary.experiment.exp_id}"))
    for m in metrics:
        # belief-balanced, story-level, paired: each against the best heuristic on it
        for line in score_lines(m["shortcut"]) if m.get("shortcut") else []:
            out.print(f"{escape(m['dataset'])}: {escape(line)}")
    for d in summary.datasets:
        parts = [f"{d.label}: {d.n_samples} samples, judge {d.judge}"]
        shortcuts = shortcut_text(answer_audit_of(d.metrics or {}))
        if shortcuts:
            parts.append(shortcuts)
        if "predict" in summary.stages:
            parts.append(f"predicted {d.predicted} new, {d.prediction_skipped} already done")
        if "judge" in summary.stages:
            parts.append(f"judged {d.judged} new, {d.judgment_skipped} already done")
        calibration = calibration_text(d.metrics or {})
        if calibration:
            parts.append(calibration)
        status(" · ".join(parts))
        for note in judge_notes(d.metrics or {}):
            status(f"[yellow]warning:[/] {escape(note)}")
    if summary.usage:
        u = summary.usage
        status(usage_text(u))
        if u.get("slow_downs"):
            status(
                f"server overloaded: slowed down {u['slow_downs']} times, in-flight limit "
                f"now {u.get('concurrency_now')} (lowest {u.get('concurrency_lowest')})"
            )
    out.print(f"experiment: {summary.experiment.root}")
    if report:
        out.print(f"report: {summary.experiment.report_path}")


def eval_command(
    config: ConfigOption = DEFAULT_CONFIG,
    dataset: Annotated[
        list[str] | None,
        typer.Option(
            "--dataset",
            "-d",
            metavar="<file|name>",
            help="Dataset file or name under datasets/ (repeatable; default: eval.datasets).",
        ),
    ] = None,
    stage: Annotated[
        list[str] | None,
        typer.Option(
            "--stage",
            "-s",
            metavar="<stage>",
            help="Run only these stages (repeatable): predict, judge, metric, report.",
        ),
    ] = None,
    exp_dir: Annotated[
        Path | None,
        typer.Option(help="Experiment folder to create or resume (default: a new one)."),
    ] = None,
    max_samples: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="<n>",
            help="Only N samples of each dataset: a seeded slice keeping every group's share "
            "(default: eval.max_samples).",
        ),
    ] = None,
    first: Annotated[
        bool,
        typer.Option(
            "--first",
            help="With --max-samples: take the first N samples of the file instead.",
        ),
    ] = False,
    exclude_memory_reality: Annotated[
        bool | None,
        typer.Option(
            "--exclude-memory-reality/--include-memory-reality",
            help="Drop (keep) ToMi's memory and reality questions "
            "(default: eval.exclude_memory_reality).",
        ),
    ] = None,
    trials: Annotated[
        int | None,
        typer.Option(
            min=1, help="Predictions per sample, sampled at T > 0 (default: eval.trials)."
        ),
    ] = None,
    strict_matching: Annotated[
        bool | None,
        typer.Option(
            "--strict-matching/--lenient-matching",
            help="Rules accept exact matches only (default: eval.strict_matching).",
        ),
    ] = None,
    min_temperature: Annotated[
        float | None,
        typer.Option(help="Log-prob sweep: lowest temperature (default: eval.logprob)."),
    ] = None,
    max_temperature: Annotated[
        float | None,
        typer.Option(help="Log-prob sweep: highest temperature (default: eval.logprob)."),
    ] = None,
    temperature_step: Annotated[
        float | None,
        typer.Option(
            "--temperature-step",
            "--temperature-interval",
            help="Log-prob sweep: step (default: eval.logprob).",
        ),
    ] = None,
    backend: Annotated[
        ScoringBackend | None,
        typer.Option(help="Log-prob scoring: server (default), or in-process causal, mlm, mntp."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="In-process backend: a Hugging Face model folder (or hub name)."),
    ] = None,
    revision: Annotated[
        str | None, typer.Option(help="In-process backend: model revision.")
    ] = None,
    device: Annotated[
        str | None, typer.Option(help="In-process backend: auto, cpu, cuda or cuda:N.")
    ] = None,
    batch_size: Annotated[
        int | None, typer.Option(min=1, help="Causal backend: sequences per forward pass.")
    ] = None,
    non_causal_batch_size: Annotated[
        int | None, typer.Option(min=1, help="mlm/mntp: masked copies per forward pass.")
    ] = None,
    full_sentence_scores: Annotated[
        bool | None,
        typer.Option(
            "--full-sentence-scores/--completion-scores",
            help="Score whole sentences (or only the completions).",
        ),
    ] = None,
    save_predictions: Annotated[
        bool | None,
        typer.Option(
            "--save-predictions/--no-save-predictions",
            help="Sentence tasks: also write predictions grouped by UID.",
        ),
    ] = None,
    executor: ExecutorOption = None,
) -> None:
    """Predict, judge, score and report the configured (or given) datasets; resumable."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.artifacts import experiment_settings
    from tomflywheel.evaluation import STAGES, run_evaluation  # on use (start-up time)
    from tomflywheel.report import write_experiment_report  # on use (start-up time)

    if exp_dir is not None:
        # A folder that cannot be made is a bad path (exit 2), found before datasets are read.
        require_writable(exp_dir)
        if exp_dir.exists() and not exp_dir.is_dir():
            raise PathError(exp_dir, None, None, "not a folder (expected the experiment folder)")
    # the report is the command's own last stage: the evaluation never writes it
    known = (*STAGES, "report")
    stages = tuple(stage or known)
    unknown = [s for s in stages if s not in known]
    if unknown:
        raise typer.BadParameter(f"unknown stage(s) {unknown}; choose from {list(known)}")
    settings = (
        experiment_settings(exp_dir)
        if exp_dir is not None and config == DEFAULT_CONFIG and (exp_dir / "config.yaml").exists()
        else load(config)
    )
    evaluation = with_flags(
        settings.eval,
        {
            "max_samples": max_samples,
            "slice": "first" if first else None,
            "exclude_memory_reality": exclude_memory_reality,
            "trials": trials,
            "strict_matching": strict_matching,
            "logprob": {
                "min_temperature": min_temperature,
                "max_temperature": max_temperature,
                "temperature_step": temperature_step,
            },
            "scoring": {
                "backend": backend,
                "model": model,
                "revision": revision,
                "device": device,
                "batch_size": batch_size,
                "non_causal_batch_size": non_causal_batch_size,
                "full_sentence_scores": full_sentence_scores,
                "save_predictions": save_predictions,
            },
        },
    )
    settings = settings.model_copy(update={"eval": evaluation})
    if executor is not None:
        settings = settings.model_copy(update={"executor": executor.value})
    summary = run_evaluation(
        settings,
        datasets=dataset,
        stages=tuple(s for s in STAGES if s in stages),
        exp_dir=exp_dir,
        progress=rich_progress,
        on_status=status,
    )
    if "report" in stages:
        write_experiment_report(summary.experiment)
    print_summary(summary, report="report" in stages)


def example_command(
    config: ConfigOption = DEFAULT_CONFIG,
    story: Annotated[str | None, typer.Option(help="Story text (with --question).")] = None,
    question: Annotated[str | None, typer.Option(help="Question about the story.")] = None,
    answer: Annotated[str | None, typer.Option(help="Gold answer, to get a verdict.")] = None,
    dataset: Annotated[
        Path | None, typer.Option(help="A normalized JSONL dataset to take the example from.")
    ] = None,
    index: Annotated[int, typer.Option(min=0, help="0-based sample index in --dataset.")] = 0,
    exclude_memory_reality: Annotated[
        bool, typer.Option(help="Count --index after dropping memory and reality questions.")
    ] = False,
    judge: Annotated[
        str | None, typer.Option(help="Judging method (default: the dataset's).")
    ] = None,
) -> None:
    """Run one example: print the prompt, the model's output, the parse and the verdict."""
    # Each stage (and openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.evaluation import run_example, sample_from_file, sample_from_text

    if dataset is not None:
        sample = sample_from_file(dataset, index, exclude_memory_reality=exclude_memory_reality)
    elif story is not None and question is not None:
        sample = sample_from_text(story, question, answer)
    else:
        raise typer.BadParameter("give --story and --question, or --dataset [--index]")
    label = dataset.stem if dataset is not None else None
    result = run_example(load(config), sample, judge=judge, label=label, on_status=status)
    p = result.prediction
    out.rule(f"{escape(result.sample.id)} · {result.task.name} · judge {result.judge}")
    if p.messages:
        for message in p.messages:
            out.print(f"[bold]{message['role']}:[/bold] {escape(message['content'])}")
    else:
        out.print(f"[bold]prompt:[/bold] {escape(p.prompt or '')}")
    if p.options:
        out.print(f"[bold]gold letters:[/bold] {', '.join(p.gold_letters or [])}")
    if p.option_logprobs:
        for option, value in zip(p.options or [], p.option_logprobs, strict=True):
            out.print(f"  {value:9.3f}  {escape(option)}")
    out.print(f"[bold]output:[/bold] {escape(p.raw_output or p.error or '')}")
    j = result.judgment
    if j is not None:
        colour = "green" if j.verdict.value == "correct" else "red"
        out.print(
            f"[bold]parsed:[/bold] {escape(str(j.answer))} ({j.match_type}) → "
            f"[{colour}]{j.verdict.value}[/{colour}]"
            + (f" — {escape(j.reason)}" if j.reason else "")
            + (f" — judge failed: {escape(j.failure)}" if j.failure else "")
        )
