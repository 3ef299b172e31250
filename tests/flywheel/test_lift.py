"""Before/after comparison: targets vs controls, and the shortcut flags."""

from __future__ import annotations

from pathlib import Path

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.artifacts import HeldoutOutputs
from tomflywheel.flywheel._lift import compare, is_control, shortcut_warning, story_key
from tomflywheel.flywheel._manifest import RoundRecord, StageRecord
from tomflywheel.flywheel._summary import round_summary
from tomflywheel.schema import Answer, Judgment, MethodRef, Sample, Verdict
from tomflywheel.world import generate


def _sample(i: int, **meta: object) -> Sample:
    return Sample(
        id=f"s{i}", story="", question="", answer=Answer(correct_answers=["x"]), meta=meta
    )


def test_controls_are_the_items_the_skill_is_not_needed_for():
    assert is_control(_sample(0, control=True))
    assert is_control(_sample(1, question_type="second_order_0_no_tom"))
    assert is_control(_sample(2, story_type="true_belief"))
    assert is_control(_sample(3, variant="informed"))
    assert is_control(_sample(4, tom=False))
    assert not is_control(_sample(5, question_type="first_order_1_tom", tom=True))
    assert not is_control(_sample(6, variant="false_belief"))


def test_memory_and_reality_questions_are_controls_and_false_beliefs_targets():
    # real ToMi items mark no control: memory and reality were counted as targets before
    samples = [
        s
        for s in generate("tomi", seed=3, n=30)
        if s.meta["question_type"] in ("memory", "reality", "first_order_1_tom")
    ]
    for sample in samples:
        meta = {"dataset": "tomi", "question_type": sample.meta["question_type"]}  # as imported
        bare = sample.model_copy(update={"meta": meta})
        assert is_control(bare) == (sample.meta["question_type"] != "first_order_1_tom")


def test_parts_moving_apart_are_flagged_either_way():
    assert shortcut_warning(0.2, -0.05).startswith("possible new shortcut")
    assert shortcut_warning(-0.5, 0.24).startswith("possible reality bias")
    assert shortcut_warning(0.2, -0.04) is None  # within noise
    assert shortcut_warning(0.1, 0.1) is None
    assert shortcut_warning(None, -0.3) is None


def _experiment(folder: Path, verdicts: list[Verdict]) -> None:
    samples = [_sample(i, control=i >= 2) for i in range(4)]
    judgments = [
        Judgment(sample_id=f"s{i}", verdict=v, method=MethodRef(name="rules"))
        for i, v in enumerate(verdicts)
    ]
    write_jsonl_atomic(folder / "d" / "samples.jsonl", samples)
    write_jsonl_atomic(folder / "d" / "judgment.jsonl", judgments)


def test_compare_splits_targets_and_controls(tmp_path):
    C, W, U = Verdict.CORRECT, Verdict.INCORRECT, Verdict.UNJUDGED
    _experiment(tmp_path / "before", [W, W, C, C])
    _experiment(tmp_path / "after", [C, C, W, U])
    entry = compare(tmp_path / "before", tmp_path / "after")["d"]
    assert entry.lift == {"all": 0.1667, "targets": 1.0, "controls": -1.0}
    assert entry.after["controls"].n == 1  # the unjudged one does not count
    assert entry.shortcut_warning.startswith("possible new shortcut")


def test_compare_pairs_each_part_clustered_by_story(tmp_path):
    C, W = Verdict.CORRECT, Verdict.INCORRECT
    _experiment(tmp_path / "before", [W, W, C, C])
    _experiment(tmp_path / "after", [C, C, C, C])
    paired = compare(tmp_path / "before", tmp_path / "after")["d"].as_json()["paired"]
    # the four items share one story (the empty text): nothing generalizes beyond it
    assert (paired["targets"]["gained"], paired["targets"]["clusters"]) == (2, 1)
    assert (paired["targets"]["low"], paired["targets"]["high"]) == (-1.0, 1.0)
    # no control flipped, yet the interval has width
    assert paired["controls"]["lift"] == 0.0
    assert paired["controls"]["high"] > 0


def test_story_key_prefers_the_benchmarks_story_id():
    bigtom = _sample(0, dataset="bigtom", story_id=7)
    assert story_key(bigtom) == "bigtom:7"
    assert story_key(_sample(1).model_copy(update={"story": "A story."})) == "A story."


def _heldout(stage: dict, exp_dir: Path) -> StageRecord[HeldoutOutputs]:
    return StageRecord[HeldoutOutputs](**stage, outputs=HeldoutOutputs(exp_dir=exp_dir, model="m"))


def test_lift_against_the_base_compares_round_one_before_with_this_round_after(tmp_path):
    C, W = Verdict.CORRECT, Verdict.INCORRECT
    _experiment(tmp_path / "base", [W, W, W, C])
    _experiment(tmp_path / "before2", [C, W, W, C])
    _experiment(tmp_path / "after2", [C, C, W, C])
    stage = {"seconds": 1.0, "finished": "2026-01-01T00:00:00"}
    record = RoundRecord(
        round=2,
        stages={
            "heldout_before": _heldout(stage, tmp_path / "before2"),
            "heldout_after": _heldout(stage, tmp_path / "after2"),
        },
    )
    summary = round_summary(record, model="m", base_heldout=tmp_path / "base")
    assert summary.lift["d"].lift["targets"] == 0.5
    assert summary.lift_vs_base["d"].lift["targets"] == 1.0
    first = RoundRecord(round=1, stages=record.stages)
    assert round_summary(first, model="m", base_heldout=tmp_path / "base").lift_vs_base is None
