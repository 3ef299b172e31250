"""Run the evaluation stages (predict -> judge -> metric) on an experiment folder.

The report is not a stage of this function: its caller (the CLI, the flywheel) writes it from
the folder, so the evaluation stage never depends on the report package.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tomflywheel._io import atomic_write_json
from tomflywheel.artifacts import (
    Experiment,
    LoadedDataset,
    experiment_settings,
    load_saved_datasets,
    open_experiment,
    read_judgments,
    read_predictions,
    save_config,
    save_selection,
)
from tomflywheel.asking import Judge, JudgeContext, Predictor, build_judge
from tomflywheel.audit import audit_items, audit_predictions
from tomflywheel.cluster import ray_session
from tomflywheel.config import EvalSettings, LLMSettings, Settings
from tomflywheel.errors import ConfigError
from tomflywheel.evaluation._identity import judge_identity
from tomflywheel.evaluation._judging import (
    pending_judgments,
    run_judgments,
    set_aside_other_method,
)
from tomflywheel.evaluation._local_scoring import run_local_scoring
from tomflywheel.evaluation._metrics import compute_metrics
from tomflywheel.evaluation._order import restore_dataset_order
from tomflywheel.evaluation._predict import (
    drop_errored_predictions,
    pending_predictions,
    run_predictions,
)
from tomflywheel.evaluation._predict_ray import predict_on_ray
from tomflywheel.evaluation._select import select_datasets
from tomflywheel.evaluation._uid_outputs import write_uid_outputs
from tomflywheel.llm import (
    ContentClient,
    Need,
    StructureClient,
    build_scorer,
    check_endpoint,
    llm_endpoint,
    preflight,
)
from tomflywheel.progress import ProgressFactory, no_progress, offset_progress
from tomflywheel.tracking import open_tracker, scalars

logger = logging.getLogger(__name__)

Stage = Literal["predict", "judge", "metric"]
STAGES: tuple[Stage, ...] = ("predict", "judge", "metric")


@dataclass
class DatasetOutcome:
    """What the stages did for one dataset."""

    label: str
    task: str
    judge: str
    n_samples: int
    predicted: int = 0
    """Predictions written by this run."""
    prediction_skipped: int = 0
    """Predictions already there (a resume)."""
    judged: int = 0
    judgment_skipped: int = 0
    metrics: dict[str, Any] | None = None


@dataclass
class EvalSummary:
    """The result of ``run_evaluation``."""

    experiment: Experiment
    stages: tuple[Stage, ...] = STAGES
    """The stages that ran."""
    datasets: list[DatasetOutcome] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    """Requests, cache hits, tokens of the evaluated model (and of the judge, under ``judge``)."""


@dataclass
class _Plan:
    """What a run has to do, decided from what is on disk before anything is written or sent."""

    experiment: Experiment
    loaded: list[LoadedDataset]
    judges: dict[str, Judge]
    """Each dataset's judge, built before any work so an unknown method fails first."""
    stages: tuple[Stage, ...]
    reused: bool
    """The datasets come from the folder itself (a judge or metric re-run), not from settings."""
    scored_here: list[LoadedDataset] = field(default_factory=list)
    """Datasets to predict with an in-process scoring backend (work pending or not)."""
    served: list[LoadedDataset] = field(default_factory=list)
    """Datasets with predictions to ask of the server."""
    judge_llm: bool = False
    """Whether some judgment still to make needs an LLM."""
    needs: set[Need] = field(default_factory=set)
    """The kinds of request the evaluated model's server must accept."""
    missing: dict[str, int] = field(default_factory=dict)
    """Predictions still to make per dataset (when the predict stage runs)."""

    @property
    def uses_server(self) -> bool:
        """Whether any request goes to the evaluated model's server (or to it as the judge)."""
        return bool(self.served) or self.judge_llm


