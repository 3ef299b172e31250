"""What a curator reads per dataset: labels verified, repaired, dropped or unverified, and why.

A verdict's label status comes from the label checks' results on its first version (where the
label was judged): the engine's (``engine_label`` for a sample without a trace,
``symbolic_label`` for a trace), else an LLM's (``naturalization``, ``solve_agreement``), else
nothing verified it. A convention-dependent gold (some profile's rules give it, the reference
profiles disagree) is its own status, never counted verified.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tomflywheel.filter.admit._judge_calibration import JudgeCalibration
from tomflywheel.filter.checks import CONVENTION, REPAIRED
from tomflywheel.schema import CheckResult, CheckStatus, QualityDecision, QualityVerdict

LabelStatus = Literal[
    "verified", "convention", "repaired", "dropped", "llm_confirmed", "unverified"
]
"""How a label fared: the engine derives it under every reference profile, kept it although it
depends on a convention, relabelled it, contradicts it (rejected), only an independent judge
model agrees with it, or nothing verified it."""
STATUSES: tuple[LabelStatus, ...] = (
    "verified",
    "convention",
    "repaired",
    "dropped",
    "llm_confirmed",
    "unverified",
)
_QUOTED = re.compile(r"(?<![A-Za-z])'[^']*'(?![A-Za-z])|\"[^\"]*\"")
_NUMBER = re.compile(r"\b\d+\b")
_CAUSE = re.compile(r"(?: under [\w-]+|') \((?P<cause>[^:;(]+)")
_REPAIR = re.compile(
    r"^repaired: .* under (?P<profile>[\w-]+) \((?P<kind>\w+)\); (?P<why>.*)$", re.S
)


def _why(text: str) -> str:
    """A detail as a reason to count: its first clause and the kind of cause named.

    The cause is the one the engine gives (``third-party entry``); quoted text and numbers are
    blanked so that reasons group.
    """
    cause = _CAUSE.search(text)
    first = text.split("; ")[0]
    if cause is not None:
        first += f" ({cause.group('cause').strip()})"
    return _NUMBER.sub("N", _QUOTED.sub("'…'", first))[:160]


def _repair_why(detail: str) -> str:
    """Why a label was changed, as a reason to count: the kind of change first."""
    found = _REPAIR.match(detail)
    if found is None:
        return _why(detail.split("; ", 1)[-1])
    kind, why = found.group("kind"), found.group("why")
    if kind == "alias":
        return "alias restored"
    if kind == "convention":
        said = _why(why).removeprefix(CONVENTION)
        return f"convention resolved to {found.group('profile')}: {said}"
    return _why(why)


def _unreadable(detail: str) -> str:
    """Why the engine could not read a sample, as a reason to count."""
    if detail.startswith("line "):
        return "unreadable: a story sentence no parser reads"
    if detail.startswith("question: "):
        return "unreadable: a question no parser reads"
    return f"unreadable: {_why(detail)}"


def _first(verdict: QualityVerdict) -> dict[str, CheckResult]:
    return {result.check: result for result in verdict.attempts[0].checks}


def label_status(
    verdict: QualityVerdict, *, judge_is_evaluated: bool = False, untrusted_judge: str = ""
) -> tuple[LabelStatus, str]:
    """A verdict's label status and why, in a few words.

    Args:
        verdict: The candidate's last verdict.
        judge_is_evaluated: The judge model is the evaluated one: its agreement verifies nothing.
        untrusted_judge: Why the judge's agreement verifies nothing (it failed its calibration);
            "" when it may be trusted.
    """
    checks = _first(verdict)
    engine = checks.get("engine_label")
    if engine is not None and engine.status is CheckStatus.PASSED:
        if engine.detail.startswith(REPAIRED):
            return "repaired", _repair_why(engine.detail)
        if engine.detail.startswith(CONVENTION):
            return "convention", _why(engine.detail)
        return "verified", "engine: " + (engine.detail.split(" under ")[-1] or "?")
    if engine is not None and engine.failed:
        return "dropped", f"{engine.reason}: {_why(engine.detail)}"
    symbolic = checks.get("symbolic_label")
    if symbolic is not None and symbolic.status is CheckStatus.PASSED:
        natural = checks.get("naturalization")
        if natural is not None and natural.reason not in (None, "not_applicable"):
            return "unverified", f"naturalization {natural.reason}"
        return "verified", "engine: trace"
    if symbolic is not None and symbolic.failed:
        return "dropped", f"{symbolic.reason}"
    solve = checks.get("solve_agreement")
    unread = _unreadable(engine.detail) if engine is not None and engine.detail else ""
    if solve is not None and solve.status is CheckStatus.PASSED:
        if judge_is_evaluated or "(the evaluated model)" in solve.detail:
            return "unverified", "judged only by the evaluated model"
        if untrusted_judge:
            return "unverified", untrusted_judge
        return "llm_confirmed", "judge majority agrees"
    if solve is not None and solve.failed and solve.reason == "label_unconfirmed":
        return "dropped", "label_unconfirmed (judge majority disagrees)"
    if solve is not None and solve.reason in ("label_unverified", "no_llm"):
        return "unverified", unread or "no LLM"
    return "unverified", unread or "no label check ran"


def dataset_of(verdict: QualityVerdict) -> str:
    """The dataset a candidate belongs to (``meta.dataset``; ``?`` when the record has none)."""
    meta: Any = verdict.sample.meta if verdict.sample is not None else None
    if meta is None and isinstance(verdict.record, dict):
        meta = verdict.record.get("meta")
    value = meta.get("dataset") if isinstance(meta, dict) else None
    return str(value) if value else "?"


@dataclass
class LabelRow:
    """One dataset's labels: counts per status, admitted, and the reasons behind each status."""

    dataset: str
    candidates: int = 0
    admitted: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    why: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per status other than ``verified``, each reason and how many."""

    def as_dict(self) -> dict[str, Any]:
        """Plain data (the manifest's ``labels`` entry)."""
        return {
            "candidates": self.candidates,
            "admitted": self.admitted,
            **self.counts,
            "why": {
                status: dict(sorted(reasons.items(), key=lambda pair: (-pair[1], pair[0])))
                for status, reasons in sorted(self.why.items())
            },
        }


def label_rows(
    verdicts: Iterable[QualityVerdict],
    *,
    judge_is_evaluated: bool = False,
    calibration: JudgeCalibration | None = None,
) -> list[LabelRow]:
    """The per-dataset table of label statuses, datasets by name (valid samples only).

    ``calibration``: the judge's; when it failed, labels only the judge confirmed are unverified.
    """
    untrusted_judge = calibration.untrusted if calibration is not None else ""
    rows: dict[str, LabelRow] = {}
    reasons: dict[str, dict[str, Counter[str]]] = {}
    for verdict in verdicts:
        if verdict.sample is None:
            continue
        name = dataset_of(verdict)
        row = rows.setdefault(name, LabelRow(name))
        status, why = label_status(
            verdict, judge_is_evaluated=judge_is_evaluated, untrusted_judge=untrusted_judge
        )
        row.candidates += 1
        row.admitted += verdict.decision is QualityDecision.ACCEPTED
        row.counts[status] += 1
        if status != "verified":
            reasons.setdefault(name, {}).setdefault(status, Counter())[why] += 1
    for name, by_status in reasons.items():
        rows[name].why = {status: dict(counter) for status, counter in by_status.items()}
    return [rows[name] for name in sorted(rows)]
