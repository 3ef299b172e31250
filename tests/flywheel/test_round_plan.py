"""A round's plan is decided once, as data: the model it serves, its seed, its sets, its guard."""

from __future__ import annotations

from pathlib import Path

from tomflywheel.artifacts import TrainOutputs
from tomflywheel.config import Settings
from tomflywheel.flywheel import RunManifest, ServedModel, StageRecord, plan_round, stage_settings
from tomflywheel.flywheel._round import guarded_settings

ROOT = Path(__file__).resolve().parents[2]


def _settings(**flywheel: object) -> Settings:
    return Settings.model_validate(
        {
            "eval": {"datasets": [{"path": str(ROOT / "data/eval/tomi_synth.jsonl")}]},
            "feedback": {"seed": 7},
            "flywheel": {
                "heldout": [{"path": str(ROOT / "data/heldout/tomi_heldout.jsonl")}],
                **flywheel,
            },
        }
    )


def _manifest_trained_in_round_1(tmp_path: Path) -> RunManifest:
    manifest = RunManifest(run_id="r", created="t", rounds_planned=2, train_name="n")
    outputs = TrainOutputs(
        model_dir=tmp_path / "model", served_name="base-r-r1-abc", weights_sha256="abc",
        base="base", data=tmp_path / "d.jsonl", steps=1, samples=1, seconds=1.0,
    )  # fmt: skip
    record = StageRecord[TrainOutputs](seconds=1.0, finished="t", outputs=outputs)
    manifest.stages(1).record("train", record)
    return manifest


def test_round_one_serves_the_configured_model_and_later_rounds_the_last_trained(tmp_path):
    settings = _settings(train=True)
    manifest = _manifest_trained_in_round_1(tmp_path)
    first, second = plan_round(settings, manifest, 1), plan_round(settings, manifest, 2)
    assert first.model == first.base == ServedModel(name="smollm2-135m-instruct")
    assert second.model == ServedModel(name="base-r-r1-abc", folder=tmp_path / "model")
    assert second.base == first.base  # trained models are named after the configured one
    assert (first.seed, second.seed) == (7, 8)  # flywheel.reseed: each round its own seed
    assert [ref.label for ref in first.heldout] == ["tomi_heldout", "tomi_heldout_logprob"]
    assert first.guarded == (
        ROOT / "data/eval/tomi_synth.jsonl",
        ROOT / "data/heldout/tomi_heldout.jsonl",
    )
    fixed = plan_round(_settings(train=True, reseed=False), manifest, 2)
    assert fixed.seed == 7
    assert plan_round(_settings(), manifest, 1).heldout == ()  # no training: nothing held out


def test_a_stages_settings_come_from_the_plan_in_one_place(tmp_path):
    settings = _settings(train=True)
    plan = plan_round(settings, _manifest_trained_in_round_1(tmp_path), 2)
    evaluated = stage_settings(settings, plan)
    assert evaluated.server == "embedded"
    assert evaluated.embedded.model == tmp_path / "model"
    assert evaluated.embedded.served_model_name == "base-r-r1-abc"
    assert evaluated.feedback.seed == 8
    assert [ref.label for ref in evaluated.eval.datasets] == ["tomi_synth"]
    held = stage_settings(settings, plan, datasets=plan.heldout)
    assert [ref.label for ref in held.eval.datasets] == ["tomi_heldout", "tomi_heldout_logprob"]
    assert evaluated.filter.contamination.extra_paths == []  # only the filter guards
    guarded = guarded_settings(settings, plan)
    assert guarded.filter.contamination.extra_paths == list(plan.guarded)
    assert settings.embedded.model is None and settings.feedback.seed == 7  # the run's, untouched
