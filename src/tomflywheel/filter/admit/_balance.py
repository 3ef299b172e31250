"""Admission balance: no question family of the admitted set may reward a shortcut.

After the checks, the newly accepted samples and everything admitted before are audited
(:mod:`tomflywheel.audit`). While a heuristic (or the learned probe) answers a family above
chance + margin, the samples it gets right are, in a fixed order, first complemented (the
engine edits the story so the answer flips side: a true-belief item gets its false-belief
version) and then, if that is not enough, dropped. Only this run's accepted samples change;
what was admitted before stays. The same inputs give the same decisions.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tomflywheel.audit import HEURISTICS as SHORTCUTS
from tomflywheel.audit import PROBE, AuditItem, AuditRow, audit, audit_item, fit_set, run_probe
from tomflywheel.config import AuditSettings
from tomflywheel.schema import Sample

MAX_ROUNDS = 50
"""Audit-and-fix rounds spent on one flagged row (family, heuristic) before giving up on it
(what is left is reported)."""

Complement = Callable[[Sample], Sample | None]
"""A sample's complement (the answer on the other side), or None; may be refused later."""


@dataclass
class BalanceOutcome:
    """What balancing did to one run's accepted samples."""

    before: dict[str, Any]
    """The audit of prior + accepted, as decided by the checks."""
    after: dict[str, Any]
    """The audit of what is admitted in the end."""
    dropped: dict[str, str] = field(default_factory=dict)
    """Sample id -> why it was dropped (``family: heuristic``)."""
    complements: list[Sample] = field(default_factory=list)
    """Complements proposed (their admission still passes the checks)."""
    unresolved: list[str] = field(default_factory=list)
    """``family: heuristic`` still flagged when balancing gave up."""
    enforced: bool = True
    """Whether admission balanced (false: audited and reported only, ``--no-balance``)."""


class _Items:
    """Audit items by sample id, computed once (the engine reads each story once)."""

    def __init__(self) -> None:
        self._cache: dict[str, AuditItem] = {}

    def __call__(self, samples: Sequence[Sample]) -> list[AuditItem]:
        out = []
        for sample in samples:
            if sample.id not in self._cache:
                self._cache[sample.id] = audit_item(sample)
            out.append(self._cache[sample.id])
        return out


def _right_on(row: AuditRow, items: Sequence[AuditItem]) -> list[AuditItem]:
    """The family's items the flagged heuristic (or probe) answers correctly."""
    family = [item for item in items if item.family == row.family]
    if row.heuristic == PROBE:
        result = run_probe(items)
        right = {sid for sid, ok in (result.held_out if result else {}).items() if ok}
        return [item for item in family if item.sample.id in right]
    fit = fit_set(items)
    heuristic = SHORTCUTS.get(row.heuristic)
    return [item for item in family if item.is_gold(heuristic(item, fit))]


def balance(
    prior: Sequence[Sample],
    accepted: Sequence[Sample],
    settings: AuditSettings,
    complement: Complement | None,
    accept_complement: Callable[[Sample], bool] = lambda sample: True,
) -> BalanceOutcome:
    """Balance ``accepted`` against ``prior`` so that no family rewards a shortcut.

    Args:
        prior: Samples admitted before (never changed).
        accepted: This run's accepted samples, in input order.
        settings: Margin, minimum family size, probe, complements on or off.
        complement: Makes a sample's complement (None: only drop).
        accept_complement: Whether a complement passes admission (the filter's checks).
    """
    items_of = _Items()
    options = {"margin": settings.margin, "min_items": settings.min_items, "probe": settings.probe}
    kept = list(accepted)
    added: list[Sample] = []
    tried: set[str] = set()
    spent: Counter[str] = Counter()  # rounds per flagged row; MAX_ROUNDS means given up
    outcome = BalanceOutcome(before=audit(items_of([*prior, *kept]), **options).to_dict(), after={})
    while True:
        items = items_of([*prior, *kept, *added])
        ours = {s.id for s in [*kept, *added]}
        flagged = [
            r
            for r in audit(items, **options).flagged()
            if spent[_name(r)] < MAX_ROUNDS and _fixable(r, items, ours)
        ]
        if not flagged:
            break
        row = flagged[0]
        spent[_name(row)] += 1
        right = [item for item in _right_on(row, items) if item.sample.id in ours]
        progress = False
        for item in sorted(right, key=lambda i: i.sample.id):
            if complement is None or not settings.complements or item.sample.id in tried:
                continue
            tried.add(item.sample.id)
            made = complement(item.sample)
            if made is not None and made.id not in ours and accept_complement(made):
                added.append(made)
                ours.add(made.id)
                progress = True
        if progress:
            continue
        kept_ids = {s.id for s in kept}
        droppable = sorted(
            (item.sample for item in right if item.sample.id in kept_ids),
            key=lambda s: s.id,
            reverse=True,
        )
        if not droppable:
            # give this row up, not the others: a later family may still be fixable
            outcome.unresolved.append(_name(row))
            spent[_name(row)] = MAX_ROUNDS
            continue
        for victim in droppable[: _excess(row, settings.margin)]:
            outcome.dropped[victim.id] = _name(row)
        kept = [s for s in kept if s.id not in outcome.dropped]
    final = items_of([*prior, *kept, *added])
    report = audit(final, **options)
    outcome.unresolved = sorted({*outcome.unresolved, *report.to_dict()["flagged"]})
    outcome.after = report.to_dict()
    kept_ids = {s.id for s in kept}
    outcome.complements = [s for s in added if s.id not in kept_ids]
    return outcome


def audit_only(
    prior: Sequence[Sample], accepted: Sequence[Sample], settings: AuditSettings
) -> BalanceOutcome:
    """The audit of prior + accepted, reported and not enforced (nothing added or dropped).

    For a curated external set admitted as it is: the curator still sees which question
    families reward a shortcut.
    """
    options = {"margin": settings.margin, "min_items": settings.min_items, "probe": settings.probe}
    report = audit(_Items()([*prior, *accepted]), **options).to_dict()
    return BalanceOutcome(
        before=report, after=report, unresolved=sorted(report["flagged"]), enforced=False
    )


def _name(row: AuditRow) -> str:
    """``family: heuristic``, how a flagged row is named in reports."""
    return f"{row.family}: {row.heuristic}"


def _excess(row: AuditRow, margin: float) -> int:
    """How many right answers to remove for the row to reach chance + margin (at least one)."""
    ceiling = (row.chance or 0.0) + margin
    if ceiling >= 1.0:
        return 1
    excess = (row.correct - ceiling * row.n) / (1.0 - ceiling)
    return max(1, math.ceil(excess - 1e-9))


def _fixable(row: AuditRow, items: Sequence[AuditItem], ours: set[str]) -> bool:
    """Whether the flagged family holds samples of this run (only those can change)."""
    return any(item.family == row.family and item.sample.id in ours for item in items)
