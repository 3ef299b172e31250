"""Synthesis and the filter on a real local Ray give the local executor's bytes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.feedback.test_plan_and_synthesis import TASKS, _diagnoses
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import FeedbackSettings, RaySettings, Settings
from tomflywheel.feedback import SynthesisPlan, build_plan, synthesize
from tomflywheel.feedback._synthesize_ray import parts_dir, synthesize_on_ray
from tomflywheel.filter import FilterRun, run_filter

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 2000
BLOCK = 32


def _plan(budget: int) -> SynthesisPlan:
    return build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=budget))


def _with_planted_copies(path: Path, samples) -> None:  # type: ignore[no-untyped-def]
    """The candidates, then near copies (one word changed, no trace) and exact repeats."""
    records = [s.model_dump(mode="json") for s in samples]
    copies = []
    for n, record in enumerate(records[::40]):
        copy = json.loads(json.dumps(record))
        copy["id"] = f"copy-{n}"
        copy["meta"].pop("trace", None)
        copy["meta"]["origin"] = "free_form"
        copy["story"] = copy["story"].replace(" the ", " a ", 1) + " Then it rained."
        copies.append(copy)
    write_jsonl_atomic(path, records + copies + records[:3])


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.jsonl"))} | {
        "manifest.json": (folder / "manifest.json").read_bytes()
    }


def test_synthesis_and_filter_on_ray_write_the_local_bytes(ray_cluster: RaySettings, tmp_path):
    plan = _plan(BUDGET)
    local = synthesize(plan)
    on_ray, blocks = synthesize_on_ray(plan, tmp_path, block=BLOCK, with_rationale=True)
    write_jsonl_atomic(tmp_path / "local.jsonl", local)
    write_jsonl_atomic(tmp_path / "ray.jsonl", on_ray)
    assert len(local) >= BUDGET * 0.95
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert blocks.computed == blocks.total > len(plan.items) and blocks.reused == 0
    assert not parts_dir(tmp_path, plan, BLOCK, True).exists()

    candidates = tmp_path / "candidates.jsonl"
    _with_planted_copies(candidates, local)
    guarded = tmp_path / "eval"
    write_jsonl_atomic(guarded / "guarded.jsonl", local[100:104])
    base = Settings()
    # The shortcut balance runs on the driver either way (test_balance_after_a_ray_pass covers
    # it with Ray's index); here it would only add minutes.
    base.filter.audit.enforce = False
    summaries = {}
    for executor in ("local", "ray"):
        settings = base.model_copy(update={"executor": executor, "ray": ray_cluster})
        summaries[executor] = run_filter(
            FilterRun(
                settings=settings,
                input_path=candidates,
                use_llm=False,
                train_dir=tmp_path / executor,
                eval_dir=guarded,
            )
        )
    reasons = summaries["local"].reasons
    assert {"near_duplicate", "exact_duplicate", "duplicate_id", "contamination"} <= set(reasons)
    assert summaries["ray"].reasons == reasons
    assert _files(tmp_path / "ray") == _files(tmp_path / "local")


def test_balance_after_a_ray_pass_writes_the_local_bytes(ray_cluster: RaySettings, tmp_path):
    candidates = tmp_path / "candidates.jsonl"
    _with_planted_copies(candidates, synthesize(_plan(120)))
    for executor in ("local", "ray"):
        settings = Settings(executor=executor, ray=ray_cluster)
        summary = run_filter(
            FilterRun(
                settings=settings,
                input_path=candidates,
                use_llm=False,
                train_dir=tmp_path / executor,
                eval_dir=tmp_path / "none",
            )
        )
        assert summary.balance is not None
    assert _files(tmp_path / "ray") == _files(tmp_path / "local")


_KILLED_RUN = """
import sys, time
from pathlib import Path
from tomflywheel.cluster import ray_session
from tomflywheel.config import RaySettings
from tomflywheel.feedback import SynthesisPlan
from tomflywheel.feedback._synthesize_ray import synthesize_on_ray

folder, address = Path(sys.argv[1]), sys.argv[2]
plan = SynthesisPlan.model_validate_json((folder / "plan.json").read_text())

def hang_after_two(done, sent):
    if done == 2:
        (folder / "two-parts-saved").touch()
        time.sleep(600)  # killed here, mid-stage, with later blocks unsaved

with ray_session(RaySettings(address=address)):
    synthesize_on_ray(plan, folder, block=%d, with_rationale=True, on_block=hang_after_two)
"""


def test_a_killed_ray_synthesis_resumes_without_redoing_blocks(ray_cluster: RaySettings, tmp_path):
    plan = _plan(400)
    (tmp_path / "plan.json").write_text(plan.model_dump_json())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_RUN % BLOCK, str(tmp_path), str(ray_cluster.address)],
        env=env,
    )
    try:
        while not (tmp_path / "two-parts-saved").exists():
            assert child.poll() is None, "the run ended before it saved two blocks"
            time.sleep(0.2)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    parts = parts_dir(tmp_path, plan, BLOCK, True)
    saved = {p.name: p.stat().st_mtime_ns for p in parts.glob("*.jsonl")}
    assert len(saved) == 2

    seen: dict[str, int] = {}

    def note(done: int, sent: int) -> None:
        seen.update({p.name: p.stat().st_mtime_ns for p in parts.glob("*.jsonl")})

    resumed, blocks = synthesize_on_ray(
        plan, tmp_path, block=BLOCK, with_rationale=True, on_block=note
    )
    assert blocks.reused == 2 and blocks.computed == blocks.total - 2 > 0
    assert all(seen[name] == mtime for name, mtime in saved.items())  # not written again
    write_jsonl_atomic(tmp_path / "resumed.jsonl", resumed)
    write_jsonl_atomic(tmp_path / "local.jsonl", synthesize(plan))
    assert (tmp_path / "resumed.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def test_the_feedback_stage_synthesizes_on_ray_when_told(ray_cluster: RaySettings, tmp_path):
    from tomflywheel.feedback._stage import FeedbackSummary, _synthesize_on_ray

    plan = _plan(120)
    settings = Settings(executor="ray", ray=ray_cluster)
    summary = FeedbackSummary(folder=tmp_path)
    made = _synthesize_on_ray(settings, plan, summary)
    assert [s.model_dump_json() for s in made] == [s.model_dump_json() for s in synthesize(plan)]
    assert summary.notes and summary.notes[0].startswith("ray: ")
    assert not parts_dir(tmp_path, plan, ray_cluster.synthesis_block, True).exists()
