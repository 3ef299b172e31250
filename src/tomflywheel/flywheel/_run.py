"""The flywheel: evaluate -> feedback -> filter -> admit, round after round, resumably.

Everything of a run lives in ``runs/<run_id>/`` (:class:`~tomflywheel.artifacts.RunFolder`):
the resolved config, ``manifest.json`` (which stage of which round finished, its wall time,
requests and outputs), ``round_<k>/eval/`` (the round's experiment, with ``feedback/`` inside),
``round_<k>/summary.json`` and ``report.html``. Admitted data goes to
``<train_dir>/<train_name>.jsonl``. A killed run resumes at the stage where it stopped: finished
stages are skipped, and the interrupted one resumes from its own records (predictions,
diagnoses and verdicts are appended line by line; requests are cached).

Each round is planned first (:func:`~tomflywheel.flywheel._round.plan_round`: its model, seed,
sets and guarded files), then each stage runs from that plan; training and the held-out
measurements around it are their own step (``flywheel/_train.py``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from tomflywheel._io import atomic_write_text, timestamp_name
from tomflywheel.artifacts import (
    EvaluateOutputs,
    FeedbackFolder,
    FeedbackOutputs,
    FilterOutputs,
    Record,
    RoundSummary,
    RunFolder,
    Usage,
)
from tomflywheel.config import DatasetRef, Settings
from tomflywheel.errors import ConfigError
from tomflywheel.evaluation import EvalSummary, run_evaluation
from tomflywheel.feedback import run_feedback
from tomflywheel.filter import FilterRun, run_filter
from tomflywheel.flywheel._manifest import (
    RunManifest,
    StageName,
    StageRecord,
    load_manifest,
    now,
    resume_lines,
    save_manifest,
)
from tomflywheel.flywheel._round import (
    RoundPlan,
    ServedModel,
    guarded_settings,
    plan_round,
    stage_settings,
)
from tomflywheel.flywheel._summary import round_summary
from tomflywheel.flywheel._train import TrainStep, uses_fresh_prompts
from tomflywheel.llm import shared_servers
from tomflywheel.progress import ProgressFactory, Update
from tomflywheel.report import write_experiment_report, write_run_report
from tomflywheel.tracking import open_tracker, scalars

Out = TypeVar("Out", bound=Record)
StageWork = Callable[[], tuple[Out, Usage]]
"""A stage's work: its outputs and what it spent."""


@dataclass
class FlywheelSummary:
    """What a flywheel run produced."""

    run_dir: Path
    manifest: RunManifest
    rounds: list[RoundSummary] = field(default_factory=list)
    """One summary per round."""
    report: Path | None = None
    skipped: list[str] = field(default_factory=list)
    """``round k: stage`` entries already done before this invocation (a resume)."""


def round_scalars(summary: RoundSummary) -> dict[str, float]:
    """What a round logs for tracking: accuracy per dataset and the lift.

    ``lift/...``: the round's model against the one it started from; ``lift_vs_base/...``:
    against the base model; ``lift_vs_sft_stage/...`` (``sft-grpo``): against its SFT stage.
    """
    data = summary.as_json()
    return {
        **scalars(data.get("accuracy"), "accuracy", skip=frozenset({"usage"})),
        **scalars(data.get("lift"), "lift"),
        **scalars(data.get("lift_vs_base"), "lift_vs_base"),
        **scalars(data.get("lift_vs_sft_stage"), "lift_vs_sft_stage"),
    }


