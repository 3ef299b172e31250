"""The predict stage: ask the model about every pending (sample, trial), resumably."""

from __future__ import annotations

from collections.abc import Callable

from tomflywheel._io import JsonlAppender, OrderedAppender, read_jsonl
from tomflywheel.artifacts import Experiment, LoadedDataset
from tomflywheel.asking import Predictor, Work
from tomflywheel.llm import run_batch


def pending_predictions(dataset: LoadedDataset, experiment: Experiment, trials: int) -> list[Work]:
    """(sample, trial) pairs without a prediction yet, in dataset order."""
    path = experiment.predictions(dataset.label)
    done: set[tuple[str, int]] = set()
    if path.exists():
        done = {
            (r["sample_id"], int(r.get("trial", 0)))
            for r in read_jsonl(path, tolerate_partial_tail=True)
        }
    return [
        (sample, trial)
        for sample in dataset.samples
        for trial in range(trials)
        if (sample.id, trial) not in done
    ]


async def run_predictions(
    dataset: LoadedDataset,
    experiment: Experiment,
    work: list[Work],
    predictor: Predictor,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Predict the pending work, appending records in dataset order; returns how many were written.

    Raises:
        ServerError: The server became unreachable (records written so far are kept).
    """
    with JsonlAppender(experiment.predictions(dataset.label)) as appender:
        ordered = OrderedAppender(appender)
        await run_batch(
            work,
            predictor,
            concurrency=predictor.client.concurrency,
            on_result=lambda index, _item, record: ordered.put(index, record),  # type: ignore[arg-type]
            on_progress=on_progress,
        )
    return ordered.written
