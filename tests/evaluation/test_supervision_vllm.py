"""An embedded server killed mid-stage is restarted, and the stage ends as a clean run would."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from tests.conftest import SERVED_NAME, STARTUP_S
from tests.evaluation.conftest import external_settings
from tests.llm.test_server_processes_vllm import _children, _cmdline
from tomflywheel.config import DatasetRef, EmbeddedServerSettings
from tomflywheel.evaluation import run_evaluation

pytestmark = pytest.mark.vllm


def test_a_server_killed_mid_stage_is_restarted_and_the_stage_finishes_as_a_clean_run(
    slices, vllm_base_url, tmp_path
):
    datasets = [DatasetRef(path=slices["tomi"], name="tomi", max_samples=8)]
    settings = external_settings(vllm_base_url, tmp_path / "own", datasets=datasets)
    generation = settings.eval.generation.model_copy(update={"max_tokens": 16})
    settings.eval.generation = generation
    embedded = settings.model_copy(
        update={
            "server": "embedded",
            # This second server (and its restart) starts beside the session's: 300 s was once
            # too short on a busy machine.
            "embedded": EmbeddedServerSettings(
                served_model_name=SERVED_NAME, startup_timeout_s=STARTUP_S
            ),
        }
    )
    embedded.llm.concurrency = 2
    exp = tmp_path / "exp"
    predictions = exp / "tomi" / "prediction.jsonl"
    messages: list[str] = []
    killed: list[int] = []
    # The session's own embedded server (when the suite started one) is a child too: not ours.
    session_guards = set(_guards())

    def kill_after_some() -> None:
        while not (predictions.exists() and predictions.read_text().count("\n") >= 3):
            time.sleep(0.05)
        guard = next(p for p in _guards() if p not in session_guards)
        killed.append(guard)
        os.killpg(guard, signal.SIGKILL)  # the server and its engine, without warning

    killer = threading.Thread(target=kill_after_some, daemon=True)
    killer.start()
    summary = run_evaluation(embedded, exp_dir=exp, stages=["predict"], on_status=messages.append)
    killer.join(timeout=1)
    assert killed, "the server was never killed"
    assert any("restarting it (1/3)" in m for m in messages), messages
    assert summary.datasets[0].predicted == 8
    assert summary.usage["failures"] == 0
    clean = run_evaluation(settings, exp_dir=tmp_path / "clean", stages=["predict"])
    ours = [json.loads(line) for line in predictions.read_text().splitlines()]
    theirs = [
        json.loads(line)
        for line in (clean.experiment.root / "tomi" / "prediction.jsonl").read_text().splitlines()
    ]
    assert [(r["sample_id"], r["raw_output"]) for r in ours] == [
        (r["sample_id"], r["raw_output"]) for r in theirs
    ]
    # The stage's end stopped the restarted server too: no guard of ours is left.
    assert set(_guards()) <= session_guards


def _guards() -> list[int]:
    """Guards of embedded servers this test process started (each leads a server's group)."""
    return [p for p in _children(os.getpid()) if b"_guard.py" in _cmdline(p)]
