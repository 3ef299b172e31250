"""The evaluation end to end against the real embedded vLLM server, on real benchmark slices."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import served_requests
from tests.evaluation.conftest import external_settings, write_choice_dataset
from tomflywheel.config import DatasetRef
from tomflywheel.evaluation import run_evaluation
from tomflywheel.report import write_experiment_report

pytestmark = pytest.mark.vllm


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def finished(slices, vllm_base_url, tmp_path_factory):
    """One experiment over open, choice, completion and log-prob datasets."""
    work = tmp_path_factory.mktemp("eval")
    datasets = [
        DatasetRef(path=slices["tomi"], name="tomi_open", max_samples=12),
        DatasetRef(path=slices["hitom"], name="hitom_choice", max_samples=8),
        DatasetRef(path=slices["kosinski"], name="kosinski_completion", max_samples=8),
        DatasetRef(path=slices["tomi"], name="tomi_logprob", judge="logprob", max_samples=8),
    ]
    settings = external_settings(vllm_base_url, work, datasets=datasets)
    summary = run_evaluation(settings, exp_dir=work / "results" / "exp")
    write_experiment_report(summary.experiment)
    return settings, summary


def test_every_kind_of_dataset_is_predicted_judged_and_scored(finished):
    _, summary = finished
    root = summary.experiment.root
    sizes = {"tomi_open": 12, "hitom_choice": 8, "kosinski_completion": 8, "tomi_logprob": 8}
    for label, n in sizes.items():
        predictions = _lines(root / label / "prediction.jsonl")
        judgments = _lines(root / label / "judgment.jsonl")
        assert [p["sample_id"] for p in predictions] == [j["sample_id"] for j in judgments]
        assert len({p["sample_id"] for p in predictions}) == n
        metrics = json.loads((root / label / "metrics.json").read_text(encoding="utf-8"))
        counts = metrics["counts"]
        # Issue 18: ambiguous replies are counted apart and scored as wrong.
        assert sum(counts.values()) == n
        assert (
            metrics["overall"]["n"] == counts["correct"] + counts["incorrect"] + counts["ambiguous"]
        )
    hitom = _lines(root / "hitom_choice" / "prediction.jsonl")
    assert all(len(p["options"]) == 15 and len(p["gold_letters"]) == 1 for p in hitom)
    kosinski = _lines(root / "kosinski_completion" / "prediction.jsonl")
    assert {p["endpoint"] for p in kosinski} == {"chat"}
    assert all(
        p["messages"][-1]["content"].endswith(
            json.loads(
                (root / "kosinski_completion" / "samples.jsonl").read_text().splitlines()[i]
            )["story"]
        )
        for i, p in enumerate(kosinski)
    )
    kosinski_metrics = json.loads((root / "kosinski_completion" / "metrics.json").read_text())
    assert kosinski_metrics["all_correct"]["by"] == "item_id"
    assert (
        kosinski_metrics["all_correct"]["n"] + kosinski_metrics["all_correct"]["units_left_out"]
        == 4
    )
    scored = _lines(root / "tomi_logprob" / "prediction.jsonl")
    assert all(p["mode"] == "logprob" and len(p["option_logprobs"]) == 2 for p in scored)
    assert all(v < 0 for p in scored for v in p["option_logprobs"])
    logprob_metrics = json.loads((root / "tomi_logprob" / "metrics.json").read_text())
    assert (
        logprob_metrics["logprob_sweep"]["argmax_accuracy"]
        == logprob_metrics["overall"]["accuracy"]
    )
    assert (root / "report.html").exists() and (root / "tables" / "overall.csv").exists()


def test_rerunning_a_finished_experiment_sends_nothing_and_changes_no_byte(finished, vllm_base_url):
    settings, summary = finished
    root = summary.experiment.root
    before = {p: p.read_bytes() for p in root.glob("*/*.jsonl")}
    served = served_requests(vllm_base_url)
    again = run_evaluation(settings, exp_dir=root)
    assert again.usage == {}  # no client was even opened
    assert served_requests(vllm_base_url) == served
    assert {p: p.read_bytes() for p in root.glob("*/*.jsonl")} == before
    assert all(d.predicted == 0 and d.judged == 0 for d in again.datasets)


def test_metrics_rerun_from_the_folder_alone(finished, vllm_base_url, tmp_path):
    _, summary = finished
    copy = tmp_path / "moved"
    shutil.copytree(summary.experiment.root, copy)
    (copy / "tomi_open" / "metrics.json").unlink()
    served = served_requests(vllm_base_url)
    result = subprocess.run(
        [sys.executable, "-m", "tomflywheel", "eval", "--exp-dir", str(copy), "--stage", "metric"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "TOMFLYWHEEL_BASE_URL": "http://127.0.0.1:9/v1"},  # nothing listens
    )
    assert result.returncode == 0, result.stderr
    assert served_requests(vllm_base_url) == served
    original = json.loads((summary.experiment.root / "tomi_open" / "metrics.json").read_text())
    assert json.loads((copy / "tomi_open" / "metrics.json").read_text()) == original


def test_a_run_killed_mid_predict_resumes_to_the_same_predictions(vllm_base_url, tmp_path):
    # Mechanics only: a dataset this test writes, no benchmark file needed.
    dataset = write_choice_dataset(tmp_path / "toys.jsonl", 12)
    env = {
        **os.environ,
        "TOMFLYWHEEL_BASE_URL": vllm_base_url,
        "TOMFLYWHEEL_MODEL": "smollm2-135m-instruct",
        "TOMFLYWHEEL_CACHE_DIR": str(tmp_path / "cache"),
    }
    command = [sys.executable, "-m", "tomflywheel", "eval", "-d", str(dataset), "-s", "predict"]
    killed_dir = tmp_path / "killed"
    process = subprocess.Popen(
        [*command, "--exp-dir", str(killed_dir)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    predictions = killed_dir / "toys" / "prediction.jsonl"
    while process.poll() is None:
        if predictions.exists() and predictions.read_text().count("\n") >= 3:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    process.wait()
    partial = predictions.read_text().count("\n")
    assert 3 <= partial < 12, "the run should have been killed part-way"
    resumed = subprocess.run(
        [*command, "--exp-dir", str(killed_dir)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"{partial} already done" in resumed.stderr
    records = _lines(predictions)
    assert len(records) == 12 and len({r["sample_id"] for r in records}) == 12
    # An uninterrupted run (answered from the same cache) writes the very same bytes: records
    # appended as their replies came are put back in dataset order once the stage is done.
    clean = subprocess.run(
        [*command, "--exp-dir", str(tmp_path / "clean")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert clean.returncode == 0, clean.stderr
    assert [r["sample_id"] for r in records] == [f"q{i:03d}" for i in range(12)]
    clean_bytes = (tmp_path / "clean" / "toys" / "prediction.jsonl").read_bytes()
    assert clean_bytes == predictions.read_bytes()


def test_tomi_with_the_hybrid_judge_is_decided_by_the_rules(finished):
    """ToMi's answers are the story's containers: a closed set, never overturned by the LLM."""
    _, summary = finished
    root = summary.experiment.root
    judgments = _lines(root / "tomi_open" / "judgment.jsonl")
    assert {j["method"]["name"] for j in judgments} == {"hybrid"}
    assert all(j["match_type"] in ("candidate", "candidates", "no_candidate") for j in judgments)
    # Calibration asks are recorded beside the rules' verdict, never instead of it.
    asked = [j for j in judgments if j.get("judge_verdict") is not None]
    assert all(j["rules_verdict"] == j["verdict"] for j in asked)
    metrics = json.loads((root / "tomi_open" / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["overall"]["chance"] is not None and metrics["judge_agreement"] is None
    if asked:
        assert metrics["judge_identity"]["same"] is True
        assert metrics["judge_calibration"]["n"] == len(asked)
