"""``run_filter`` without an LLM: planted defects rejected with the right reasons, admission
idempotent and resumable, outputs byte-identical, the manifest's counts and lineage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.filter.conftest import sample, tomi_samples, write_jsonl

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import Settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.errors import ConfigError, DataError
from tomflywheel.filter import FilterRun, FilterSettings, run_filter
from tomflywheel.schema import Answer, Sample

LINEAGE = {
    "bad_case_ids": ["tomi-test-000001"],
    "diagnosis": {"category": "reality_bias"},
    "generator": "tomi",
    "version": "1",
    "seed": 3,
    "plan_id": "plan-7",
}


def with_meta(item: Sample, **meta) -> Sample:
    return item.model_copy(update={"meta": {**item.meta, **meta}})


def planted(real: Sample) -> tuple[list, dict[str, list[str]], list[str]]:
    """Candidates with one defect each; returns (rows, expected reasons by id, accepted ids)."""
    good = [with_meta(s, lineage=LINEAGE) for s in tomi_samples(1, seed=3)]
    other = tomi_samples(1, seed=4)
    reality = next(s for s in other if s.meta["question_type"] == "reality")
    belief = next(s for s in other if s.meta["question_type"] == "first_order_0_no_tom")
    gold = reality.answer.correct_answers[0]
    leak_q = f"Is the {reality.meta['trace']['question']['subject']} in the {gold} really?"
    contaminated_story = real.story.replace("green_bucket", "red_envelope", 1)
    rows: list = [*good]
    expected: dict[str, list[str]] = {}

    def plant(row, reasons: list[str]) -> None:
        rows.append(row)
        expected[row["id"] if isinstance(row, dict) else row.id] = reasons

    plant(
        reality.model_copy(update={"id": "corrupt", "answer": Answer(correct_answers=["sink"])}),
        ["label_mismatch"],
    )
    plant(belief.model_copy(update={"id": "leak", "question": leak_q}), ["answer_leak"])
    plant(with_meta(sample(sample_id="natural"), origin="naturalized"), ["trace_invalid"])
    plant(sample(sample_id="gold-wrong", wrong=["basket", "box"]), ["gold_in_wrong"])
    plant(sample(sample_id="dup-options", wrong=["box", "Box."]), ["duplicate_options"])
    plant(sample(sample_id="empty", story=" "), ["empty_field"])
    plant(sample(sample_id="long", story="x" * 13000), ["field_too_long"])
    plant(good[0].model_copy(update={"id": "exact-copy"}), ["exact_duplicate"])
    near_story = good[1].story.replace(" entered ", " walked into ", 1)
    plant(good[1].model_copy(update={"id": "near-copy", "story": near_story}), ["near_duplicate"])
    plant(
        sample(sample_id=good[2].id, story="Another story entirely, about a cat."), ["duplicate_id"]
    )
    plant(sample(sample_id="contaminated", story=contaminated_story), ["contamination"])
    plant(sample(sample_id="free"), ["label_unverified"])
    plant({"id": "no-answer", "story": "s", "question": "q"}, ["schema_invalid"])
    rows.append('{"id": "cut-off", "story": ')
    expected[f"line-{len(rows)}"] = ["invalid_json"]
    return rows, expected, [s.id for s in good]


@pytest.fixture(scope="module")
def real_tomi(benchmarks: Path) -> list[Sample]:
    return load_benchmark("tomi", benchmarks / "tomi" / "tomi_balanced_story_types")


@pytest.fixture
def setup(tmp_path: Path, real_tomi: list[Sample]):
    eval_dir = tmp_path / "datasets"
    write_jsonl_atomic(eval_dir / "tomi.jsonl", real_tomi)
    rows, expected, accepted = planted(real_tomi[0])
    source = write_jsonl(tmp_path / "cands.jsonl", rows)
    return source, eval_dir, expected, accepted


def filter_into(
    train_dir: Path, source: Path, eval_dir: Path, settings: Settings | None = None, **kwargs
):
    return run_filter(
        FilterRun(
            settings=settings or Settings(),
            input_path=source,
            use_llm=False,
            train_dir=train_dir,
            eval_dir=eval_dir,
            **kwargs,
        )
    )


def files_of(train_dir: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(train_dir)): p.read_bytes()
        for p in sorted(train_dir.rglob("*"))
        if p.is_file()
    }


def test_each_planted_defect_is_rejected_with_its_reason(tmp_path, setup):
    source, eval_dir, expected, accepted = setup
    summary = filter_into(tmp_path / "train", source, eval_dir)
    assert (len(accepted), len(expected)) == (6, 14)
    assert summary.candidates == 20
    assert expected["line-20"] == ["invalid_json"]  # the last line is a cut-off record
    rejected = {v.sample_id: v.reasons for v in summary.verdicts if v.reasons}
    assert rejected == expected
    admitted = [json.loads(line)["id"] for line in summary.admitted_path.read_text().splitlines()]
    assert admitted == accepted
    assert (summary.accepted, summary.rejected) == (len(accepted), len(expected))


def test_admitted_samples_keep_lineage_and_record_provenance(tmp_path, setup):
    source, eval_dir, _, _accepted = setup
    summary = filter_into(tmp_path / "train", source, eval_dir)
    first = json.loads(summary.admitted_path.read_text().splitlines()[0])
    assert first["meta"]["lineage"] == LINEAGE
    assert first["meta"]["filter"]["name"] == "cands"
    assert first["meta"]["filter"]["origin"] == "symbolic"
    assert first["meta"]["filter"]["repairs"] == 0
    assert first["meta"]["trace"]["generator"] == "tomi"


def test_the_manifest_counts_checks_reasons_and_lineage(tmp_path, setup):
    source, eval_dir, expected, _accepted = setup
    summary = filter_into(tmp_path / "train", source, eval_dir)
    entry = json.loads(summary.manifest_path.read_text())["datasets"]["cands"]
    assert (entry["candidates"], entry["accepted"], entry["rejected"]) == (20, 6, 14)
    assert entry["reasons"] == {reason[0]: 1 for reason in sorted(expected.values())}
    assert entry["checks"]["contamination"] == {
        "passed": 17,
        "rejected": 1,
        "repaired": 0,
        "skipped": {"not_applicable": 2},  # the two records that are no samples
    }
    # "free" (label_unverified) and "leak" (repairable) reach the LLM phase with the 6 good ones.
    assert entry["checks_not_run"]["rubric"] == {"earlier_failure": 12, "no_llm": 8}
    assert entry["lineage"] == {
        "diagnosis": {"reality_bias": 6},
        "generator": {"tomi": 6},
        "origin": {"symbolic": 6},
        "plan_id": {"plan-7": 6},
    }
    assert entry["inputs"] == {str(source): 20}
    assert list(entry["config_hashes"].values()) == [20]
    assert entry["repair"] == {"attempted": 0, "succeeded": 0, "success_rate": None}


def test_rerunning_admits_nothing_twice_and_changes_no_byte(tmp_path, setup):
    source, eval_dir, _, _ = setup
    train = tmp_path / "train"
    filter_into(train, source, eval_dir)
    before = files_of(train)
    again = filter_into(train, source, eval_dir)
    assert (again.already_decided, again.verdicts) == (20, [])
    assert files_of(train) == before


def test_the_same_input_gives_the_same_bytes(tmp_path, setup):
    source, eval_dir, _, _ = setup
    filter_into(tmp_path / "a", source, eval_dir)
    filter_into(tmp_path / "b", source, eval_dir)
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")


def test_a_killed_run_resumes_to_the_same_files(tmp_path, setup):
    source, eval_dir, _, _ = setup
    whole = tmp_path / "whole"
    filter_into(whole, source, eval_dir)
    # Killed after logging the 5th verdict (an accepted one) but before admitting it, while
    # writing the 6th verdict: the log has 5 lines and a partial one, the admitted file 4.
    killed = tmp_path / "killed"
    log = (whole / "verdicts" / "cands.jsonl").read_text().splitlines(keepends=True)
    admitted = (whole / "cands.jsonl").read_text().splitlines(keepends=True)
    (killed / "verdicts").mkdir(parents=True)
    (killed / "verdicts" / "cands.jsonl").write_text("".join(log[:5]) + log[5][:40])
    (killed / "cands.jsonl").write_text("".join(admitted[:4]))
    resumed = filter_into(killed, source, eval_dir)
    assert resumed.already_decided == 5
    assert files_of(killed) == files_of(whole)


def test_a_whole_record_left_without_its_newline_gets_it_back_on_resume(tmp_path, setup):
    # Bug: a resume that appends nothing to a file kept its unterminated last record as it was,
    # so `wc -l` counted one line short.
    source, eval_dir, _, _ = setup
    whole = tmp_path / "whole"
    filter_into(whole, source, eval_dir)
    before = files_of(whole)
    for name in ("cands.jsonl", "rejected/cands.jsonl", "verdicts/cands.jsonl"):
        path = whole / name
        path.write_bytes(path.read_bytes().removesuffix(b"\n"))
    again = filter_into(whole, source, eval_dir)
    assert (again.already_decided, again.verdicts) == (20, [])
    assert files_of(whole) == before  # every newline restored, nothing appended twice


def test_a_second_input_cannot_readmit_or_reuse_ids(tmp_path, setup):
    source, eval_dir, _, accepted = setup
    train = tmp_path / "train"
    filter_into(train, source, eval_dir)
    first = Sample.model_validate_json(source.read_text().splitlines()[0])
    clash = first.model_copy(update={"story": "A new story about a dog and a bone."})
    copy = first.model_copy(update={"id": "same-text-new-id"})
    second = write_jsonl(tmp_path / "more.jsonl", [first, clash, copy])
    summary = run_filter(
        FilterRun(
            settings=Settings(),
            input_path=second,
            name="cands",
            use_llm=False,
            train_dir=train,
            eval_dir=eval_dir,
        )
    )
    assert (summary.already_decided, summary.already_admitted) == (1, 0)
    assert {v.sample_id: v.reasons for v in summary.verdicts} == {
        first.id: ["duplicate_id"],
        "same-text-new-id": ["exact_duplicate"],
    }
    exact = summary.verdicts[1].attempts[0].checks
    assert next(c.detail for c in exact if c.check == "exact_duplicate") == (
        f"same text as {first.id}"
    )
    # Under another name, the admitted samples of this one are not compared: a third input
    # copying an admitted sample under the *same* name is, as "(admitted)".
    third = write_jsonl(tmp_path / "third.jsonl", [copy.model_copy(update={"id": "third"})])
    summary = run_filter(
        FilterRun(
            settings=Settings(),
            input_path=third,
            name="cands",
            use_llm=False,
            train_dir=train,
            eval_dir=eval_dir,
        )
    )
    assert summary.verdicts[0].reasons == ["exact_duplicate"]
    checks = summary.verdicts[0].attempts[0].checks
    assert next(c.detail for c in checks if c.check == "exact_duplicate") == (
        f"same text as {first.id} (admitted)"
    )
    admitted = [json.loads(line)["id"] for line in summary.admitted_path.read_text().splitlines()]
    assert admitted == accepted


def test_records_admitted_without_a_verdict_log_are_skipped(tmp_path, setup):
    # The log is the first thing written; if it is lost, admitted and rejected files still
    # keep every candidate from being decided twice.
    source, eval_dir, expected, accepted = setup
    train = tmp_path / "train"
    filter_into(train, source, eval_dir)
    (train / "verdicts" / "cands.jsonl").unlink()
    admitted = (train / "cands.jsonl").read_bytes()
    again = filter_into(train, source, eval_dir)
    assert (again.already_admitted, again.already_decided) == (len(accepted), len(expected))
    assert (train / "cands.jsonl").read_bytes() == admitted


def test_disabled_checks_are_recorded_as_skipped(tmp_path, setup):
    source, eval_dir, _, _ = setup
    settings = FilterSettings(disabled_checks=["contamination", "answer_leak"])
    summary = filter_into(tmp_path / "t", source, eval_dir, settings=Settings(filter=settings))
    reasons = {v.sample_id: v.reasons for v in summary.verdicts}
    assert reasons["leak"] == []
    assert reasons["contaminated"] == ["label_unverified"]  # free-form, no LLM to verify it
    counts = {c.check: c for c in summary.checks}
    assert counts["contamination"].skipped == {"disabled": 20}
    assert summary.guarded == []


def test_an_unknown_disabled_check_is_a_config_error(tmp_path, setup):
    source, eval_dir, _, _ = setup
    with pytest.raises(ConfigError, match=r"unknown check\(s\) \['rubrik'\]"):
        filter_into(
            tmp_path / "t",
            source,
            eval_dir,
            settings=Settings(filter=FilterSettings(disabled_checks=["rubrik"])),
        )


def test_a_missing_input_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="cannot read input"):
        filter_into(tmp_path / "t", tmp_path / "absent.jsonl", tmp_path)
