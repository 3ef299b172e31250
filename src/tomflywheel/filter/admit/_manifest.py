"""Counts per check and reason, repair success and lineage, from verdicts; ``manifest.json``.

The manifest is rebuilt from every name's verdict log each run, so it is cumulative, never loses
another name's entry, and has the same bytes for the same logs (no timestamps, sorted keys).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_json, read_jsonl
from tomflywheel.config import SolveSettings
from tomflywheel.filter.admit._card import write_card
from tomflywheel.filter.admit._changes import admitted_labels
from tomflywheel.filter.admit._judge_calibration import judge_calibration
from tomflywheel.filter.admit._label_table import label_rows
from tomflywheel.filter.checks import REPAIRED, ordered_checks
from tomflywheel.schema import CheckResult, CheckStatus, QualityDecision, QualityVerdict


@dataclass
class CheckCount:
    """How one check went over a set of verdicts."""

    check: str
    passed: int = 0
    """Final version passed (and the first did too)."""
    rejected: int = 0
    """Rejected candidates whose final version failed it."""
    repaired: int = 0
    """Accepted candidates whose first version failed it; for ``engine_label``, the candidates
    it relabelled (admitted or not), as the label table counts them."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Did not run on the final version, by why (``no_llm``, ``disabled``, ...)."""

    def as_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "passed": self.passed,
            "rejected": self.rejected,
            "repaired": self.repaired,
            "skipped": dict(sorted(self.skipped.items())),
        }


def _relabelled(result: CheckResult) -> bool:
    """Whether the engine relabelled the candidate (``engine_label`` passes, saying so)."""
    return result.check == "engine_label" and result.detail.startswith(REPAIRED)


def check_counts(verdicts: Iterable[QualityVerdict]) -> list[CheckCount]:
    """Per-check counts in check order."""
    counts = {c.name: CheckCount(c.name) for c in ordered_checks()}
    for verdict in verdicts:
        first = {r.check: r for r in verdict.attempts[0].checks}
        accepted = verdict.decision is QualityDecision.ACCEPTED
        for result in verdict.attempts[-1].checks:
            count = counts.setdefault(result.check, CheckCount(result.check))
            if result.status is CheckStatus.SKIPPED:
                why = result.reason or "unknown"
                count.skipped[why] = count.skipped.get(why, 0) + 1
            elif result.status is CheckStatus.FAILED:
                count.rejected += 0 if accepted else 1
            elif _relabelled(result) or (accepted and first.get(result.check, result).failed):
                count.repaired += 1
            else:
                count.passed += 1
    return list(counts.values())


def reason_counts(verdicts: Iterable[QualityVerdict]) -> dict[str, int]:
    """How many rejected candidates each reason code applies to, most frequent first."""
    counter = Counter(reason for verdict in verdicts for reason in verdict.reasons)
    return dict(sorted(counter.items(), key=lambda pair: (-pair[1], pair[0])))


def reasons_by_check(verdicts: Iterable[QualityVerdict]) -> dict[str, dict[str, int]]:
    """Rejected candidates per check and reason code: each reason where it was found.

    A code two checks share (``label_unverified``) is counted under the check that failed.
    """
    counter: Counter[tuple[str, str]] = Counter()
    for verdict in verdicts:
        if verdict.decision is QualityDecision.ACCEPTED:
            continue
        found = {(r.check, r.reason or "") for r in verdict.attempts[-1].checks if r.failed}
        counter.update(found)
    table: dict[str, dict[str, int]] = {}
    for (name, code), n in sorted(counter.items(), key=lambda pair: (-pair[1], pair[0])):
        table.setdefault(name, {})[code] = n
    return table


def _diagnosis(lineage: Mapping[str, Any]) -> str:
    value = lineage.get("diagnosis")
    if isinstance(value, Mapping):
        value = value.get("category")
    return str(value) if value else "none"


def lineage_summary(verdicts: Iterable[QualityVerdict]) -> dict[str, dict[str, int]]:
    """Accepted samples per origin, generator, plan id and diagnosis category."""
    tallies: dict[str, Counter[str]] = {k: Counter() for k in ("origin", "generator", "plan_id")}
    tallies["diagnosis"] = Counter()
    for verdict in verdicts:
        if verdict.decision is not QualityDecision.ACCEPTED or verdict.sample is None:
            continue
        lineage = verdict.sample.meta.get("lineage")
        lineage = lineage if isinstance(lineage, Mapping) else {}
        tallies["origin"][verdict.origin] += 1
        tallies["generator"][str(lineage.get("generator") or "none")] += 1
        tallies["plan_id"][str(lineage.get("plan_id") or "none")] += 1
        tallies["diagnosis"][_diagnosis(lineage)] += 1
    return {key: dict(sorted(counter.items())) for key, counter in tallies.items()}