def run_evaluation(
    settings: Settings,
    *,
    datasets: Sequence[str] | None = None,
    stages: Sequence[Stage] = STAGES,
    exp_dir: Path | None = None,
    progress: ProgressFactory | None = None,
    on_status: Callable[[str], None] | None = None,
) -> EvalSummary:
    """Run the chosen stages; finished work is skipped, so a killed run resumes where it stopped.

    Steps: plan (read datasets and the folder), pre-flight (the server answers, serves the model
    and accepts the requests), prepare the folder, predict, judge, score. Nothing is written
    before the pre-flight passes, so a failed start leaves ``exp_dir`` as it was. The embedded
    server is started only if some prediction or LLM judgment is still missing: re-running a
    finished experiment sends no request and starts nothing.

    Raises:
        ConfigError: Bad dataset selection or changed settings on resume.
        DataError: A malformed dataset.
        ServerError: The server could not start or became unreachable (work so far is kept).
    """
    progress = progress or no_progress
    plan = _plan(settings, datasets, tuple(stages), exp_dir)
    _preflight(settings, plan)
    _prepare_folder(settings, plan)
    summary = EvalSummary(experiment=plan.experiment, stages=plan.stages)
    outcomes = _outcomes(settings, plan)
    summary.datasets = list(outcomes.values())
    if plan.scored_here:
        _score_in_process(settings.eval, plan.scored_here, plan.experiment, outcomes, progress)
    if plan.uses_server:
        _ask_server(settings, plan, outcomes, summary, progress, on_status)
    elif "judge" in plan.stages:
        asyncio.run(_judge_all(settings, None, plan, outcomes, progress))
    _restore_order(plan, "predict")  # also after a run killed between its last append and this
    if "metric" in plan.stages:
        for dataset in plan.loaded:
            outcomes[dataset.label].metrics = write_metrics(
                settings.eval,
                dataset,
                plan.experiment,
                min_judge_accuracy=settings.judge.min_accuracy,
            )
        _track(settings, plan.experiment.root, outcomes)
    return summary


def _track(settings: Settings, root: Path, outcomes: dict[str, DatasetOutcome]) -> None:
    """Log every dataset's metrics (``eval/<label>/...``) to the tracking backend, if any."""
    if settings.tracking.to == "none":
        return
    run = "_".join(root.resolve().parts[-3:])  # a flywheel's rounds share the last part
    with open_tracker(settings.tracking, run) as tracker:
        for label, outcome in outcomes.items():
            if outcome.metrics is not None:
                # every heuristic's own figures stay in metrics.json: the model's are logged
                skip = frozenset({"usage", "heuristics"})
                tracker.log(scalars(outcome.metrics, f"eval/{label}", skip=skip))


def _plan(
    settings: Settings,
    datasets: Sequence[str] | None,
    stages: tuple[Stage, ...],
    exp_dir: Path | None,
) -> _Plan:
    """Read the datasets and the folder (writing nothing) and decide what is left to do."""
    experiment = open_experiment(settings, exp_dir, create=False)
    reuse = (
        "predict" not in stages
        and not datasets
        and exp_dir is not None
        and any(experiment.root.glob("*/dataset.json"))
    )
    loaded = load_saved_datasets(experiment) if reuse else select_datasets(settings, datasets)
    judges = {d.label: build_judge(d.judge, settings.eval, JudgeContext(), d.task) for d in loaded}
    plan = _Plan(experiment, loaded, judges, stages, reused=reuse)
    if "predict" in stages:
        # Errored predictions are missing too: they are asked again.
        trials = settings.eval.trials
        plan.missing = {d.label: len(pending_predictions(d, experiment, trials)) for d in loaded}
        plan.scored_here = [d for d in loaded if _scored_in_process(settings, d)]
    to_predict = {label for label, n in plan.missing.items() if n}
    here = {d.label for d in plan.scored_here}
    plan.served = [d for d in loaded if d.label in to_predict and d.label not in here]
    # A judge needs the server only for judgments still missing, or about to be (new predictions).
    plan.judge_llm = "judge" in stages and any(
        judges[d.label].uses_llm
        and (d.label in to_predict or bool(pending_judgments(d, experiment, judges[d.label])))
        for d in loaded
    )
    plan.needs = {
        "logprobs" if d.judge == "logprob" else settings.llm.endpoint for d in plan.served
    }
    if plan.judge_llm and settings.judge.llm is None:
        plan.needs.add("chat")
    return plan


def _preflight(settings: Settings, plan: _Plan) -> None:
    """Before anything is written: the servers this run will use answer and serve the model."""
    if plan.uses_server:
        check_endpoint(settings, plan.needs)  # an embedded server is checked as it starts
    if plan.judge_llm and settings.judge.llm is not None:
        preflight(settings.judge.llm, {"chat"})


