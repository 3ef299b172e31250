"""Pre-flight checks and error records on resume, against the real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SERVED_NAME
from tests.evaluation.conftest import external_settings, write_choice_dataset
from tomflywheel.config import DatasetRef, LLMSettings
from tomflywheel.errors import ConfigError, ServerError
from tomflywheel.evaluation import run_evaluation
from tomflywheel.llm import free_port, preflight

pytestmark = pytest.mark.vllm


def _eval(exp: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tomflywheel", "eval", "-s", "predict", "--exp-dir", str(exp)]
    return subprocess.run([*command, *args], env=env, capture_output=True, text=True, check=False)


def _env(base_url: str, model: str, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "TOMFLYWHEEL_BASE_URL": base_url,
        "TOMFLYWHEEL_MODEL": model,
        "TOMFLYWHEEL_CACHE_DIR": str(tmp_path / "cache"),
    }


def test_a_wrong_model_name_fails_before_anything_is_written_and_the_right_one_then_runs(
    vllm_base_url, tmp_path
):
    dataset = write_choice_dataset(tmp_path / "toys.jsonl", 2)
    exp = tmp_path / "exp"
    result = _eval(exp, _env(vllm_base_url, "no-such-model", tmp_path), "-d", str(dataset))
    assert result.returncode == 2  # an unknown name: the command never started
    assert "'no-such-model' is not served" in result.stderr
    assert SERVED_NAME in result.stderr
    assert "Traceback" not in result.stderr
    assert not exp.exists()  # no config.yaml, no samples.jsonl: the folder is as it was
    # The same command with the right name, into the same folder, is not refused.
    again = _eval(exp, _env(vllm_base_url, SERVED_NAME, tmp_path), "-d", str(dataset))
    assert again.returncode == 0, again.stderr
    assert "predicted 2" in again.stderr
    assert len((exp / "toys" / "prediction.jsonl").read_text().splitlines()) == 2


def test_a_bad_dataset_path_leaves_the_folder_as_it_was_and_the_right_one_then_runs(
    vllm_base_url, tmp_path
):
    dataset = write_choice_dataset(tmp_path / "toys.jsonl", 2)
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "notes.txt").write_text("mine\n", encoding="utf-8")
    env = _env(vllm_base_url, SERVED_NAME, tmp_path)
    result = _eval(exp, env, "-d", str(tmp_path / "no-such.jsonl"))
    assert result.returncode != 0 and "no-such" in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in exp.iterdir()) == ["notes.txt"]
    again = _eval(exp, env, "-d", str(dataset))
    assert again.returncode == 0, again.stderr
    assert (exp / "config.yaml").exists()
    assert len((exp / "toys" / "prediction.jsonl").read_text().splitlines()) == 2


def test_the_kinds_of_request_a_stage_needs_are_probed(vllm_base_url):
    settings = LLMSettings(base_urls=[vllm_base_url], model=SERVED_NAME)
    preflight(settings, {"chat", "completions", "logprobs"})  # the real server supports all
    dead = LLMSettings(base_urls=[f"http://127.0.0.1:{free_port()}/v1"], model=SERVED_NAME)
    with pytest.raises(ServerError, match="unreachable"):
        preflight(dead, {"chat"})
    both = LLMSettings(base_urls=[dead.base_urls[0], vllm_base_url], model="other")
    with pytest.raises(ConfigError, match=f"served at {vllm_base_url}; it serves: {SERVED_NAME}"):
        preflight(both, {"chat"})


def test_an_errored_prediction_is_asked_again_on_resume(vllm_base_url, tmp_path):
    dataset = write_choice_dataset(tmp_path / "toys.jsonl", 3)  # mechanics: no benchmark needed
    settings = external_settings(
        vllm_base_url, tmp_path, datasets=[DatasetRef(path=dataset, name="t")]
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
