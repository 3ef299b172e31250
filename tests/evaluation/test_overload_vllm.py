"""An overloaded server slows the evaluation down instead of failing it (real server, a proxy)."""

from __future__ import annotations

import json

import pytest

from tests.evaluation.conftest import external_settings
from tests.llm._proxy import Faults, proxy_thread
from tomflywheel.config import DatasetRef
from tomflywheel.evaluation import run_evaluation

pytestmark = pytest.mark.vllm


def test_requests_delayed_past_the_timeout_lower_concurrency_and_the_stage_finishes(
    slices, vllm_base_url, tmp_path
):
    # Beyond two requests in flight the "server" holds each one 2 s: past the 0.5 s base
    # timeout, so a fixed timeout with bounded retries would abort the stage.
    faults = Faults(delay_s=2.0, busy_above=2)
    with proxy_thread(vllm_base_url, faults) as (url, log):
        settings = external_settings(
            url, tmp_path, datasets=[DatasetRef(path=slices["tomi"], name="tomi", max_samples=6)]
        )
        llm = settings.llm.model_copy(
            update={"timeout_s": 0.5, "max_retries": 0, "backoff_initial_s": 0.05}
        )
        settings = settings.model_copy(update={"llm": llm})
        summary = run_evaluation(settings, exp_dir=tmp_path / "exp", stages=["predict"])
    usage = summary.usage
    assert log.counts["delayed"] >= 1
    assert usage["slow_downs"] >= 1
    assert usage["concurrency_lowest"] < 8  # the configured concurrency
    assert usage["failures"] == 0
    lines = (summary.experiment.root / "tomi" / "prediction.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 6 and all(r["error"] is None for r in records)
    assert summary.datasets[0].predicted == 6
