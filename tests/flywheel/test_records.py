"""A run's files as records: what the previous version wrote reads back by attribute, and what
this version writes the previous version's reader still reads.

``data/summary_v0.json`` and ``data/manifest_v0.json`` were written by the flywheel before its
results were typed (a one-round ``--train`` run; the summary trimmed to a few entries of each
kind, paths shortened).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tomflywheel.artifacts import RoundSummary, TrainOutputs
from tomflywheel.flywheel import load_manifest
from tomflywheel.flywheel._manifest import save_manifest

DATA = Path(__file__).parent / "data"


def test_a_summary_written_before_reads_by_attribute_and_writes_back_the_same(tmp_path):
    old = json.loads((DATA / "summary_v0.json").read_text(encoding="utf-8"))
    summary = RoundSummary.read(DATA / "summary_v0.json")
    assert summary.round == 1 and summary.model == "smollm2-135m-instruct"
    assert summary.filter.admitted == 107 and summary.candidates.total == 132
    assert summary.trained is not None and summary.trained.steps == 2
    assert summary.trained.mix is not None and summary.trained.mix.new == 107
    tomi = summary.accuracy["tomi_synth"]
    assert tomi.overall.accuracy == old["accuracy"]["tomi_synth"]["overall"]["accuracy"]
    assert tomi.shortcut is not None and tomi.shortcut.headline("belief_balanced") == 0.4462
    assert summary.lift is not None
    assert summary.lift["tomi_heldout"].lift["all"] == old["lift"]["tomi_heldout"]["lift"]["all"]
    assert summary.admission_audit is not None and summary.admission_audit.this_round.dropped
    # written again, it is the same JSON, key for key and in the same order
    summary.write(tmp_path / "summary.json")
    again = (tmp_path / "summary.json").read_text(encoding="utf-8")
    assert again == json.dumps(old, ensure_ascii=False, indent=2) + "\n"


def test_a_summary_from_before_a_key_existed_reads_with_its_default():
    old = json.loads((DATA / "summary_v0.json").read_text(encoding="utf-8"))
    for key in ("surface", "cache_hits", "fresh", "lift_vs_sft_stage"):
        del old[key]
    del old["accuracy"]["tomi_synth"]["shortcut"]
    summary = RoundSummary.model_validate(old)
    assert summary.surface is None and summary.cache_hits == 0 and summary.fresh is None
    assert summary.accuracy["tomi_synth"].shortcut is None
    assert summary.as_json() == old  # nothing added that was not there


class _OldStage(BaseModel):
    """The previous version's manifest reader, as it was."""

    model_config = ConfigDict(extra="forbid")
    seconds: float
    usage: dict[str, Any] = Field(default_factory=dict)
    finished: str
    outputs: dict[str, Any] = Field(default_factory=dict)


class _OldRound(BaseModel):
    model_config = ConfigDict(extra="forbid")
    round: int
    stages: dict[str, _OldStage] = Field(default_factory=dict)


class _OldManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run_id: str
    created: str
    rounds_planned: int
    train_name: str
    rounds: list[_OldRound] = Field(default_factory=list)


def test_a_manifest_written_before_reads_typed_and_the_old_reader_reads_the_new_one(tmp_path):
    run_dir = tmp_path / "fw"
    run_dir.mkdir()
    text = (DATA / "manifest_v0.json").read_text(encoding="utf-8")
    (run_dir / "manifest.json").write_text(text, encoding="utf-8")
    manifest = load_manifest(run_dir)
    assert manifest is not None
    stages = manifest.stages(1)
    assert stages.names() == [
        "evaluate",
        "feedback",
        "filter",
        "heldout_before",
        "train",
        "heldout_after",
    ]
    assert stages.feedback is not None and stages.feedback.outputs.plan_id == "865ad8b7ce51"
    assert isinstance(stages.feedback.outputs.candidates, Path)
    assert stages.train is not None and isinstance(stages.train.outputs, TrainOutputs)
    assert stages.train.outputs.served_name.endswith(stages.train.outputs.weights_sha256[:12])
    assert not stages.train.usage.spent and stages.evaluate.usage.requests_sent == 60
    save_manifest(run_dir, manifest)
    written = (run_dir / "manifest.json").read_text(encoding="utf-8")
    assert written == text  # unchanged by a resume that only reads it
    old = _OldManifest.model_validate_json(written)
    assert old.rounds[0].stages["filter"].outputs["admitted"] == str(stages.filter.outputs.admitted)
