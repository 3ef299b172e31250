"""The predict stage for an in-process scoring backend: score pending samples in chunks, in order.

The server path asks one sample per request at the client's concurrency; an in-process model is
faster fed many pairs at once (batched by length), so pending work goes to it a chunk at a time
and each chunk's predictions are appended in dataset order (a kill loses at most one chunk).
"""

from __future__ import annotations

from collections.abc import Callable

from tomflywheel._io import JsonlAppender
from tomflywheel.artifacts import Experiment, LoadedDataset
from tomflywheel.asking import (
    Work,
    scored_prediction,
    scoring_request,
    scoring_sample,
    unscorable_prediction,
)
from tomflywheel.config import EvalSettings
from tomflywheel.llm import Scorer
from tomflywheel.schema import Prediction

CHUNK = 128
"""Samples handed to the scorer at once."""


async def _score_chunk(
    chunk: list[Work], dataset: LoadedDataset, scorer: Scorer, settings: EvalSettings
) -> list[Prediction]:
    ready: dict[int, Prediction] = {}
    requests = []
    for index, (sample, trial) in enumerate(chunk):
        scored = scoring_sample(sample)
        if scored is None:
            ready[index] = unscorable_prediction(
                sample, trial, settings=settings, task=dataset.task
            )
            continue
        request = scoring_request(
            sample, trial, settings=settings, task=dataset.task, scored=scored, endpoint=scorer.name
        )
        requests.append((index, request))
    results = await scorer.score([request.pairs for _, request in requests])
    for (index, request), scores in zip(requests, results, strict=True):
        ready[index] = scored_prediction(request, scores)
    return [ready[index] for index in range(len(chunk))]


async def run_local_scoring(
    dataset: LoadedDataset,
    experiment: Experiment,
    work: list[Work],
    scorer: Scorer,
    settings: EvalSettings,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Score the pending work with ``scorer``, appending predictions in order; returns how many."""
    written = 0
    with JsonlAppender(experiment.predictions(dataset.label)) as appender:
        for start in range(0, len(work), CHUNK):
            chunk = work[start : start + CHUNK]
            written += appender.extend(await _score_chunk(chunk, dataset, scorer, settings))
            if on_progress is not None:
                on_progress(written, len(work))
    return written
