"""The flywheel: evaluate -> feedback -> filter -> admit, round after round."""

from tomflywheel.flywheel._lift import is_control
from tomflywheel.flywheel._manifest import RoundRecord, RunManifest, StageRecord, load_manifest
from tomflywheel.flywheel._run import FlywheelSummary, round_settings, run_flywheel
from tomflywheel.flywheel._summary import accuracy_by_dataset, filter_outcome, round_summary

__all__ = [
    "FlywheelSummary",
    "RoundRecord",
    "RunManifest",
    "StageRecord",
    "accuracy_by_dataset",
    "filter_outcome",
    "is_control",
    "load_manifest",
    "round_settings",
    "round_summary",
    "run_flywheel",
]
