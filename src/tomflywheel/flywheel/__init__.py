"""The flywheel: evaluate -> feedback -> filter -> admit, round after round."""

from tomflywheel.flywheel._lift import first_verdicts, is_control, paired_part, story_key
from tomflywheel.flywheel._manifest import RoundRecord, RunManifest, StageRecord, load_manifest
from tomflywheel.flywheel._models import with_model
from tomflywheel.flywheel._run import FlywheelSummary, round_settings, run_flywheel
from tomflywheel.flywheel._summary import accuracy_by_dataset, filter_outcome, round_summary

__all__ = [
    "FlywheelSummary",
    "RoundRecord",
    "RunManifest",
    "StageRecord",
    "accuracy_by_dataset",
    "filter_outcome",
    "first_verdicts",
    "is_control",
    "load_manifest",
    "paired_part",
    "round_settings",
    "round_summary",
    "run_flywheel",
    "story_key",
    "with_model",
]
