"""``max_samples``: a seeded slice that keeps every group's share, or the first N."""

from __future__ import annotations

from collections import Counter

from tomflywheel.config import DatasetRef
from tomflywheel.evaluation import load_dataset
from tomflywheel.evaluation._slice import take_samples
from tomflywheel.schema import Answer, Sample


def _sample(i: int, question_type: str, **meta: object) -> Sample:
    return Sample(
        id=f"s{i}",
        story="s",
        question="q",
        answer=Answer(correct_answers=["a"]),
        meta={"question_type": question_type, **meta},
    )


# A file sorted by group, as benchmark files often are: the first N are all one type.
SORTED = [_sample(i, "first_order") for i in range(60)] + [
    _sample(60 + i, "reality") for i in range(30)
]


def test_stratified_keeps_each_groups_share_and_the_first_keeps_the_head():
    stratified = take_samples(SORTED, 30, mode="stratified", fields=["question_type"], key="d")
    first = take_samples(SORTED, 30, mode="first", fields=["question_type"], key="d")
    assert len(stratified) == len(first) == 30
    assert Counter(s.meta["question_type"] for s in stratified) == {
        "first_order": 20,
        "reality": 10,
    }
    assert first == SORTED[:30]


def test_the_slice_is_seeded_by_the_dataset_and_independent_of_file_order():
    one = take_samples(SORTED, 12, mode="stratified", fields=["question_type"], key="d")
    again = take_samples(SORTED[::-1], 12, mode="stratified", fields=["question_type"], key="d")
    other = take_samples(SORTED, 12, mode="stratified", fields=["question_type"], key="e")
    assert {s.id for s in one} == {s.id for s in again}
    assert {s.id for s in one} != {s.id for s in other}
    # Kept in file order.
    assert [s.id for s in one] == [s.id for s in SORTED if s in one]


def test_every_prefix_is_stratified_when_groups_are_small():
    groups = [_sample(i, f"t{i % 5}") for i in range(50)]
    kept = take_samples(groups, 5, mode="stratified", fields=["question_type"], key="d")
    assert sorted(s.meta["question_type"] for s in kept) == ["t0", "t1", "t2", "t3", "t4"]


def test_linked_samples_are_kept_or_dropped_together():
    pairs = [_sample(i, "x", pair=i // 2) for i in range(20)]
    kept = take_samples(
        pairs, 7, mode="stratified", fields=["question_type"], unit_by="pair", key="d"
    )
    assert len(kept) == 6
    assert all(count == 2 for count in Counter(s.meta["pair"] for s in kept).values())


def test_load_dataset_slices_by_the_tasks_groups_unless_first(tmp_path):
    path = tmp_path / "tomi_synth.jsonl"
    samples = [
        _sample(i, "first_order" if i < 40 else "reality", dataset="tomi_synth") for i in range(60)
    ]
    path.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
    options = {"max_samples": 15, "exclude_memory_reality": False, "judge_override": None}
    loaded = load_dataset(DatasetRef(path=path), **options)
    types = Counter(s.meta["question_type"] for s in loaded.samples)
    assert types == {"first_order": 10, "reality": 5}
    first = load_dataset(DatasetRef(path=path, slice="first"), **options)
    assert [s.id for s in first.samples] == [f"s{i}" for i in range(15)]
    assert load_dataset(DatasetRef(path=path), slice_mode="first", **options).samples == (
        first.samples
    )
