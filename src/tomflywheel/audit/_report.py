"""The shortcut audit of a set: each heuristic's accuracy per question family, against chance.

A heuristic (or the learned probe) is *flagged* in a family when its accuracy there exceeds
the family's chance level by more than the margin, over at least ``min_items`` items: the set
then teaches, or rewards, that shortcut. Families whose questions ask about the world only
(where was the object at first, where is it now) have no mind to track: their rows are shown,
never flagged (naming the first location *is* the memory answer).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tomflywheel.audit._heuristics import HEURISTICS, YES_NO, SetFit, fit_set
from tomflywheel.audit._items import AuditItem, audit_items
from tomflywheel.audit._probe import run_probe
from tomflywheel.schema import Sample
from tomflywheel.stats import wilson_interval

PROBE = "probe"
"""The row name of the learned probe."""


def item_chance(item: AuditItem) -> float | None:
    """Chance of guessing right: gold candidates over candidates (yes/no: one half).

    The candidates are those the story names when two or more are named and a gold is among
    them: a reader who tracks no mind still knows the answer is a place the story mentions
    (Hi-ToM lists 15 options, its stories name three to five).
    """
    if item.candidates:
        named = [c for c, at in zip(item.candidates, item.mentions, strict=True) if at]
        pool = named if len(named) >= 2 and any(map(item.is_gold, named)) else item.candidates
        return sum(map(item.is_gold, pool)) / len(pool)
    if item.golds and item.golds <= set(YES_NO):
        return 0.5
    return None


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One heuristic in one family."""

    family: str
    heuristic: str
    n: int
    """Items it applies to."""
    correct: int
    accuracy: float | None
    ci95: tuple[float, float] | None
    chance: float | None
    """Mean chance level over the same items."""
    flagged: bool
    asks_mind: bool = True
    """The family's questions ask about someone's mind (only those rows can be flagged)."""


@dataclass
class AuditReport:
    """Every heuristic's accuracy per family, and which ones the set rewards."""

    margin: float
    min_items: int
    families: dict[str, int] = field(default_factory=dict)
    """Items per family."""
    rows: list[AuditRow] = field(default_factory=list)

    def flagged(self) -> list[AuditRow]:
        """The rows above chance + margin."""
        return [row for row in self.rows if row.flagged]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (for manifests, metrics and reports)."""
        return {
            "margin": self.margin,
            "min_items": self.min_items,
            "families": self.families,
            "rows": [asdict(row) for row in self.rows],
            "flagged": [f"{row.family}: {row.heuristic}" for row in self.flagged()],
        }


def _row(
    family: str,
    name: str,
    outcomes: list[tuple[bool, float | None]],
    *,
    margin: float,
    minimum: int,
    asks_mind: bool,
) -> AuditRow:
    n = len(outcomes)
    correct = sum(ok for ok, _ in outcomes)
    chances = [chance for _, chance in outcomes if chance is not None]
    chance = round(sum(chances) / len(chances), 4) if chances else None
    accuracy = round(correct / n, 4) if n else None
    flagged = (
        asks_mind
        and n >= minimum
        and chance is not None
        and accuracy is not None
        and accuracy > chance + margin + 1e-9
    )
    interval = wilson_interval(correct, n)
    return AuditRow(family, name, n, correct, accuracy, interval, chance, flagged, asks_mind)


def score_heuristics(
    items: Sequence[AuditItem], fit: SetFit
) -> dict[tuple[str, str], list[tuple[bool, float | None]]]:
    """For each (family, heuristic): whether it was right on each item it applies to."""
    outcomes: dict[tuple[str, str], list[tuple[bool, float | None]]] = defaultdict(list)
    for item in items:
        chance = item_chance(item)
        for name in HEURISTICS.names():
            guess = HEURISTICS.get(name)(item, fit)
            if guess is not None:
                outcomes[(item.family, name)].append((item.is_gold(guess), chance))
    return outcomes


def audit(
    items: Sequence[AuditItem], *, margin: float = 0.10, min_items: int = 20, probe: bool = True
) -> AuditReport:
    """Audit a set already turned into items (see :func:`audit_samples`)."""
    report = AuditReport(margin=margin, min_items=min_items)
    minds: set[str] = set()
    for item in items:
        report.families[item.family] = report.families.get(item.family, 0) + 1
        if item.asks_mind:
            minds.add(item.family)
    report.families = dict(sorted(report.families.items()))
    outcomes = score_heuristics(items, fit_set(items))
    if probe:
        result = run_probe(items)
        by_id = {item.sample.id: item for item in items}
        for sample_id, right in (result.held_out if result else {}).items():
            item = by_id[sample_id]
            outcomes[(item.family, PROBE)].append((right, item_chance(item)))
    order = {name: i for i, name in enumerate([*HEURISTICS.names(), PROBE])}
    for family, name in sorted(outcomes, key=lambda key: (key[0], order[key[1]])):
        report.rows.append(
            _row(
                family,
                name,
                outcomes[(family, name)],
                margin=margin,
                minimum=min_items,
                asks_mind=family in minds,
            )
        )
    return report


def audit_samples(
    samples: Iterable[Sample], *, margin: float = 0.10, min_items: int = 20, probe: bool = True
) -> AuditReport:
    """Audit normalized samples: every heuristic (and the probe) per question family.

    Args:
        samples: Any normalized set: an evaluation set, candidates, admitted data.
        margin: How far above chance a heuristic may be before it is flagged.
        min_items: Families (per heuristic) with fewer items are shown but never flagged.
        probe: Also fit and score the learned surface probe.
    """
    return audit(audit_items(samples), margin=margin, min_items=min_items, probe=probe)