def _prepare_folder(settings: Settings, plan: _Plan) -> None:
    """Write the settings and the evaluated samples; clear what this run will redo."""
    experiment = plan.experiment
    save_config(settings, experiment)
    for dataset in plan.loaded:
        if not plan.reused:
            save_selection(experiment, dataset)
        if "judge" in plan.stages:
            set_aside_other_method(experiment.judgments(dataset.label), plan.judges[dataset.label])
        if "predict" in plan.stages:
            drop_errored_predictions(dataset, experiment)


def _outcomes(settings: Settings, plan: _Plan) -> dict[str, DatasetOutcome]:
    """Each dataset's outcome, counting the predictions already done before this run."""
    outcomes = {}
    for d in plan.loaded:
        outcome = DatasetOutcome(d.label, d.task.name, d.judge, len(d.samples))
        if d.label in plan.missing:
            total = len(d.samples) * settings.eval.trials
            outcome.prediction_skipped = total - plan.missing[d.label]
        outcomes[d.label] = outcome
    return outcomes


def _ask_server(
    settings: Settings,
    plan: _Plan,
    outcomes: dict[str, DatasetOutcome],
    summary: EvalSummary,
    progress: ProgressFactory,
    on_status: Callable[[str], None] | None,
) -> None:
    """Predict and judge what needs the server (started here when embedded)."""
    ray = settings.executor == "ray" and bool(plan.served)
    cluster = ray_session(settings.ray) if ray else nullcontext()
    # Ray workers send the requests from other processes: start the server before them.
    with llm_endpoint(settings, on_status, needs=plan.needs, lazy=not ray) as llm, cluster:
        asyncio.run(_run_llm_stages(settings, llm, plan, outcomes, summary, progress))


async def _run_llm_stages(
    settings: Settings,
    llm: LLMSettings,
    plan: _Plan,
    outcomes: dict[str, DatasetOutcome],
    summary: EvalSummary,
    progress: ProgressFactory,
) -> None:
    async with ContentClient(llm) as client:
        for dataset in plan.served:
            await _predict_one(
                settings, client, dataset, plan.experiment, outcomes[dataset.label], progress
            )
        _restore_order(plan, "predict")
        if "judge" in plan.stages and settings.judge.llm is None:
            await _judge_all(settings, client, plan, outcomes, progress)
        elif "judge" in plan.stages and settings.judge.llm is not None:
            async with ContentClient(settings.judge.llm) as judge_client:
                await _judge_all(settings, judge_client, plan, outcomes, progress)
                summary.usage["judge"] = judge_client.stats.as_dict()
        summary.usage = {**client.stats.as_dict(), **summary.usage}


def _restore_order(plan: _Plan, stage: Literal["predict", "judge"]) -> None:
    """Put a finished stage's files in dataset order (they were appended as replies arrived)."""
    if stage not in plan.stages:
        return
    for dataset in plan.loaded:
        if stage == "predict":
            path = plan.experiment.predictions(dataset.label)
            restore_dataset_order(path, dataset.samples, read_predictions)
        else:
            path = plan.experiment.judgments(dataset.label)
            restore_dataset_order(path, dataset.samples, read_judgments)


async def _predict_one(
    all_settings: Settings,
    client: ContentClient,
    dataset: LoadedDataset,
    experiment: Experiment,
    outcome: DatasetOutcome,
    progress: ProgressFactory,
) -> None:
    settings = all_settings.eval
    work = pending_predictions(dataset, experiment, settings.trials)
    total = len(dataset.samples) * settings.trials
    outcome.prediction_skipped = total - len(work)
    if not work:
        return
    with progress(f"predict {dataset.label}", skipped=outcome.prediction_skipped) as update:
        on_progress = offset_progress(update, outcome.prediction_skipped, total)
        if all_settings.executor == "ray":
            outcome.predicted, usage = await asyncio.to_thread(
                predict_on_ray,
                client.settings,
                settings,
                dataset,
                experiment,
                work,
                block=all_settings.ray.eval_block,
                on_progress=on_progress,
            )
            client.stats.add(usage)
            return
        predictor = Predictor(
            client=client, settings=settings, task=dataset.task, logprob=dataset.judge == "logprob"
        )
        outcome.predicted = await run_predictions(
            dataset, experiment, work, predictor, on_progress=on_progress
        )


