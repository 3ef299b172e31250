"""What a reader must know between rounds: an unchanged model, a changed dataset list, a resume."""

from __future__ import annotations

from tomflywheel.flywheel._manifest import RoundRecord, RunManifest, StageRecord, resume_lines
from tomflywheel.flywheel._summary import dataset_changes, round_notes, round_summary
from tomflywheel.report import write_run_report


def _accuracy(**sizes: int) -> dict:
    return {
        name: {"overall": {"accuracy": 0.5, "ci95": [0.2, 0.8], "n": n}, "groups": {}}
        for name, n in sizes.items()
    }


def test_a_round_without_training_says_the_model_did_not_change():
    summary = round_summary(RoundRecord(round=1), model="smollm2")
    assert summary["trained"] is None and summary["datasets_changed"] is None
    assert summary["notes"] == [
        "no fine-tuning this round (run without --train): the model did not change; "
        "the next round evaluates smollm2 again"
    ]
    trained = {**summary, "trained": {"served_name": "smollm2-r1"}}
    assert round_notes(trained) == []


def test_a_changed_dataset_list_is_flagged():
    previous = {"round": 1, "accuracy": _accuracy(tomi=12, hitom=8)}
    assert dataset_changes(_accuracy(tomi=12, hitom=8), previous) is None
    assert dataset_changes(_accuracy(tomi=12), None) is None
    changes = dataset_changes(_accuracy(tomi=10, bigtom=6), previous)
    assert changes == {"added": ["bigtom"], "removed": ["hitom"], "resized": {"tomi": [12, 10]}}
    notes = round_notes({"round": 2, "trained": {}, "datasets_changed": changes})
    assert notes == [
        "the dataset list differs from round 1's (added bigtom; removed hitom; tomi: n 12 → 10): "
        "accuracy is not comparable across these rounds there"
    ]


def test_the_run_report_shows_the_notes(tmp_path):
    summary = {
        **round_summary(RoundRecord(round=2), model="smollm2"),
        "accuracy": _accuracy(tomi=10),
        "notes": ["the dataset list differs from round 1's (removed hitom)"],
    }
    html = write_run_report(tmp_path, [summary], "train", tmp_path).read_text()
    assert "round 2: the dataset list differs from round 1&#x27;s (removed hitom)" in html


def test_a_resume_lists_what_was_done():
    stage = StageRecord(seconds=1.0, finished="2026-01-01T00:00:00")
    manifest = RunManifest(
        run_id="r1",
        created="2026-01-01T00:00:00",
        rounds_planned=2,
        train_name="t",
        rounds=[
            RoundRecord(round=1, stages={"evaluate": stage, "feedback": stage, "filter": stage}),
            RoundRecord(round=2, stages={"evaluate": stage}),
        ],
    )
    assert resume_lines(manifest) == [
        "resuming run r1; already done:",
        "  round 1: evaluate, feedback, filter",
        "  round 2: evaluate",
    ]
    empty = manifest.model_copy(update={"rounds": []})
    assert resume_lines(empty) == ["resuming run r1: nothing finished yet"]
