"""The flywheel: evaluate -> feedback -> filter -> admit, round after round."""

from tomflywheel.flywheel._lift import first_verdicts, is_control, paired_part, story_key
from tomflywheel.flywheel._manifest import (
    RoundRecord,
    RoundStages,
    RunManifest,
    StageRecord,
    load_manifest,
)
from tomflywheel.flywheel._round import (
    RoundPlan,
    ServedModel,
    plan_round,
    stage_settings,
    with_model,
)
from tomflywheel.flywheel._run import FlywheelSummary, run_flywheel
from tomflywheel.flywheel._summary import accuracy_by_dataset, filter_outcome, round_summary

__all__ = [
    "FlywheelSummary",
    "RoundPlan",
    "RoundRecord",
    "RoundStages",
    "RunManifest",
    "ServedModel",
    "StageRecord",
    "accuracy_by_dataset",
    "filter_outcome",
    "first_verdicts",
    "is_control",
    "load_manifest",
    "paired_part",
    "plan_round",
    "round_summary",
    "run_flywheel",
    "stage_settings",
    "story_key",
    "with_model",
]
