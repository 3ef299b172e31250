"""Pre-flight checks and error records on resume, against the real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import SERVED_NAME
from tests.evaluation.conftest import external_settings
from tomflywheel.config import DatasetRef, LLMSettings
from tomflywheel.errors import ConfigError, ServerError
from tomflywheel.evaluation import run_evaluation
from tomflywheel.llm import free_port, preflight

pytestmark = pytest.mark.vllm


def test_a_wrong_model_name_fails_before_any_work_listing_the_served_models(
    slices, vllm_base_url, tmp_path
):
    env = {
        **os.environ,
        "TOMFLYWHEEL_BASE_URL": vllm_base_url,
        "TOMFLYWHEEL_MODEL": "no-such-model",
        "TOMFLYWHEEL_CACHE_DIR": str(tmp_path / "cache"),
    }
    exp = tmp_path / "exp"
    result = subprocess.run(
        [sys.executable, "-m", "tomflywheel", "eval", "-d", str(slices["tomi"]),
         "--max-samples", "2", "--exp-dir", str(exp)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 2  # an unknown name: the command never started
    assert "'no-such-model' is not served" in result.stderr
    assert SERVED_NAME in result.stderr
    assert "Traceback" not in result.stderr
    assert not (exp / "tomi" / "prediction.jsonl").exists()  # nothing was sent


def test_the_kinds_of_request_a_stage_needs_are_probed(vllm_base_url):
    settings = LLMSettings(base_urls=[vllm_base_url], model=SERVED_NAME)
    preflight(settings, {"chat", "completions", "logprobs"})  # the real server supports all
    dead = LLMSettings(base_urls=[f"http://127.0.0.1:{free_port()}/v1"], model=SERVED_NAME)
    with pytest.raises(ServerError, match="unreachable"):
        preflight(dead, {"chat"})
    both = LLMSettings(base_urls=[dead.base_urls[0], vllm_base_url], model="other")
    with pytest.raises(ConfigError, match=f"served at {vllm_base_url}; it serves: {SERVED_NAME}"):
        preflight(both, {"chat"})


def test_an_errored_prediction_is_asked_again_on_resume(slices, vllm_base_url, tmp_path):
    settings = external_settings(
        vllm_base_url, tmp_path, datasets=[DatasetRef(path=slices["tomi"], name="t", max_samples=3)]
    )
    generation = settings.eval.generation.model_copy(update={"max_tokens": 16})
    settings.eval.generation = generation  # short answers: this test is about bookkeeping
    exp = tmp_path / "exp"
    first = run_evaluation(settings, exp_dir=exp, stages=["predict", "judge"])
    predictions = first.experiment.root / "t" / "prediction.jsonl"
    judgments = first.experiment.root / "t" / "judgment.jsonl"
    clean = predictions.read_bytes()
    records = [json.loads(line) for line in predictions.read_text().splitlines()]
    # As a refused request leaves it: an error record, judged "error".
    records[1].update(raw_output=None, error="HTTP 404: injected")
    predictions.write_text("".join(json.dumps(r) + "\n" for r in records))
    again = run_evaluation(settings, exp_dir=exp, stages=["predict", "judge"])
    assert again.datasets[0].predicted == 1 and again.datasets[0].prediction_skipped == 2
    assert again.datasets[0].judged == 1
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert sorted(r["sample_id"] for r in lines) == sorted(r["sample_id"] for r in records)
    assert all(r["error"] is None for r in lines)
    assert len(judgments.read_text().splitlines()) == 3
    assert sorted(predictions.read_bytes().splitlines()) == sorted(clean.splitlines())
