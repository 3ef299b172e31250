"""Nothing hangs, nothing is lost: a stuck server ends the run in one line; answers are on disk.

The servers here are real: a fault server that never completes (``tests/llm/_stub.py``), or a
fault proxy before the real vLLM server that holds one request back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from tests.evaluation.conftest import external_settings, write_choice_dataset
from tests.llm._proxy import Faults, proxy_thread
from tests.llm._stub import stuck_server
from tomflywheel.config import DatasetRef
from tomflywheel.evaluation import run_evaluation

PATIENT_2_S = """\
llm:
  unreachable_after_s: 2
  backoff_initial_s: 0.05
  backoff_max_s: 0.1
"""


def test_eval_against_a_server_that_503s_every_completion_exits_1_in_one_line(tmp_path):
    dataset = write_choice_dataset(tmp_path / "toys.jsonl", 3)
    config = tmp_path / "config.yaml"
    config.write_text(PATIENT_2_S, encoding="utf-8")
    exp = tmp_path / "exp"
    with stuck_server("503") as (url, counts):
        env = {
            **os.environ,
            "TOMFLYWHEEL_BASE_URL": url,
            "TOMFLYWHEEL_MODEL": "stub-model",
            "TOMFLYWHEEL_CACHE_DIR": str(tmp_path / "cache"),
        }
        command = [sys.executable, "-m", "tomflywheel", "eval", "-c", str(config)]
        result = subprocess.run(
            [*command, "-d", str(dataset), "--exp-dir", str(exp), "-s", "predict"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "no completion in 2 s: " in last and " were HTTP 503, 0 timeouts" in last
    assert last.endswith("run the same command again to resume")
    assert counts["503"] >= 3 and counts["models"] >= 1  # /models answered all along
    # The pre-flight passed (the model is listed), so the folder is there to resume into.
    assert (exp / "config.yaml").exists() and (exp / "toys" / "samples.jsonl").exists()


@pytest.mark.vllm
def test_each_reply_is_on_disk_as_it_arrives_not_after_those_before_it(vllm_base_url, tmp_path):
    dataset = write_choice_dataset(tmp_path / "toys.jsonl", 4)
    settings = external_settings(vllm_base_url, tmp_path, datasets=[DatasetRef(path=dataset)])
    exp = tmp_path / "exp"
    predictions = exp / "toys" / "prediction.jsonl"
    seen: list[str] = []
    # The first sample's request is held at the proxy until the other three are on disk: a run
    # that kept replies back for dataset order would wait for it, and a kill would lose them.
    with proxy_thread(vllm_base_url, Faults(hold="toy 0 ")) as (url, log):

        def release_once_the_others_are_written() -> None:
            while log.holding and not finished.is_set():
                lines = predictions.read_text().splitlines() if predictions.exists() else []
                if len(lines) == 3:
                    seen.extend(json.loads(line)["sample_id"] for line in lines)
                    log.holding = False
                finished.wait(0.05)

        finished = threading.Event()
        watcher = threading.Thread(target=release_once_the_others_are_written, daemon=True)
        watcher.start()
        llm = settings.llm.model_copy(update={"base_urls": [url]})
        try:
            run_evaluation(
                settings.model_copy(update={"llm": llm}), exp_dir=exp, stages=["predict"]
            )
        finally:
            finished.set()
            watcher.join()
    assert log.counts["held"] >= 1
    assert sorted(seen) == ["q001", "q002", "q003"]
    # Once the stage is done the file is in dataset order: the bytes an uninterrupted run
    # without a held request writes (answered here from the request cache).
    written = [json.loads(line)["sample_id"] for line in predictions.read_text().splitlines()]
    assert written == ["q000", "q001", "q002", "q003"]
    clean = run_evaluation(settings, exp_dir=tmp_path / "clean", stages=["predict"])
    assert clean.usage["requests_sent"] == 0
    assert (
        predictions.read_bytes() == (tmp_path / "clean" / "toys" / "prediction.jsonl").read_bytes()
    )
