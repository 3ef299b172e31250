"""What a reader must know between rounds: an unchanged model, a changed dataset list, a resume."""

from __future__ import annotations

from pathlib import Path

from tomflywheel.artifacts import (
    DatasetAccuracy,
    EvaluateOutputs,
    FeedbackOutputs,
    FilterOutputs,
    RoundSummary,
    TrainOutputs,
)
from tomflywheel.flywheel._manifest import RoundRecord, RunManifest, StageRecord, resume_lines
from tomflywheel.flywheel._summary import dataset_changes, round_notes, round_summary
from tomflywheel.report import write_run_report


def _accuracy(**sizes: int) -> dict[str, DatasetAccuracy]:
    return {
        name: DatasetAccuracy.model_validate(
            {"task": name, "overall": {"accuracy": 0.5, "ci95": [0.2, 0.8], "n": n}}
        )
        for name, n in sizes.items()
    }


def _trained() -> TrainOutputs:
    return TrainOutputs(
        model_dir=Path("m"), served_name="smollm2-r1", weights_sha256="0" * 64, base="b",
        data=Path("d.jsonl"), steps=1, samples=1, seconds=1.0,
    )  # fmt: skip


def test_a_round_without_training_says_the_model_did_not_change():
    summary = round_summary(RoundRecord(round=1), model="smollm2")
    assert summary.trained is None and summary.datasets_changed is None
    assert summary.notes == [
        "no fine-tuning this round (run without --train): the model did not change; "
        "the next round evaluates smollm2 again"
    ]
    trained = summary.model_copy(update={"trained": _trained()})
    assert round_notes(trained) == []


def test_a_changed_dataset_list_is_flagged():
    previous = RoundSummary(round=1, model="m", accuracy=_accuracy(tomi=12, hitom=8))
    assert dataset_changes(_accuracy(tomi=12, hitom=8), previous) is None
    assert dataset_changes(_accuracy(tomi=12), None) is None
    changes = dataset_changes(_accuracy(tomi=10, bigtom=6), previous)
    assert changes is not None
    assert changes.as_json() == {
        "added": ["bigtom"],
        "removed": ["hitom"],
        "resized": {"tomi": [12, 10]},
    }
    summary = RoundSummary(round=2, model="m", trained=_trained(), datasets_changed=changes)
    assert round_notes(summary) == [
        "the dataset list differs from round 1's (added bigtom; removed hitom; tomi: n 12 → 10): "
        "accuracy is not comparable across these rounds there"
    ]


def test_the_run_report_shows_the_notes(tmp_path):
    summary = round_summary(RoundRecord(round=2), model="smollm2").model_copy(
        update={
            "accuracy": _accuracy(tomi=10),
            "notes": ["the dataset list differs from round 1's (removed hitom)"],
        }
    )
    html = write_run_report(tmp_path, [summary], "train", tmp_path).read_text()
    assert "round 2: the dataset list differs from round 1&#x27;s (removed hitom)" in html


def _stage(outputs):
    return StageRecord[type(outputs)](seconds=1.0, finished="2026-01-01T00:00:00", outputs=outputs)


def test_a_resume_lists_what_was_done():
    evaluate = _stage(EvaluateOutputs(exp_dir=Path("e")))
    feedback = _stage(FeedbackOutputs(candidates=Path("c.jsonl")))
    filtered = _stage(
        FilterOutputs(
            input=Path("c.jsonl"), admitted=Path("a"), verdicts=Path("v"), manifest=Path("m")
        )
    )
    manifest = RunManifest(
        run_id="r1",
        created="2026-01-01T00:00:00",
        rounds_planned=2,
        train_name="t",
        rounds=[
            RoundRecord(
                round=1,
                stages={"evaluate": evaluate, "feedback": feedback, "filter": filtered},
            ),
            RoundRecord(round=2, stages={"evaluate": evaluate}),
        ],
    )
    assert resume_lines(manifest) == [
        "resuming run r1; already done:",
        "  round 1: evaluate, feedback, filter",
        "  round 2: evaluate",
    ]
    empty = manifest.model_copy(update={"rounds": []})
    assert resume_lines(empty) == ["resuming run r1: nothing finished yet"]
