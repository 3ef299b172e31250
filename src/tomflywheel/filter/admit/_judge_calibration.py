"""How far the judge's confirmations of labels can be trusted: its agreement with the engine.

Where the judge must verify labels the engine cannot read, it also solves a few samples whose
label the engine verified (the ``judge_calibration`` check). Its majority's agreement with the
engine on those is its calibration: below ``solve.min_calibration_accuracy`` it fails, and labels
only it confirmed are counted as unverified; with fewer than ``solve.min_calibration_cases``
cross-checks it is uncalibrated (said, not failed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from tomflywheel.config import SolveSettings
from tomflywheel.filter.checks import CALIBRATION_AGREES, CALIBRATION_DISAGREES
from tomflywheel.schema import QualityVerdict

CalibrationStatus = Literal["passed", "failed", "uncalibrated"]


@dataclass(frozen=True, slots=True)
class JudgeCalibration:
    """The judge's agreements with the engine on the samples it solved to be checked."""

    n: int
    agree: int
    min_accuracy: float
    min_cases: int

    @property
    def accuracy(self) -> float | None:
        """Share of cross-checks where the judge's majority is the engine's label."""
        return self.agree / self.n if self.n else None

    @property
    def status(self) -> CalibrationStatus:
        """``uncalibrated`` under ``min_cases`` cross-checks, else passed or failed."""
        if self.n < self.min_cases:
            return "uncalibrated"
        return "passed" if self.agree >= self.min_accuracy * self.n else "failed"

    @property
    def untrusted(self) -> str:
        """Why the judge's confirmations verify nothing ("" when they may be trusted)."""
        if self.status != "failed":
            return ""
        return f"the judge failed its calibration ({self.agree}/{self.n} agree with the engine)"

    def words(self) -> str:
        """The calibration in one clause."""
        agreed = f"{self.agree} of {self.n} engine-verified samples"
        if self.status == "uncalibrated":
            return (
                f"the judge is uncalibrated: its majority agrees with {agreed}, under the "
                f"{self.min_cases} needed"
            )
        verdict = "passed" if self.status == "passed" else "failed"
        return (
            f"the judge {verdict} its calibration: its majority agrees with {agreed} "
            f"(needs {100 * self.min_accuracy:.0f}%)"
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain data (the manifest's ``judge_calibration``)."""
        return {
            "n": self.n,
            "agree": self.agree,
            "accuracy": self.accuracy,
            "status": self.status,
            "min_accuracy": self.min_accuracy,
            "min_cases": self.min_cases,
        }


def judge_calibration(
    verdicts: Iterable[QualityVerdict], settings: SolveSettings | None = None
) -> JudgeCalibration | None:
    """The judge's calibration over ``verdicts``; None when no cross-check was asked.

    A sample counts once (its last version the judge answered about), for or against the
    judge; one whose requests all failed counts for neither side.
    """
    settings = settings or SolveSettings()
    n = agree = 0
    for verdict in verdicts:
        judged = [
            result
            for attempt in verdict.attempts
            for result in attempt.checks
            if result.check == "judge_calibration"
            and result.detail.startswith((CALIBRATION_AGREES, CALIBRATION_DISAGREES))
        ]
        if judged:
            n += 1
            agree += judged[-1].detail.startswith(CALIBRATION_AGREES)
    if n == 0:
        return None
    return JudgeCalibration(
        n, agree, settings.min_calibration_accuracy, settings.min_calibration_cases
    )
