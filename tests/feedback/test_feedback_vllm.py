"""Feedback against the real embedded vLLM server: LLM diagnosis, naturalization, whole stage."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.evaluation.conftest import external_settings
from tests.feedback.conftest import bad_case, reality_bias_samples
from tomflywheel.config import DatasetRef, FeedbackSettings
from tomflywheel.datasets import import_dataset, load_benchmark
from tomflywheel.evaluation import run_evaluation
from tomflywheel.feedback import (
    SynthesisPlan,
    rename_agents,
    run_feedback,
    synthesize,
)
from tomflywheel.feedback._diagnose import plan_diagnoses, read_diagnoses, run_diagnoses
from tomflywheel.feedback._naturalize import CUT_SHORT, EMPTY_REPLY, naturalize
from tomflywheel.llm import ContentClient, StructureClient
from tomflywheel.schema import ErrorCategory
from tomflywheel.world.samples import verify_sample

pytestmark = pytest.mark.vllm


def test_llm_diagnosis_returns_taxonomy_values(benchmarks, llm_settings, tmp_path):
    bigtom = load_benchmark("bigtom", benchmarks / "bigtom" / "conditions")[:4]
    cases = [bad_case(s, s.answer.wrong_answers[0]) for s in bigtom]
    plans = plan_diagnoses(cases, FeedbackSettings(), llm_available=True)
    assert all(p.symbolic is None and p.ask_llm for p in plans)  # the engine cannot read BigToM

    async def go():
        async with ContentClient(llm_settings) as client:
            await run_diagnoses(
                plans,
                tmp_path / "d.jsonl",
                structure=StructureClient.from_settings(client),
                concurrency=4,
            )
            return client.stats

    stats = asyncio.run(go())
    diagnoses = read_diagnoses(tmp_path / "d.jsonl")
    assert [d.sample_id for d in diagnoses] == [s.id for s in bigtom]
    assert all(d.method == "llm" for d in diagnoses)
    assert all((d.category in set(ErrorCategory)) != (d.failure is not None) for d in diagnoses)
    assert any(d.category is not None for d in diagnoses)
    assert stats.requests_sent >= len(bigtom)
    # The diagnosing model is the evaluated one: named, and flagged as diagnosing itself.
    assert {(d.diagnoser, d.by_evaluated_model) for d in diagnoses} == {(llm_settings.model, True)}


def test_naturalization_keeps_the_events_and_counts_every_failure_by_reason(llm_settings):
    samples = reality_bias_samples()[:3]

    async def go():
        async with ContentClient(llm_settings) as client:
            return await naturalize(samples, client, seed=0, max_tokens=256)

    # A tiny model may loop to max_tokens on any story: what must hold is the bookkeeping.
    natural, failures = asyncio.run(go())
    assert len(natural) + sum(failures.values()) == len(samples)
    assert all(
        reason in (CUT_SHORT, EMPTY_REPLY) or reason.startswith("refused:") for reason in failures
    )
    sources = {s.id: s for s in samples}
    for sample in natural:
        source = sources[sample.meta["naturalized_from"]]
        renamed, mapping = rename_agents(source, 0)
        assert sample.meta["origin"] == "naturalized" and sample.meta["needs_verification"]
        assert sample.id == f"{source.id}-nat"
        assert sample.meta["templated_story"] == renamed.story != source.story
        assert sample.meta["renamed"] == mapping
        assert sample.story and sample.story != renamed.story  # rewritten by the model
        assert sample.meta["trace"] == renamed.meta["trace"]
        assert verify_sample(sample).ok  # the renamed source events still give the gold


def _experiment(slices_dir: Path, benchmarks: Path, base_url: str, work: Path):
    tomi = slices_dir / "tomi.jsonl"
    hitom = slices_dir / "hitom.jsonl"
    bigtom = slices_dir / "bigtom.jsonl"
    if not tomi.exists():
        import_dataset("tomi", benchmarks / "tomi" / "tomi_balanced_story_types", out=tomi)
        import_dataset("hitom", benchmarks / "hitom" / "Hi-ToM_data.json", out=hitom)
        import_dataset("bigtom", benchmarks / "bigtom" / "conditions", out=bigtom)
    settings = external_settings(
        base_url,
        work,
        datasets=[
            DatasetRef(path=tomi, max_samples=10),
            DatasetRef(path=hitom, max_samples=6),
            DatasetRef(path=bigtom, max_samples=4),
        ],
    )
    settings = settings.model_copy(
        update={
            "feedback": FeedbackSettings(
                budget=24,
                cross_check_rate=0.25,
                # Each kind of LLM work once or twice, short: a CPU server writes ~10 tokens/s
                # to a lone request (the bookkeeping, not the prose, is under test).
                naturalize=True,
                naturalize_fraction=0.1,
                naturalize_max_tokens=200,
                free_form=True,
                free_form_count=1,
                free_form_max_tokens=256,
            )
        }
    )
    summary = run_evaluation(settings, exp_dir=work / "exp")
    return settings, summary.experiment.root


def test_feedback_stage_end_to_end_and_resumable(benchmarks, vllm_base_url, tmp_path_factory):
    work = tmp_path_factory.mktemp("fb")
    settings, exp = _experiment(work, benchmarks, vllm_base_url, work)
    summary = run_feedback(settings, exp)
    folder = exp / "feedback"
    diagnoses = read_diagnoses(folder / "diagnoses.jsonl")
    n_cases = sum(summary.cases.values())
    assert n_cases > 0 and len(diagnoses) == n_cases == summary.diagnosed_now
    profile = json.loads((folder / "error_profile.json").read_text())
    assert profile["total"] == n_cases
    assert sum(cell["n"] for cell in profile["cells"]) == n_cases
    assert {d.method for d in diagnoses if d.dataset == "bigtom"} <= {"llm"}
    assert {d.method for d in diagnoses if d.dataset == "tomi"} == {"symbolic"}
    # The LLM diagnoses are the evaluated model's own: named, flagged, and not planned from.
    own = [d for d in diagnoses if d.method == "llm" and d.diagnoser is not None]
    assert {(d.diagnoser, d.by_evaluated_model) for d in own} <= {(settings.llm.model, True)}
    assert summary.plan.self_diagnoses_left_out == sum(d.category is not None for d in own)
    assert profile["self_diagnosed"] == dict(
        Counter(d.category.value for d in own if d.category).most_common()
    )
    candidates = [
        json.loads(line) for line in (folder / "candidates.jsonl").read_text().splitlines()
    ]
    origins = {c["meta"]["origin"] for c in candidates}
    assert "symbolic" in origins
    # Exactly what the saved plan synthesizes (whole stories: an item smaller than one story's
    # question family still gets that story).
    plan = SynthesisPlan.model_validate_json((folder / "plan.json").read_text())
    symbolic = [c["id"] for c in candidates if c["meta"]["origin"] == "symbolic"]
    assert symbolic == [s.id for s in synthesize(plan, with_rationale=True)]
    assert len(symbolic) >= 12
    for c in candidates:
        assert c["meta"]["lineage"]["plan_id"] == summary.plan.plan_id
        assert c["meta"]["lineage"]["bad_case_ids"]
    chat = (folder / "candidates.chat.jsonl").read_text().splitlines()
    assert len(chat) == len(candidates)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    again = run_feedback(settings, exp)
    assert again.diagnosed_now == 0
    assert again.usage.get("requests_sent", 0) == 0  # everything came from the request cache
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
