"""The predict stage: ask the model about every pending (sample, trial), resumably."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tomflywheel._io import JsonlAppender, iter_jsonl, read_jsonl, write_jsonl_atomic
from tomflywheel.artifacts import Experiment, LoadedDataset
from tomflywheel.asking import Predictor, Work
from tomflywheel.llm import run_batch

logger = logging.getLogger(__name__)


def pending_predictions(dataset: LoadedDataset, experiment: Experiment, trials: int) -> list[Work]:
    """(sample, trial) pairs without a successful prediction yet, in dataset order."""
    path = experiment.predictions(dataset.label)
    done: set[tuple[str, int]] = set()
    if path.exists():
        done = {
            (r["sample_id"], int(r.get("trial", 0)))
            for r in read_jsonl(path, tolerate_partial_tail=True)
            if not r.get("error")
        }
    return [
        (sample, trial)
        for sample in dataset.samples
        for trial in range(trials)
        if (sample.id, trial) not in done
    ]


def drop_errored_predictions(dataset: LoadedDataset, experiment: Experiment) -> int:
    """Remove errored predictions (and their judgments) so that they are asked again.

    An error record (a refused request) is never "done": keeping it would make every resume
    skip that sample for good. Both files are rewritten atomically; returns how many went.
    """
    path = experiment.predictions(dataset.label)
    if not path.exists():
        return 0
    records = [r for _, r in _read_lines(path)]
    errored = {(r["sample_id"], int(r.get("trial", 0))) for r in records if r.get("error")}
    if not errored:
        return 0
    write_jsonl_atomic(path, [r for r in records if not r.get("error")])
    judgments = experiment.judgments(dataset.label)
    if judgments.exists():
        kept = [
            r
            for _, r in _read_lines(judgments)
            if (r["sample_id"], int(r.get("trial", 0))) not in errored
        ]
        write_jsonl_atomic(judgments, kept)
    logger.warning("%s: %d errored predictions will be asked again", dataset.label, len(errored))
    return len(errored)


def _read_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) of an artifact file, ignoring a partial last line left by a crash."""
    return iter_jsonl(path, tolerate_partial_tail=True)


async def run_predictions(
    dataset: LoadedDataset,
    experiment: Experiment,
    work: list[Work],
    predictor: Predictor,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Predict the pending work, appending each record as its reply arrives; returns how many.

    The file is in arrival order until ``restore_dataset_order`` sorts the finished stage.

    Raises:
        ServerError: The server became unreachable (every record answered so far is kept).
    """
    with JsonlAppender(experiment.predictions(dataset.label)) as appender:
        results = await run_batch(
            work,
            predictor,
            concurrency=predictor.client.concurrency,
            on_result=lambda _index, _item, record: appender.append(record),  # type: ignore[arg-type]
            on_progress=on_progress,
        )
    return len(results)