class Runner:
    """Runs one flywheel invocation; each stage records itself in the manifest when done."""

    def __init__(
        self,
        settings: Settings,
        run: RunFolder,
        manifest: RunManifest,
        progress: ProgressFactory | None,
        on_status: Callable[[str], None] | None,
    ) -> None:
        self.settings = settings
        self.run = run
        self.manifest = manifest
        self.progress = progress
        self.on_status = on_status or (lambda message: None)
        self.skipped: list[str] = []
        self.previous: RoundSummary | None = None
        """The summary of the round before the one running."""

    def stage(self, k: int, name: StageName, work: StageWork[Out]) -> StageRecord[Out]:
        """Run ``work`` unless the stage already finished; record it in the manifest."""
        stages = self.manifest.stages(k)
        done: StageRecord[Out] | None = getattr(stages, name)
        if done is not None:
            self.skipped.append(f"round {k}: {name}")
            return done
        self.on_status(f"round {k}: {name}")
        started = time.perf_counter()
        outputs, usage = work()
        typed: Any = StageRecord[type(outputs)]  # the stage's own record type
        record = typed(
            seconds=time.perf_counter() - started, usage=usage, finished=now(), outputs=outputs
        )
        stages.record(name, record)
        save_manifest(self.run.root, self.manifest)
        return record

    @contextlib.contextmanager
    def bar(self, description: str) -> Iterator[Update]:
        """A progress display for one piece of long work (none without a factory)."""
        if self.progress is None:
            yield lambda done, total, **values: None
            return
        with self.progress(description, skipped=0) as update:
            yield update

    def measure(
        self, plan: RoundPlan, exp_dir: Path, *, model: ServedModel | None = None,
        datasets: tuple[DatasetRef, ...] | None = None,
    ) -> EvalSummary:  # fmt: skip
        """Evaluate ``model`` on ``datasets`` into ``exp_dir`` (resuming it), write its report.

        The round's model and evaluated sets unless others are named.
        """
        settings = stage_settings(self.settings, plan, model=model, datasets=datasets)
        summary = run_evaluation(
            settings, exp_dir=exp_dir, progress=self.progress, on_status=self.on_status
        )
        write_experiment_report(summary.experiment)
        return summary

    def evaluate(self, plan: RoundPlan) -> tuple[EvaluateOutputs, Usage]:
        """The round's evaluation."""
        exp_dir = self.run.round(plan.round).eval
        summary = self.measure(plan, exp_dir)
        return EvaluateOutputs(exp_dir=exp_dir), Usage.model_validate(summary.usage)

    def feedback(self, plan: RoundPlan) -> tuple[FeedbackOutputs, Usage]:
        """Diagnose the round's bad cases, plan and synthesize candidates."""
        exp_dir = self.run.round(plan.round).eval
        summary = run_feedback(
            stage_settings(self.settings, plan),
            exp_dir,
            progress=self.progress,
            on_status=self.on_status,
        )
        outputs = FeedbackOutputs(
            candidates=FeedbackFolder(summary.folder).candidates,
            plan_id=summary.plan.plan_id if summary.plan else None,
            notes=summary.notes,
        )
        return outputs, Usage.model_validate(summary.usage)

    def admit(
        self, plan: RoundPlan, candidates: Path, name: str, label: str
    ) -> tuple[FilterOutputs, Usage]:
        """Filter ``candidates`` into the training set ``name``, guarding every eval set."""
        settings = guarded_settings(self.settings, plan)
        run = FilterRun(
            settings=settings,
            input_path=candidates,
            name=name,
            use_llm=settings.flywheel.filter_llm,
            repair_attempts=settings.flywheel.repair_attempts,
            train_dir=settings.flywheel.train_dir,
            eval_dir=settings.eval.datasets_dir,
            allow_empty=True,
        )
        # The filter decides candidates for minutes: a bar, as the other stages have.
        with self.bar(label) as update:
            summary = run_filter(run, on_progress=update, on_status=self.on_status)
        outputs = FilterOutputs(
            input=candidates,
            admitted=summary.admitted_path,
            verdicts=summary.verdicts_path,
            manifest=summary.manifest_path,
        )
        return outputs, Usage.model_validate(summary.usage)

    def filter(self, plan: RoundPlan) -> tuple[FilterOutputs, Usage]:
        """Admit the round's candidates into the run's training set."""
        feedback = self.manifest.stages(plan.round).feedback
        if feedback is None:
            raise ConfigError(f"round {plan.round}: the filter runs after the feedback stage")
        label = f"filter round {plan.round}"
        return self.admit(plan, feedback.outputs.candidates, self.manifest.train_name, label)

    def round(self, k: int) -> RoundSummary:
        """Run (or resume) round ``k`` and write its summary."""
        plan = plan_round(self.settings, self.manifest, k)
        self.stage(k, "evaluate", lambda: self.evaluate(plan))
        self.stage(k, "feedback", lambda: self.feedback(plan))
        self.stage(k, "filter", lambda: self.filter(plan))
        if self.settings.flywheel.train:
            TrainStep(self, plan).run()
        base = self.manifest.stages(1).heldout_before
        summary = round_summary(
            self.manifest.round(k),
            model=plan.model.name,
            previous=self.previous,
            base_heldout=base.outputs.exp_dir if base else None,
        )
        summary.write(self.run.round(k).summary)
        self.previous = summary
        return summary


def _open_manifest(
    settings: Settings, run: RunFolder, total: int, on_status: Callable[[str], None] | None
) -> RunManifest:
    """The run's manifest: resumed (saying what is done) or new (with the config snapshot)."""
    manifest = load_manifest(run.root)
    if manifest is not None and on_status is not None:
        for line in resume_lines(manifest):
            on_status(line)
    if manifest is None:
        run.root.mkdir(parents=True, exist_ok=True)
        manifest = RunManifest(
            run_id=run.run_id,
            created=now(),
            rounds_planned=total,
            train_name=settings.flywheel.train_name or f"flywheel-{run.run_id}",
        )
        atomic_write_text(
            run.config, yaml.safe_dump(settings.snapshot(), sort_keys=False, allow_unicode=True)
        )
    manifest.rounds_planned = max(manifest.rounds_planned, total)
    save_manifest(run.root, manifest)
    return manifest


def run_flywheel(
    settings: Settings,
    *,
    rounds: int | None = None,
    run_dir: Path | None = None,
    progress: ProgressFactory | None = None,
    on_status: Callable[[str], None] | None = None,
) -> FlywheelSummary:
    """Run (or resume) the loop for ``rounds`` rounds; returns the round summaries.

    One embedded server serves every stage of the invocation (started when first needed).

    Raises:
        ConfigError, DataError, ServerError: As the stages raise them; finished stages stay done.
    """
    flywheel = settings.flywheel
    uses_fresh_prompts(settings)  # a setting that cannot apply is refused before any work
    total = rounds or flywheel.rounds
    run_dir = Path(run_dir) if run_dir else flywheel.runs_dir / timestamp_name(flywheel.runs_dir)
    run = RunFolder(run_dir)
    manifest = _open_manifest(settings, run, total, on_status)
    runner = Runner(settings, run, manifest, progress, on_status)
    result = FlywheelSummary(run_dir=run_dir, manifest=manifest)
    with shared_servers(), open_tracker(settings.tracking, f"flywheel_{run.run_id}") as tracker:
        for k in range(1, total + 1):
            result.rounds.append(runner.round(k))
            tracker.log(round_scalars(result.rounds[-1]), step=k)
    result.skipped = runner.skipped
    result.report = write_run_report(
        run_dir, result.rounds, manifest.train_name, settings.flywheel.train_dir
    )
    return result
