"""Evaluation requests sent from Ray workers: the local requests, records and metrics."""

from __future__ import annotations

import pytest

from tests.evaluation.conftest import external_settings
from tomflywheel.config import DatasetRef, RaySettings
from tomflywheel.evaluation import run_evaluation

pytestmark = [pytest.mark.vllm, pytest.mark.ray]


def test_ray_workers_send_the_local_requests_and_write_the_local_records(
    slices, vllm_base_url, ray_cluster: RaySettings, tmp_path
):
    datasets = [
        DatasetRef(path=slices["tomi"], name="tomi_open", max_samples=4),
        DatasetRef(path=slices["hitom"], name="hitom_choice", max_samples=3),
        DatasetRef(path=slices["tomi"], name="tomi_logprob", judge="logprob", max_samples=3),
    ]
    local = external_settings(vllm_base_url, tmp_path, datasets=datasets)
    on_ray = local.model_copy(
        update={"executor": "ray", "ray": ray_cluster.model_copy(update={"eval_block": 2})}
    )
    first = run_evaluation(on_ray, exp_dir=tmp_path / "ray")
    assert first.usage["requests_sent"] > 0  # the workers' requests are counted
    # The same cache: a local run is answered entirely by what the workers stored, so they sent
    # exactly the request bodies the local executor sends.
    second = run_evaluation(local, exp_dir=tmp_path / "local")
    assert second.usage["requests_sent"] == 0
    assert second.usage["cache_hits"] >= sum(d.predicted for d in first.datasets)
    files = ["prediction.jsonl", "judgment.jsonl", "metrics.json"]
    for dataset in datasets:
        for name in files:
            made = (tmp_path / "ray" / dataset.label / name).read_bytes()
            assert made == (tmp_path / "local" / dataset.label / name).read_bytes(), name