def repair_attempted(verdict: QualityVerdict) -> bool:
    """Whether a rewrite was tried (produced, or asked for and failed)."""
    return len(verdict.attempts) > 1 or any(a.repair_failure for a in verdict.attempts)


def last_verdicts(verdicts: Iterable[QualityVerdict]) -> list[QualityVerdict]:
    """Each candidate's last verdict (a balance rejection overrides its acceptance), in order."""
    last: dict[tuple[str, str], QualityVerdict] = {}
    for verdict in verdicts:
        last.pop((verdict.sample_id, verdict.input_hash), None)
        last[(verdict.sample_id, verdict.input_hash)] = verdict
    return list(last.values())


def audit_entry(path: Path) -> dict[str, Any] | None:
    """The shortcut audit of a set: the admitted set's audit and what balancing did, per run."""
    if not path.exists():
        return None
    runs = list(read_jsonl(path, tolerate_partial_tail=True))
    if not runs:
        return None
    return {
        "admitted": runs[-1]["after"],
        "enforced": runs[-1].get("enforced", True),
        "runs": [
            {
                "flagged_before": run["before"]["flagged"],
                "flagged_after": run["after"]["flagged"],
                "dropped": run["dropped"],
                "complements": run["complements"],
                "unresolved": run["unresolved"],
                "enforced": run.get("enforced", True),
            }
            for run in runs
        ],
    }


def manifest_entry(
    name: str, verdicts: list[QualityVerdict], solve: SolveSettings | None = None
) -> dict[str, Any]:
    """The manifest entry of one training set name (each candidate's last verdict counts).

    ``solve`` holds the judge's calibration thresholds (default: the defaults).
    """
    verdicts = last_verdicts(verdicts)
    accepted = [v for v in verdicts if v.decision is QualityDecision.ACCEPTED]
    attempted = sum(repair_attempted(v) for v in verdicts)
    repaired = sum(v.repaired for v in verdicts)
    checks = check_counts(verdicts)
    calibration = judge_calibration(verdicts, solve)
    return {
        "admitted_file": f"{name}.jsonl",
        "rejected_file": f"rejected/{name}.jsonl",
        "verdicts_file": f"verdicts/{name}.jsonl",
        "candidates": len(verdicts),
        "accepted": len(accepted),
        "rejected": len(verdicts) - len(accepted),
        "checks": {c.check: c.as_dict() for c in checks},
        "checks_not_run": {
            c.check: dict(sorted(c.skipped.items()))
            for c in checks
            if any(why in ("no_llm", "disabled") for why in c.skipped)
        },
        "reasons": reason_counts(verdicts),
        "reasons_by_check": reasons_by_check(verdicts),
        "labels": {
            row.dataset: row.as_dict() for row in label_rows(verdicts, calibration=calibration)
        },
        "judge_calibration": calibration.as_dict() if calibration is not None else None,
        "repair": {
            "attempted": attempted,
            "succeeded": repaired,
            "success_rate": round(repaired / attempted, 4) if attempted else None,
        },
        "inputs": dict(sorted(Counter(v.input_file for v in verdicts).items())),
        "config_hashes": dict(sorted(Counter(v.config_hash for v in verdicts).items())),
        "lineage": lineage_summary(verdicts),
    }


def write_manifest(train_dir: Path, solve: SolveSettings | None = None) -> Path:
    """Rebuild ``manifest.json`` and the card from every verdict log; returns the manifest.

    The card (``README.md``, :func:`write_card`) is rebuilt beside it from the same data;
    ``solve`` holds the judge's calibration thresholds of the run writing it.
    """
    train_dir = Path(train_dir)
    entries = {}
    for log in sorted((train_dir / "verdicts").glob("*.jsonl")):
        verdicts = list(read_jsonl(log, QualityVerdict, tolerate_partial_tail=True))
        entries[log.stem] = manifest_entry(log.stem, verdicts, solve)
        entries[log.stem].update(admitted_labels(train_dir, log.stem))
        audit = audit_entry(train_dir / "audit" / f"{log.stem}.jsonl")
        if audit is not None:
            entries[log.stem]["audit"] = audit
    path = train_dir / "manifest.json"
    atomic_write_json(path, {"datasets": entries})
    write_card(train_dir, {"datasets": entries})
    return path
