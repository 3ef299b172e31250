"""Admission balance: a set skewed toward reality answers is admitted balanced, and says how."""

from __future__ import annotations

import json
from pathlib import Path

from tests.filter.conftest import write_jsonl

from tomflywheel.audit import audit_samples
from tomflywheel.config import AuditSettings, FilterSettings, Settings
from tomflywheel.filter import FilterRun, run_filter
from tomflywheel.filter.admit import balance
from tomflywheel.schema import Sample, read_samples
from tomflywheel.world import complement, generate


def skewed(n_true: int = 48, n_false: int = 12) -> list[Sample]:
    """First-order belief questions, 80/20 toward answers where the object really is."""
    true, false = [], []
    for sample in generate("tomi", seed=11, n=200, orders=(1,)):
        if not sample.meta["question_type"].startswith("first_order"):
            continue
        (false if sample.meta["tom"] else true).append(sample)
    return true[:n_true] + false[:n_false]


def test_the_skewed_set_is_flagged_before_balancing():
    report = audit_samples(skewed(), min_items=20)
    assert "tomi_synth · first_order: true_location" in report.to_dict()["flagged"]


def test_balancing_adds_complements_before_it_drops():
    samples = skewed()
    outcome = balance([], samples, AuditSettings(min_items=20), complement)
    assert outcome.before["flagged"] and outcome.after["flagged"] == []
    assert outcome.complements and all(s.meta["complement_of"] for s in outcome.complements)
    kept = [s for s in samples if s.id not in outcome.dropped] + outcome.complements
    assert audit_samples(kept, min_items=20).flagged() == []


def test_without_complements_balancing_drops_reality_answers_only():
    samples = skewed()
    outcome = balance([], samples, AuditSettings(min_items=20, complements=False), complement)
    assert outcome.after["flagged"] == [] and not outcome.complements
    by_id = {s.id: s for s in samples}
    assert outcome.dropped and all(not by_id[i].meta["tom"] for i in outcome.dropped)


def test_the_filter_admits_a_balanced_set_and_records_the_balance(tmp_path: Path):
    source = write_jsonl(tmp_path / "skewed.jsonl", skewed())
    train = tmp_path / "train"
    settings = Settings(filter=FilterSettings(audit=AuditSettings(min_items=20)))
    summary = run_filter(
        FilterRun(
            settings=settings,
            input_path=source,
            use_llm=False,
            train_dir=train,
            eval_dir=tmp_path / "none",
        )
    )
    admitted = list(read_samples(train / "skewed.jsonl"))
    assert audit_samples(admitted, min_items=20).flagged() == []
    complements = [s for s in admitted if s.meta.get("complement_of")]
    assert complements and summary.balance is not None
    assert summary.accepted == len(admitted)
    # The summary counts the balance's complements apart from the input's accepted samples.
    assert summary.complements == len(complements)
    assert summary.accepted_inputs == len(admitted) - len(complements)
    manifest = json.loads((train / "manifest.json").read_text())["datasets"]["skewed"]
    run = manifest["audit"]["runs"][0]
    assert "tomi_synth · first_order: true_location" in run["flagged_before"]
    assert run["flagged_after"] == [] and manifest["audit"]["admitted"]["flagged"] == []
    assert sorted(run["complements"]) == sorted(s.id for s in complements)
    rejected = [json.loads(line) for line in (train / "rejected" / "skewed.jsonl").open()]
    assert {r["sample_id"] for r in rejected} == set(run["dropped"])
    assert all(r["reasons"] == ["shortcut_balance"] for r in rejected)
    assert manifest["accepted"] == len(admitted)


def test_a_rerun_changes_nothing(tmp_path: Path):
    source = write_jsonl(tmp_path / "skewed.jsonl", skewed())
    settings = Settings(filter=FilterSettings(audit=AuditSettings(min_items=20)))
    train = tmp_path / "train"
    for _ in range(2):
        run_filter(
            FilterRun(
                settings=settings,
                input_path=source,
                use_llm=False,
                train_dir=train,
                eval_dir=tmp_path / "e",
            )
        )
        files = {p: p.read_bytes() for p in sorted(train.rglob("*")) if p.is_file()}
    again = run_filter(
        FilterRun(
            settings=settings,
            input_path=source,
            use_llm=False,
            train_dir=train,
            eval_dir=tmp_path / "e",
        )
    )
    assert again.balance is None
    assert {p: p.read_bytes() for p in sorted(train.rglob("*")) if p.is_file()} == files


def test_a_family_that_cannot_be_balanced_does_not_stop_the_others():
    # A family sorted first whose shortcut is carried by earlier admissions only: this run
    # cannot fix it (nothing of its own to complement or drop), the ToMi family still can.
    earlier = [
        s.model_copy(update={"id": f"a-{s.id}", "meta": {**s.meta, "dataset": "aaa_earlier"}})
        for s in skewed()
    ]
    stuck = earlier[-1].model_copy(update={"id": "a-new"})  # a false belief: the shortcut misses it
    outcome = balance(earlier[:-1], [stuck, *skewed()], AuditSettings(min_items=20), complement)
    assert "aaa_earlier · first_order: true_location" in outcome.unresolved
    assert not any(name.startswith("tomi_synth") for name in outcome.unresolved)
    assert outcome.complements
