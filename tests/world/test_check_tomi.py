"""ToMi release set, all three splits: 100% with the tomi profile; the default's gap explained."""

from collections import Counter

import pytest

from tomflywheel.world import check_benchmark

EXPECTED_TOMI = {
    "first_order_0_no_tom": 2997,
    "first_order_1_no_tom": 1793,
    "first_order_1_tom": 1204,
    "memory": 2997,
    "reality": 2997,
    "second_order_0_no_tom": 2223,
    "second_order_0_tom": 774,
    "second_order_1_no_tom": 2223,
    "second_order_1_tom": 774,
}


@pytest.fixture(scope="module")
def folder(benchmarks):
    return benchmarks / "tomi" / "tomi_balanced_story_types"


def test_tomi_profile_reproduces_every_gold_of_all_three_splits(folder):
    report = check_benchmark("tomi", folder)
    assert report.profile == "tomi"
    assert {row.qtype: (row.agree, row.total) for row in report.rows} == {
        qtype: (count, count) for qtype, count in EXPECTED_TOMI.items()
    }
    assert report.total == 17982
    assert report.mismatches == ()
    assert report.verifier_disagreements == ()


def test_the_principled_default_differs_only_on_second_order_no_tom_by_two_conventions(folder):
    report = check_benchmark("tomi", folder, profile="default", verify_both=False)
    assert report.agree == 16514
    rows = {row.qtype: (row.agree, row.total) for row in report.rows}
    assert rows["second_order_0_no_tom"] == (1489, 2223)
    assert rows["second_order_1_no_tom"] == (1489, 2223)
    gaps = {qtype for qtype, (agree, total) in rows.items() if agree != total}
    assert gaps == {"second_order_0_no_tom", "second_order_1_no_tom"}
    causes = Counter(mismatch.cause.split(":")[0] for mismatch in report.mismatches)
    assert causes == {"third-party entry": 1122, "re-entry": 346}


def test_a_single_split_file_checks_on_its_own(folder):
    report = check_benchmark("tomi", folder / "fb_all_test.txt", verify_both=False)
    assert report.total == 5994
    assert report.agree == 5994


def test_without_trace_files_the_question_types_are_derived_the_same_way(folder, tmp_path):
    from tomflywheel.world import load_tomi

    copy = tmp_path / "fb_all_val.txt"
    copy.write_bytes((folder / "fb_all_val.txt").read_bytes())
    with_trace = [item.qtype for item in load_tomi(folder / "fb_all_val.txt")]
    assert [item.qtype for item in load_tomi(copy)] == with_trace