def _scored_in_process(settings: Settings, dataset: LoadedDataset) -> bool:
    """The dataset's options are scored by an in-process backend, not by the server."""
    return settings.eval.scoring.backend != "server" and dataset.judge == "logprob"


def _score_in_process(
    settings: EvalSettings,
    loaded: list[LoadedDataset],
    experiment: Experiment,
    outcomes: dict[str, DatasetOutcome],
    progress: ProgressFactory,
) -> None:
    """Predict the datasets with the configured in-process backend (the model is loaded once).

    Nothing is loaded when every prediction is already there (a resume).
    """
    pending = {d.label: pending_predictions(d, experiment, settings.trials) for d in loaded}
    for dataset in loaded:
        total = len(dataset.samples) * settings.trials
        outcomes[dataset.label].prediction_skipped = total - len(pending[dataset.label])
    if not any(pending.values()):
        return
    scorer = build_scorer(settings.scoring)
    try:
        for dataset in loaded:
            outcome = outcomes[dataset.label]
            work = pending[dataset.label]
            if not work:
                continue
            total = len(dataset.samples) * settings.trials
            label = f"score {dataset.label} ({scorer.name})"
            with progress(label, skipped=outcome.prediction_skipped) as update:
                outcome.predicted = asyncio.run(
                    run_local_scoring(
                        dataset,
                        experiment,
                        work,
                        scorer,
                        settings,
                        on_progress=offset_progress(update, outcome.prediction_skipped, total),
                    )
                )
    finally:
        scorer.close()


async def _judge_all(
    settings: Settings,
    client: ContentClient | None,
    plan: _Plan,
    outcomes: dict[str, DatasetOutcome],
    progress: ProgressFactory,
) -> None:
    structure = StructureClient.from_settings(client) if client is not None else None
    context = JudgeContext(structure=structure, settings=settings.judge)
    experiment = plan.experiment
    for dataset in plan.loaded:
        outcome = outcomes[dataset.label]
        judge = build_judge(dataset.judge, settings.eval, context, dataset.task)
        pending = pending_judgments(dataset, experiment)
        total = len(read_predictions(experiment.predictions(dataset.label)))
        outcome.judgment_skipped = total - len(pending)
        if not pending:
            continue
        if judge.uses_llm and structure is None:
            raise ConfigError(f"{dataset.label}: judge {dataset.judge!r} needs an LLM server")
        with progress(f"judge {dataset.label}", skipped=outcome.judgment_skipped) as update:
            outcome.judged = await run_judgments(
                dataset,
                experiment,
                pending,
                judge,
                concurrency=client.concurrency if client else 1,
                on_progress=offset_progress(update, outcome.judgment_skipped, total),
            )
    _restore_order(plan, "judge")


def write_metrics(
    settings: EvalSettings,
    dataset: LoadedDataset,
    experiment: Experiment,
    *,
    min_judge_accuracy: float = 0.8,
) -> dict[str, Any]:
    """Compute a dataset's metrics from its artifacts and write ``metrics.json`` (no request).

    Beside accuracy, ``shortcuts`` says which non-ToM heuristic best explains the model's
    answers and how often it names the real location on false-belief targets; ``shortcut``
    scores the answers on what no such heuristic passes (belief-balanced, story-level, paired).
    """
    predictions = read_predictions(experiment.predictions(dataset.label))
    judgments = read_judgments(experiment.judgments(dataset.label))
    items = audit_items(dataset.samples)  # once: each reads its story with the engine
    metrics = compute_metrics(
        label=dataset.label,
        task=dataset.task,
        samples=dataset.samples,
        predictions=predictions,
        judgments=judgments,
        logprob=settings.logprob,
        min_judge_accuracy=min_judge_accuracy,
        items={item.sample.id: item for item in items},
    )
    metrics["shortcuts"] = audit_predictions(items, predictions, judgments)
    # Read from the experiment's own snapshot, so a metric re-run from the folder alone agrees.
    metrics["judge_identity"] = judge_identity(experiment_settings(experiment.root), judgments)
    atomic_write_json(experiment.metrics(dataset.label), metrics)
    write_uid_outputs(settings, dataset, experiment, metrics)
    return metrics
