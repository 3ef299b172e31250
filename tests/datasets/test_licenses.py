"""The licence table: every benchmark tomflywheel fetches has a row, and training terms hold."""

from __future__ import annotations

import pytest

from tomflywheel.datasets import IMPORTERS, LICENSES, SOURCES, license_of, training_forbidden


def test_every_pinned_source_and_every_benchmark_importer_has_a_licence_row():
    generic = {"mapping", "sentences", "blimp", "ewok", "entity_tracking"}  # formats, not data
    for name in [*SOURCES, *(n for n in IMPORTERS.names() if n not in generic)]:
        assert license_of(name) is not None, name


@pytest.mark.parametrize("name", sorted(n for n, s in SOURCES.items() if s.evaluation_only))
def test_a_source_its_authors_keep_for_evaluation_forbids_training(name):
    assert LICENSES[name].training == "forbidden"


def test_opentom_forbids_training_in_its_authors_words():
    entry = LICENSES["opentom"]
    assert (entry.card_id, entry.training) == ("cc-by-nc-4.0", "forbidden")
    assert entry.line == (
        'CC BY-NC 4.0 (seacowx/OpenToM README); the README: "It shall not be used for training '
        'or fine-tuning"'
    )


def test_dataset_names_find_their_benchmark_by_the_longest_prefix():
    assert license_of("tomi").dataset == "tomi"
    assert license_of("tomi_2cand").dataset == "tomi_2cand"
    assert license_of("emobench_eu").dataset == "emobench"
    assert license_of("tomi_synth") is None  # written by the generators: no benchmark text
    assert license_of("my_bench") is None


def test_only_the_forbidding_datasets_of_a_set_are_named():
    found = training_forbidden(["tomi", "opentom", "tombench", "hitom_synth", "opentom"])
    assert sorted(found) == ["opentom", "tombench"]
