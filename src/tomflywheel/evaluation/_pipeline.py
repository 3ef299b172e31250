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
    save_selection,
)
from tomflywheel.asking import JudgeContext, Predictor, build_judge
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
    llm_endpoint,
    preflight,
)
from tomflywheel.progress import ProgressFactory, no_progress, offset_progress

logger = logging.getLogger(__name__)

Stage = Literal["predict", "judge", "metric", "report"]
STAGES: tuple[Stage, ...] = ("predict", "judge", "metric", "report")


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

    The embedded server is started only if some prediction or LLM judgment is still missing:
    re-running a finished experiment sends no request and starts nothing.

    Raises:
        ConfigError: Bad dataset selection or changed settings on resume.
        DataError: A malformed dataset.
        ServerError: The server could not start or became unreachable (work so far is kept).
    """
    progress = progress or no_progress
    experiment = open_experiment(settings, exp_dir)
    reuse = (
        "predict" not in stages
        and not datasets
        and exp_dir is not None
        and any(experiment.root.glob("*/dataset.json"))
    )
    if reuse:
        loaded = load_saved_datasets(experiment)
    else:
        loaded = select_datasets(settings, datasets)
        for dataset in loaded:
            save_selection(experiment, dataset)
    summary = EvalSummary(experiment=experiment, stages=tuple(stages))
    outcomes = {
        d.label: DatasetOutcome(d.label, d.task.name, d.judge, len(d.samples)) for d in loaded
    }
    summary.datasets = list(outcomes.values())
    trials = settings.eval.trials
    # Built before any work, so an unknown judging method fails before a request is sent.
    judges = {d.label: build_judge(d.judge, settings.eval, JudgeContext(), d.task) for d in loaded}
    if "judge" in stages:
        for dataset in loaded:
            set_aside_other_method(experiment.judgments(dataset.label), judges[dataset.label])
    if "predict" in stages:
        for dataset in loaded:
            drop_errored_predictions(dataset, experiment)
    to_predict = {
        d.label: bool(pending_predictions(d, experiment, trials)) if "predict" in stages else False
        for d in loaded
    }
    in_process = [d for d in loaded if "predict" in stages and _scored_in_process(settings, d)]
    if in_process:
        _score_in_process(settings.eval, in_process, experiment, outcomes, progress)
    # A judge needs the server only for judgments still missing, or about to be (new predictions).
    scored_here = {d.label for d in in_process}
    judge_llm = "judge" in stages and any(
        judges[d.label].uses_llm and (to_predict[d.label] or bool(pending_judgments(d, experiment)))
        for d in loaded
    )
    served = [d for d in loaded if to_predict[d.label] and d.label not in scored_here]
    needs: set[Need] = {
        "logprobs" if d.judge == "logprob" else settings.llm.endpoint for d in served
    }
    if judge_llm and settings.judge.llm is None:
        needs.add("chat")
    elif judge_llm and settings.judge.llm is not None:
        preflight(settings.judge.llm, {"chat"})
    if served or judge_llm:
        cluster = (
            ray_session(settings.ray) if settings.executor == "ray" and served else nullcontext()
        )
        with llm_endpoint(settings, on_status, needs=needs) as llm, cluster:
            asyncio.run(
                _run_llm_stages(
                    settings, llm, loaded, experiment, stages, outcomes, summary, progress
                )
            )
    elif "judge" in stages:
        asyncio.run(_judge_all(settings, None, loaded, experiment, outcomes, progress))
    if "metric" in stages:
        for dataset in loaded:
            outcomes[dataset.label].metrics = write_metrics(
                settings.eval, dataset, experiment, min_judge_accuracy=settings.judge.min_accuracy
            )
    return summary


async def _run_llm_stages(
    settings: Settings,
    llm: LLMSettings,
    loaded: list[LoadedDataset],
    experiment: Experiment,
    stages: Sequence[Stage],
    outcomes: dict[str, DatasetOutcome],
    summary: EvalSummary,
    progress: ProgressFactory,
) -> None:
    async with ContentClient(llm) as client:
        if "predict" in stages:
            for dataset in loaded:
                if _scored_in_process(settings, dataset):
                    continue
                await _predict_one(
                    settings, client, dataset, experiment, outcomes[dataset.label], progress
                )
        if "judge" in stages and settings.judge.llm is None:
            await _judge_all(settings, client, loaded, experiment, outcomes, progress)
        elif "judge" in stages and settings.judge.llm is not None:
            async with ContentClient(settings.judge.llm) as judge_client:
                await _judge_all(settings, judge_client, loaded, experiment, outcomes, progress)
                summary.usage["judge"] = judge_client.stats.as_dict()
        summary.usage = {**client.stats.as_dict(), **summary.usage}


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
    loaded: list[LoadedDataset],
    experiment: Experiment,
    outcomes: dict[str, DatasetOutcome],
    progress: ProgressFactory,
) -> None:
    structure = StructureClient.from_settings(client) if client is not None else None
    context = JudgeContext(structure=structure, settings=settings.judge)
    for dataset in loaded:
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


def write_metrics(
    settings: EvalSettings,
    dataset: LoadedDataset,
    experiment: Experiment,
    *,
    min_judge_accuracy: float = 0.8,
) -> dict[str, Any]:
    """Compute a dataset's metrics from its artifacts and write ``metrics.json`` (no request).

    Beside accuracy, ``shortcuts`` says which non-ToM heuristic best explains the model's
    answers and how often it names the real location on false-belief targets.
    """
    predictions = read_predictions(experiment.predictions(dataset.label))
    judgments = read_judgments(experiment.judgments(dataset.label))
    metrics = compute_metrics(
        label=dataset.label,
        task=dataset.task,
        samples=dataset.samples,
        predictions=predictions,
        judgments=judgments,
        logprob=settings.logprob,
        min_judge_accuracy=min_judge_accuracy,
    )
    metrics["shortcuts"] = audit_predictions(audit_items(dataset.samples), predictions, judgments)
    # Read from the experiment's own snapshot, so a metric re-run from the folder alone agrees.
    metrics["judge_identity"] = judge_identity(experiment_settings(experiment.root), judgments)
    atomic_write_json(experiment.metrics(dataset.label), metrics)
    write_uid_outputs(settings, dataset, experiment, metrics)
    return metrics
