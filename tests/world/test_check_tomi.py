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


def _release_copy(folder, release):
    """A release folder holding the val split (links to the real files)."""
    release.mkdir(parents=True)
    for name in ("fb_all_val.txt", "fb_all_val.trace"):
        (release / name).symlink_to(folder / name)
    return release


def test_a_folder_holding_the_release_folder_finds_it(folder, tmp_path):
    import subprocess
    import sys

    bench = tmp_path / "bench"
    release = _release_copy(folder, bench / "tomi" / "tomi_balanced_story_types")
    (bench / "other").mkdir()
    (bench / "other" / "test.txt").write_text("not ToMi\n")  # no trace: not a split
    direct = load_all_splits("tomi", release)
    assert load_all_splits("tomi", bench / "tomi") == direct
    assert load_all_splits("tomi", bench) == direct
    result = subprocess.run(
        [sys.executable, "-m", "tomflywheel", "world", "check", "tomi", str(bench)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "5994 questions: 5994 parsed" in result.stdout


def test_two_releases_below_a_folder_are_named_and_deeper_ones_not_searched(folder, tmp_path):
    one = _release_copy(folder, tmp_path / "a" / "tomi_balanced_story_types")
    two = _release_copy(folder, tmp_path / "b" / "tomi_balanced_story_types")
    with pytest.raises(DataError) as error:
        load_all_splits("tomi", tmp_path)
    assert f"several ToMi releases here ({one}, {two}); name one" in str(error.value)
    _release_copy(folder, tmp_path / "deep" / "x" / "y" / "release")
    with pytest.raises(DataError) as error:
        load_all_splits("tomi", tmp_path / "deep")
    assert "no ToMi split here" in str(error.value)
