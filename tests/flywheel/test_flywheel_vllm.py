"""The flywheel end to end on the real embedded vLLM server, a resume after a kill, and the
guarantee that no admitted sample copies an evaluation item."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.browser import dump_dom
from tests.test_tracking import read_scalars
from tomflywheel.artifacts import GrpoPromptCounts, ModelFolder
from tomflywheel.config import Settings, parse_settings
from tomflywheel.feedback import SynthesisPlan, synthesize
from tomflywheel.filter import ContaminationIndex
from tomflywheel.flywheel import load_manifest, run_flywheel
from tomflywheel.schema import read_samples
from tomflywheel.train import weights_sha256

pytestmark = pytest.mark.vllm

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "data" / "eval"


def _config(work: Path, base_url: str, *, naturalize: bool = False) -> dict:
    return {
        "server": "external",
        "llm": {
            "base_urls": [base_url],
            "model": "smollm2-135m-instruct",
            "concurrency": 8,
            "cache_path": str(work / "requests.sqlite"),
        },
        "eval": {
            "datasets": [
                {"path": str(EVAL / "tomi_synth.jsonl"), "max_samples": 8},
                {"path": str(EVAL / "hitom_synth.jsonl"), "max_samples": 4},
            ],
            "results_dir": str(work / "results"),
            "datasets_dir": str(work / "datasets"),
        },
        "feedback": {
            "budget": 12,
            "min_per_weakness": 3,
            "cross_check_rate": 0.0,
            "naturalize": naturalize,
            "naturalize_fraction": 0.5,
            "naturalize_max_tokens": 160,  # short rewrites: a CPU server is slow to write prose
        },
        "filter": {
            "rubric": {"min_clarity": 1, "min_solvability": 1, "require_tom": False},
            "repair": {"attempts": 0},
        },
        "flywheel": {
            "runs_dir": str(work / "runs"),
            "train_dir": str(work / "train"),
            # The loop's bookkeeping is under test here; the filter's LLM phase has its own
            # server tests (tests/filter), and on a CPU server it would add minutes per run.
            "filter_llm": False,
        },
    }


def _settings(work: Path, base_url: str, **kw: bool) -> Settings:
    return parse_settings(yaml.safe_dump(_config(work, base_url, **kw)))


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _whole_records(path: Path) -> list[dict]:
    """The records on the newline-terminated lines of a file another process may be writing."""
    data = path.read_bytes() if path.exists() else b""
    return [json.loads(line) for line in data.split(b"\n")[:-1] if line.strip()]


@pytest.fixture(scope="module")
def one_round(vllm_base_url, tmp_path_factory):
    work = tmp_path_factory.mktemp("flywheel")
    settings = _settings(work, vllm_base_url)
    return settings, run_flywheel(settings, run_dir=work / "runs" / "r1")


def test_one_round_evaluates_diagnoses_synthesizes_filters_and_admits(one_round):
    settings, result = one_round
    manifest = load_manifest(result.run_dir)
    assert manifest.round(1).stages.names() == ["evaluate", "feedback", "filter"]
    summary = json.loads((result.run_dir / "round_1" / "summary.json").read_text())
    assert set(summary["accuracy"]) == {"tomi_synth", "hitom_synth"}
    assert summary["accuracy"]["tomi_synth"]["overall"]["n"] == 8
    # The plan's budget is 12; stories are taken whole, so the count is what the plan makes.
    listed = manifest.round(1).stages.feedback.outputs.candidates
    plan = SynthesisPlan.model_validate_json((listed.parent / "plan.json").read_text())
    total = summary["candidates"]["total"]
    assert [c["id"] for c in _jsonl(listed)] == [s.id for s in synthesize(plan)]
    assert total == len(_jsonl(listed)) > 0
    outcome = summary["filter"]
    assert outcome["admitted"] + outcome["rejected"] == total
    admitted = _jsonl(settings.flywheel.train_dir / f"{manifest.train_name}.jsonl")
    assert len(admitted) == outcome["admitted"] > 0
    for sample in admitted:
        assert (
            sample["meta"]["lineage"]["plan_id"]
            == manifest.round(1).stages.feedback.outputs.plan_id
        )
        assert sample["meta"]["origin"] == "symbolic"
    assert summary["error_profile"]["total"] > 0
    assert summary["requests"] > 0 and set(summary["seconds"]) == {"evaluate", "feedback", "filter"}
    html = result.report.read_text(encoding="utf-8")
    assert "Evaluation per round" in html and admitted[0]["id"] in html


def test_no_admitted_sample_copies_an_evaluation_item(one_round):
    settings, result = one_round
    index = ContaminationIndex.build(settings.filter.dedup, sorted(EVAL.glob("*.jsonl")))
    admitted = read_samples(settings.flywheel.train_dir / f"{result.manifest.train_name}.jsonl")
    assert [s.id for s in admitted if index.match(s) is not None] == []


def test_the_run_report_shows_the_shortcut_audit_in_the_browser(one_round, tmp_path):
    _, result = one_round
    summary = json.loads((result.run_dir / "round_1" / "summary.json").read_text())
    audit = summary["admission_audit"]
    assert set(audit) >= {"this_round", "admitted"}
    assert all("shortcuts" in entry for entry in summary["accuracy"].values())
    dom = dump_dom(result.report, tmp_path / "profile")
    section = dom[dom.index("<h2>Shortcut audit</h2>") :]
    assert "Which shortcut explains the model's answers" in section
    assert all(f"<td>{dataset}</td>" in section for dataset in summary["accuracy"])
    assert "Admitted data: shortcuts above chance" in section
    flagged = "; ".join(audit["admitted"]["flagged"]) or "none"
    assert f"<td>{flagged}</td>" in section


def test_a_run_killed_during_feedback_resumes_without_repeating_work(vllm_base_url, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(_config(tmp_path, vllm_base_url, naturalize=True)))
    run_dir = tmp_path / "runs" / "killed"
    command = [
        sys.executable,
        "-m",
        "tomflywheel",
        "flywheel",
        "-c",
        str(config),
        "--run-dir",
        str(run_dir),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOMFLYWHEEL_")}
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    feedback = run_dir / "round_1" / "eval" / "feedback"
    killed = False
    while process.poll() is None:
        # Killed once a diagnosis is written and before candidates exist: mid-feedback. The
        # file alone is not enough: the appender creates it empty before the first record.
        written = _whole_records(feedback / "diagnoses.jsonl")
        if written and not (feedback / "candidates.jsonl").exists():
            os.killpg(process.pid, signal.SIGKILL)
            killed = True
            break
        time.sleep(0.02)
    process.wait()
    assert killed, "the run ended before a diagnosis was written, or after candidates were"
    before = load_manifest(run_dir)
    assert before.round(1).stages.names() == ["evaluate"], "killed during feedback"
    evaluated = before.round(1).stages.evaluate
    diagnosed = _whole_records(feedback / "diagnoses.jsonl")
    assert diagnosed, "work existed before the kill"
    resumed = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    after = load_manifest(run_dir)
    assert after.round(1).stages.evaluate == evaluated  # not run again
    diagnoses = _jsonl(feedback / "diagnoses.jsonl")
    keys = [(d["dataset"], d["sample_id"], d["trial"]) for d in diagnoses]
    assert len(keys) == len(set(keys)) >= len(diagnosed)
    # What was diagnosed before the kill survives the resume as it was.
    assert [d for d in diagnosed if d not in diagnoses] == []
    # An uninterrupted run (same cache) ends in the same state.
    clean_dir = tmp_path / "runs" / "clean"
    clean = subprocess.run(
        [*command[:-1], str(clean_dir)], env=env, capture_output=True, text=True, check=False
    )
    assert clean.returncode == 0, clean.stderr[-2000:]
    assert (clean_dir / "round_1" / "eval" / "feedback" / "candidates.jsonl").read_bytes() == (
        feedback / "candidates.jsonl"
    ).read_bytes()
    ids = {
        name: [s["id"] for s in _jsonl(tmp_path / "train" / f"flywheel-{name}.jsonl")]
        for name in ("killed", "clean")
    }
    assert ids["killed"] == ids["clean"]


def test_a_round_with_training_reports_the_held_out_lift(vllm_base_url, tmp_path):
    """--train: held-out sets before, a tiny fine-tune, the new model served, held-out after.

    SFT, then GRPO on the admitted samples and fresh stories of the round's plan.
    """
    config = _config(tmp_path, vllm_base_url)
    config["eval"]["datasets"] = [{"path": str(EVAL / "tomi_synth.jsonl"), "max_samples": 6}]
    config["feedback"]["budget"] = 8
    config["train"] = {
        "steps": 2, "batch_size": 2, "max_length": 384, "learning_rate": 1e-4,
        "method": "sft-grpo", "grpo": {"generations": 2, "max_completion_tokens": 4},
    }  # fmt: skip
    heldout = ROOT / "data" / "heldout" / "tomi_heldout.jsonl"
    config["flywheel"].update(
        train=True, heldout=[{"path": str(heldout), "max_samples": 4}], fresh_prompts=12
    )
    config["tracking"] = {"to": "tensorboard", "dir": str(tmp_path / "tb")}
    settings = parse_settings(yaml.safe_dump(config))
    result = run_flywheel(settings, run_dir=tmp_path / "runs" / "t")
    stages = result.manifest.round(1).stages
    assert stages.names() == [
        "evaluate",
        "feedback",
        "filter",
        "fresh",
        "heldout_before",
        "train",
        "heldout_sft",
        "heldout_after",
    ]
    # Fresh stories: new samples of the round's plan, filtered into a set of their own and
    # prompted by GRPO after the admitted ones; SFT's data is the admitted set alone.
    fresh = list(read_samples(stages.fresh.outputs.admitted))
    admitted = list(read_samples(stages.filter.outputs.admitted))
    plan_id = stages.feedback.outputs.plan_id
    assert fresh and {s.meta["lineage"]["plan_id"] for s in fresh} == {plan_id}
    assert not {s.id for s in fresh} & {s.id for s in admitted}
    trained = stages.train.outputs
    assert trained.grpo_prompts == GrpoPromptCounts(admitted=len(admitted), fresh=len(fresh))
    summary = result.rounds[0].fresh
    assert summary.candidates == stages.fresh.outputs.candidates >= len(fresh)
    assert 0 < summary.admitted <= len(fresh)  # the admission balance may add complements
    prompts = list(read_samples(tmp_path / "runs" / "t" / "round_1" / "grpo_prompts.jsonl"))
    assert [s.id for s in prompts] == [s.id for s in admitted] + [s.id for s in fresh]
    sft_dir = ModelFolder(trained.model_dir).sft_stage
    sft = json.loads(sft_dir.manifest.read_text())
    assert sft["data"]["path"] == str(trained.data)
    assert trained.method == "sft-grpo"
    assert trained.steps == 2
    # the served name carries the weights' fingerprint: a cache keyed by name cannot go stale
    assert trained.served_name == f"smollm2-135m-instruct-t-r1-{trained.weights_sha256[:12]}"
    assert trained.weights_sha256 == weights_sha256(trained.model_dir)
    assert (trained.model_dir / "config.json").exists()
    assert stages.heldout_after.outputs.model == trained.served_name
    # the SFT stage is measured under its own fingerprinted name, and GRPO's lift over it kept
    sft_stage = trained.sft_stage
    assert sft_stage is not None
    assert sft_stage.weights_sha256 == weights_sha256(sft_dir.root)
    assert (
        sft_stage.served_name == f"smollm2-135m-instruct-t-r1-sft-{sft_stage.weights_sha256[:12]}"
    )
    assert stages.heldout_sft.outputs.model == sft_stage.served_name
    assert set(result.rounds[0].lift_vs_sft_stage) == {"tomi_heldout", "tomi_heldout_logprob"}
    lift = result.rounds[0].lift
    assert set(lift) == {"tomi_heldout", "tomi_heldout_logprob"}
    for entry in lift.values():
        assert 0 < entry.before["all"].n <= 4 and 0 < entry.after["all"].n <= 4
        assert entry.before["targets"].n + entry.before["controls"].n == entry.before["all"].n
    scored = _jsonl(
        tmp_path
        / "runs"
        / "t"
        / "round_1"
        / "heldout_after"
        / "tomi_heldout_logprob"
        / "prediction.jsonl"
    )
    assert all(p["mode"] == "logprob" and len(p["option_logprobs"]) >= 2 for p in scored)
    assert "Fine-tuning and lift" in result.report.read_text(encoding="utf-8")
    # Tracking: the round's lift at step 1, as the summary has it.
    logged = read_scalars(tmp_path / "tb" / "flywheel_t")
    for label, entry in lift.items():
        for part, value in entry.lift.items():
            if value is not None:
                [(step, got)] = logged[f"lift/{label}/lift/{part}"]
                assert step == 1 and got == pytest.approx(value, rel=1e-6)
