"""Predictions from Ray workers: blocks of (sample, trial) asked by a client on each worker.

Each worker builds the same ``ContentClient`` from the run's resolved endpoint settings (so the
same request bodies, request cache, retries and failover) and the same ``Predictor``; the
driver appends each block's records as the block finishes, so a killed run keeps every
finished block and resumes like the local one (the stage sorts the file once it is done). The
in-flight limit is shared out: each of the cluster's CPUs gets ``llm.concurrency / CPUs``
requests, so the servers see the load the local executor would send.
"""

from __future__ import annotations

import asyncio
import math
import pickle
from collections.abc import Callable
from functools import partial
from typing import Any

from tomflywheel._io import JsonlAppender
from tomflywheel.artifacts import Experiment, LoadedDataset
from tomflywheel.asking import Predictor, TaskSpec, Work
from tomflywheel.cluster import import_ray, map_blocks
from tomflywheel.config import ENV_API_KEY, EvalSettings, LLMSettings
from tomflywheel.llm import ContentClient, UsageStats, run_batch


async def _ask(
    llm: LLMSettings, settings: EvalSettings, task: TaskSpec, logprob: bool, work: list[Work]
) -> tuple[list[Any], UsageStats]:
    async with ContentClient(llm) as client:
        predictor = Predictor(client=client, settings=settings, task=task, logprob=logprob)
        results = await run_batch(work, predictor, concurrency=client.concurrency)
        return results, client.stats


def _predict_block(
    llm: LLMSettings, settings: EvalSettings, task: TaskSpec, logprob: bool, payload: bytes
) -> bytes:
    """One block on a worker: its prediction records, in order, and the client's usage.

    The API key is read here, from the worker's environment (``llm.api_key_env``, or
    ``TOMFLYWHEEL_API_KEY``): it is never part of the task's payload.
    """
    work: list[Work] = pickle.loads(payload)
    keyed = llm.with_environment_key(ENV_API_KEY)
    return pickle.dumps(asyncio.run(_ask(keyed, settings, task, logprob, work)))


def worker_settings(llm: LLMSettings, cpus: int) -> LLMSettings:
    """What each worker gets: its share of the in-flight limit, and no API key."""
    return llm.model_copy(
        update={"concurrency": max(1, math.ceil(llm.concurrency / cpus)), "api_key": None}
    )


def predict_on_ray(
    llm: LLMSettings,
    settings: EvalSettings,
    dataset: LoadedDataset,
    experiment: Experiment,
    work: list[Work],
    *,
    block: int,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[int, UsageStats]:
    """Predict the pending work on Ray; returns records written and the workers' usage.

    Ray must be connected. Runs in a thread of its own (it blocks while blocks are out).
    """
    cpus = max(1, int(import_ray().cluster_resources().get("CPU", 1)))
    share = worker_settings(llm, cpus)
    starts = range(0, len(work), block)
    payloads = [(n, pickle.dumps(work[start : start + block])) for n, start in enumerate(starts)]
    usage = UsageStats()
    done = 0
    with JsonlAppender(experiment.predictions(dataset.label)) as appender:
        for _, result in map_blocks(
            partial(_predict_block, share, settings, dataset.task, dataset.judge == "logprob"),
            payloads,
        ):
            records, stats = pickle.loads(result)
            done += appender.extend(records)
            usage.add(stats)
            if on_progress is not None:
                on_progress(done, len(work))
    return done, usage
