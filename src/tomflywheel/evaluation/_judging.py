"""The judge stage: a verdict for every prediction, resumably, with the configured method."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from tomflywheel._io import JsonlAppender
from tomflywheel.artifacts import Experiment, LoadedDataset, read_judgments, read_predictions
from tomflywheel.asking import Judge
from tomflywheel.llm import run_batch
from tomflywheel.schema import Judgment, Prediction

logger = logging.getLogger(__name__)


def set_aside_other_method(path: Path, judge: Judge) -> None:
    """Keep judgments made by another method under their own name; the new method starts clean."""
    judgments = read_judgments(path)
    if not judgments or judgments[0].method == judge.ref:
        return
    old = judgments[0].method.name
    target = path.with_name(f"judgment.{old}.jsonl")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"judgment.{old}.{n}.jsonl")
    path.rename(target)
    logger.warning(
        "judgments made by %r moved to %s; judging again with %r", old, target, judge.ref.name
    )


def pending_judgments(
    dataset: LoadedDataset, experiment: Experiment, judge: Judge | None = None
) -> list[Prediction]:
    """Predictions of the dataset's samples that have no judgment yet, in file order.

    With ``judge``, judgments made by another method count as missing (they will be set aside).
    """
    wanted = {sample.id for sample in dataset.samples}
    judgments = read_judgments(experiment.judgments(dataset.label))
    if judge is not None and judgments and judgments[0].method != judge.ref:
        judgments = []
    done = {(j.sample_id, j.trial) for j in judgments}
    return [
        p
        for p in read_predictions(experiment.predictions(dataset.label))
        if p.sample_id in wanted and (p.sample_id, p.trial) not in done
    ]


async def run_judgments(
    dataset: LoadedDataset,
    experiment: Experiment,
    predictions: list[Prediction],
    judge: Judge,
    *,
    concurrency: int,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Judge the pending predictions, appending each as it is made; returns how many.

    The file is in arrival order until ``restore_dataset_order`` sorts the finished stage.
    """
    by_id = {sample.id: sample for sample in dataset.samples}

    async def one(prediction: Prediction) -> Judgment:
        return await judge(by_id[prediction.sample_id], prediction)

    with JsonlAppender(experiment.judgments(dataset.label)) as appender:
        results = await run_batch(
            predictions,
            one,
            concurrency=concurrency if judge.uses_llm else 1,
            on_result=lambda _index, _item, record: appender.append(record),  # type: ignore[arg-type]
            on_progress=on_progress,
        )
    return len(results)
