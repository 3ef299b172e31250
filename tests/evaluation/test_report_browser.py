"""The HTML report in headless Chromium: it renders, and dataset text cannot inject markup."""

from __future__ import annotations

import subprocess

import pytest

from tests.browser import CHROMIUM_FLAGS, chromium, dump_dom
from tests.evaluation.conftest import external_settings
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import DatasetRef
from tomflywheel.evaluation import run_evaluation
from tomflywheel.report import write_experiment_report
from tomflywheel.schema import Answer, Sample

pytestmark = pytest.mark.vllm

HOSTILE = "Ann put the key in the box.</script><img src=x onerror=\"document.title='pwned'\">"


def test_report_renders_and_escapes_dataset_text(slices, vllm_base_url, tmp_path):
    browser = chromium()
    hostile = tmp_path / "hostile.jsonl"
    write_jsonl_atomic(
        hostile,
        [
            Sample(
                id="h1",
                story=HOSTILE,
                question="Where is the <b>key</b>?",
                answer=Answer(correct_answers=["box"]),
                meta={"dataset": "hostile"},
            ),
            Sample(
                id="h2",
                story="Tom left. <script>document.title='pwned'</script>",
                question="Who left?",
                answer=Answer(correct_answers=["Tom"], wrong_answers=["Ann"]),
                meta={"dataset": "hostile"},
            ),
        ],
    )
    settings = external_settings(
        vllm_base_url,
        tmp_path,
        datasets=[
            # "a_" sorts first, so the browser opens on it.
            DatasetRef(path=hostile, name="a_hostile"),
            DatasetRef(path=slices["hitom"], max_samples=4),
            # Judged by the evaluated model itself: the report must say so.
            DatasetRef(path=hostile, name="b_self_judged", judge="llm"),
        ],
    )
    summary = run_evaluation(settings, exp_dir=tmp_path / "exp")
    write_experiment_report(summary.experiment)
    report = summary.experiment.report_path
    profile = tmp_path / "profile"
    dom = dump_dom(report, profile)
    assert "<title>tomflywheel · exp</title>" in dom  # the page script did not retitle it
    assert 'id="sample-list"><tr>' in dom  # rows were built by the page script
    assert "<img" not in dom  # the story's tag stayed text...
    assert "\\u003cimg src=x" in dom  # ...escaped inside the embedded JSON
    assert "Where is the &lt;b&gt;key&lt;/b&gt;?" in dom  # and shown as text in the table
    assert dom.count("<svg") >= 3  # overall chart + per-group charts
    # Hi-ToM's 15 options: a chance mark at 1/15 on its bars (issue 18).
    assert 'class="chance"' in dom and "<title>chance 6.7%</title>" in dom
    assert "b_self_judged: the LLM judge is the evaluated model itself" in dom
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [
            browser,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--window-size=1280,1600",
            f"--screenshot={screenshot}",
            report.as_uri(),
        ],
        capture_output=True,
        check=False,
        timeout=120,
    )
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
