"""ToMi release set, all three splits: 100% with the tomi profile; the default's gap explained."""

from collections import Counter

import pytest

from tomflywheel.datasets import load_all_splits
from tomflywheel.errors import DataError
from tomflywheel.world.checks import check_samples

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


@pytest.fixture(scope="module")
def samples(folder):
    return load_all_splits("tomi", folder)


def test_tomi_profile_reproduces_every_gold_of_all_three_splits(samples):
    report = check_samples("tomi", samples)
    assert report.profile == "tomi"
    assert {row.qtype: (row.agree, row.total) for row in report.rows} == {
        qtype: (count, count) for qtype, count in EXPECTED_TOMI.items()
    }
    assert report.total == 17982
    assert report.mismatches == ()
    assert report.verifier_disagreements == ()


def test_the_principled_default_differs_only_on_second_order_no_tom_by_two_conventions(samples):
    report = check_samples("tomi", samples, profile="default", verify_both=False)
    assert report.agree == 16514
    rows = {row.qtype: (row.agree, row.total) for row in report.rows}
    assert rows["second_order_0_no_tom"] == (1489, 2223)
    assert rows["second_order_1_no_tom"] == (1489, 2223)
    gaps = {qtype for qtype, (agree, total) in rows.items() if agree != total}
    assert gaps == {"second_order_0_no_tom", "second_order_1_no_tom"}
    causes = Counter(mismatch.cause.split(":")[0] for mismatch in report.mismatches)
    assert causes == {"third-party entry": 1122, "re-entry": 346}


def test_a_single_split_file_checks_on_its_own(folder):
    samples = load_all_splits("tomi", folder / "fb_all_test.txt")
    report = check_samples("tomi", samples, verify_both=False)
    assert report.total == 5994
    assert report.agree == 5994


def test_without_its_trace_file_a_split_is_a_data_error_naming_the_trace(folder, tmp_path):
    # The importer reads question types from the trace, so the check needs it too.
    copy = tmp_path / "fb_all_val.txt"
    copy.write_bytes((folder / "fb_all_val.txt").read_bytes())
    with pytest.raises(DataError) as error:
        load_all_splits("tomi", copy)
    assert (
        str(error.value)
        == f"{copy.with_suffix('.trace')}: trace file not found (needed for question types)"
    )
