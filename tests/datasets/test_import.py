"""import_dataset: option checks, default names, all-or-nothing writes, summaries."""

from __future__ import annotations

import pytest

from tests.datasets.conftest import edit_lines
from tests.datasets.toy_files import SOCIALIQA_RECORDS, write_socialiqa
from tomflywheel.datasets import import_dataset, load_benchmark
from tomflywheel.errors import ConfigError, DataError
from tomflywheel.schema import read_samples


def test_default_names_carry_non_default_options(benchmarks, tmp_path):
    folder = tmp_path / "datasets"
    assert (
        import_dataset("socialiqa", benchmarks / "socialiqa", datasets_dir=folder).out
        == folder / "socialiqa.jsonl"
    )
    fantom = benchmarks / "fantom"
    assert (
        import_dataset("fantom", fantom, datasets_dir=folder, context="short").out
        == folder / "fantom.jsonl"
    )
    assert (
        import_dataset("fantom", fantom, datasets_dir=folder, context="full").out
        == folder / "fantom_full.jsonl"
    )
    assert import_dataset("fantom", fantom, datasets_dir=folder, include_fact=True).out == (
        folder / "fantom_include_fact.jsonl"
    )
    assert import_dataset(
        "tombench", benchmarks / "tombench", datasets_dir=folder, language="zh"
    ).out == (folder / "tombench_zh.jsonl")


def test_the_written_file_holds_exactly_the_samples_and_is_reproducible(benchmarks, tmp_path):
    first = import_dataset("emobench_eu", benchmarks / "emobench", out=tmp_path / "a.jsonl")
    second = import_dataset("emobench_eu", benchmarks / "emobench", out=tmp_path / "b.jsonl")
    assert first.count == 400
    assert first.out.read_bytes() == second.out.read_bytes()
    assert list(read_samples(first.out)) == load_benchmark("emobench_eu", benchmarks / "emobench")


def test_the_summary_counts_grouping_values_and_units(benchmarks, tmp_path):
    summary = import_dataset("emobench_eu", benchmarks / "emobench", out=tmp_path / "eu.jsonl")
    assert summary.dataset == "emobench_eu"
    assert summary.units == 200
    assert summary.counts["question_type"] == {"cause": 200, "emotion": 200}
    assert summary.counts["category"]["perspective_taking"] == 134
    tgtom = import_dataset("tgtom", benchmarks / "tgtom", out=tmp_path / "tg.jsonl")
    # Six question types of 100 carry the flag (332 true, per the data notes); the rest do not.
    assert tgtom.counts["targeted"] == {"False": 268, "None": 1212, "True": 332}
    assert tgtom.units is None


def test_a_failed_import_keeps_the_earlier_good_file(tmp_path):
    out = tmp_path / "siqa.jsonl"
    import_dataset("socialiqa", write_socialiqa(tmp_path / "good"), out=out)
    before = out.read_bytes()
    folder = write_socialiqa(tmp_path / "broken")
    edit_lines(folder / "dev.jsonl", lambda lines: [*lines[:-1], lines[-1][:40]])
    with pytest.raises(DataError, match=rf"dev.jsonl:{SOCIALIQA_RECORDS}: invalid JSON"):
        import_dataset("socialiqa", folder, out=out)
    assert out.read_bytes() == before
    # No temp file left beside the output.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken", "good", "siqa.jsonl"]


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("tomy", {}, "unknown importer 'tomy' (known: adv_csfb, bigtom,"),
        ("tomi", {"splt": "train"}, "importer 'tomi' has no option 'splt' (its options: split)"),
        (
            "hitom",
            {"language": "en"},
            "importer 'hitom' has no option 'language' (its options: prompting)",
        ),
        (
            "bigtom",
            {"split": "test"},
            "importer 'bigtom' has no option 'split' (its options: none)",
        ),
        (
            "tomi",
            {"split": "dev"},
            "importer 'tomi': option 'split': Input should be 'train', 'val' or 'test'",
        ),
        ("mapping", {}, "importer 'mapping' needs option 'mapping'"),
    ],
)
def test_bad_importer_names_and_options_are_config_errors(tmp_path, name, options, message):
    # Refused before the source is read: an empty folder will do.
    with pytest.raises(ConfigError) as info:
        import_dataset(name, tmp_path, out=tmp_path / "x.jsonl", **options)
    assert str(info.value).startswith(message)
    assert not (tmp_path / "x.jsonl").exists()


def test_a_missing_source_is_named(tmp_path):
    with pytest.raises(DataError) as info:
        import_dataset("hitom", tmp_path / "nowhere", out=tmp_path / "x.jsonl")
    assert str(info.value) == f"{tmp_path / 'nowhere'}: no such file or folder"


def test_an_import_records_whether_its_files_are_the_pinned_release(benchmarks, tmp_path):
    release = benchmarks / "tomi" / "tomi_balanced_story_types"
    pinned = load_benchmark("tomi", release, split="test")
    assert {s.meta["provenance"] for s in pinned} == {
        "the pinned release, facebookresearch/ToMi @ dea2bca9b366c41cdab0bd717353cc02453e193e "
        "(tomi_balanced_story_types.zip) (sha256 of every file checked)"
    }
    copy = tmp_path / "tomi_balanced_story_types"
    copy.mkdir()
    for name in ("fb_all_test.txt", "fb_all_test.trace"):
        (copy / name).write_bytes((release / name).read_bytes())
    text = copy / "fb_all_test.txt"
    text.write_text(text.read_text().replace("green_bucket", "green_pail", 1))  # another copy
    edited = load_benchmark("tomi", copy, split="test")
    assert {s.meta["provenance"] for s in edited} == {
        "local files that are not the pinned release (facebookresearch/ToMi @ "
        "dea2bca9b366c41cdab0bd717353cc02453e193e (tomi_balanced_story_types.zip))"
    }
