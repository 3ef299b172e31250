"""What a reader must know about how a dataset was judged: self-judging, calibration, ambiguity."""

from __future__ import annotations

from typing import Any


def judge_notes(metrics: dict[str, Any]) -> list[str]:
    """Plain-text warnings about one dataset's verdicts (empty when there is nothing to say).

    - the LLM judge is the evaluated model itself;
    - its estimated accuracy (agreement with certain rule verdicts) is under the threshold;
    - how many replies were ambiguous (counted as wrong) or unjudged.
    """
    notes = []
    label = metrics.get("dataset", "?")
    identity = metrics.get("judge_identity")
    if identity and identity.get("same"):
        notes.append(
            f"{label}: the LLM judge is the evaluated model itself ({identity['judge_model']}), "
            f"asked on {identity['asked']} item(s): it grades its own answers"
        )
    calibration = metrics.get("judge_calibration")
    if calibration and calibration.get("warning"):
        notes.append(f"{label}: {calibration['warning']}")
    counts = metrics.get("counts") or {}
    if counts.get("ambiguous"):
        notes.append(
            f"{label}: {counts['ambiguous']} ambiguous repl(ies) naming several answers, "
            "scored as wrong"
        )
    if counts.get("unjudged"):
        notes.append(
            f"{label}: {counts['unjudged']} unjudged (judge failed or contradicted itself), "
            "left out of accuracy"
        )
    return notes


def calibration_text(metrics: dict[str, Any]) -> str | None:
    """The judge's estimated accuracy in one line, or ``None`` when it was never measured."""
    calibration = metrics.get("judge_calibration")
    if not calibration or calibration.get("accuracy") is None:
        return None
    return (
        f"LLM judge's estimated accuracy {100 * calibration['accuracy']:.1f}% "
        f"({calibration['agree']}/{calibration['n']} agreements with certain rule verdicts; "
        f"{calibration['inconsistent']} inconsistent replies)"
    )


def calibration_words(calibration: dict[str, Any] | None) -> str:
    """The LLM diagnoser's calibration against the engine, in words."""
    if not calibration:
        return "no LLM diagnoser to calibrate"
    agreed = f"{calibration['agree']} of {calibration['n']} cross-checked cases"
    if calibration["status"] == "uncalibrated":
        return f"the diagnoser is uncalibrated ({agreed} agree with the engine; too few checks)"
    return (
        f"the diagnoser {calibration['status']} calibration ({agreed} agree with the engine, "
        f"{100 * calibration['min_agreement']:.0f}% needed)"
    )
