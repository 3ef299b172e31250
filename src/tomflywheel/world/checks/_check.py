"""Benchmark checks: re-derive every gold answer of imported ToMi, Hi-ToM or tgtom samples.

The benchmark's importer (``tomflywheel.datasets``) reads and validates its files; the check
only interprets the normalized samples, with the raw fields the importer keeps in ``meta``. A
story or question the parsers cannot read does not stop the check: it is counted as unparsed,
with its line and reason, and the rest is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Literal

from tomflywheel.schema import Sample
from tomflywheel.world.checks._hitom import hitom_cause, hitom_items
from tomflywheel.world.checks._item import CheckItem, Unparsed
from tomflywheel.world.checks._tgtom import tgtom_items
from tomflywheel.world.checks._tomi import tomi_cause, tomi_items
from tomflywheel.world.generators import TGTOM_QUESTION_TYPES
from tomflywheel.world.language import answer_text
from tomflywheel.world.model import Answer
from tomflywheel.world.physics import Profile, get_profile
from tomflywheel.world.verifiers import Answerer

Benchmark = Literal["tomi", "hitom", "tgtom"]
"""Benchmarks the engine can check."""

DEFAULT_PROFILES: dict[str, str] = {"tomi": "tomi", "hitom": "hitom", "tgtom": "tgtom"}
"""The profile each benchmark's check uses unless told otherwise."""


def _unexplained(item: CheckItem, derived: Answer, profile: Profile) -> str:
    return "unexplained"


@dataclass(frozen=True, slots=True)
class _Reading:
    """How to check one benchmark's samples."""

    items: Callable[[Iterable[Sample]], Iterator[CheckItem | Unparsed]]
    """Samples to check items (or unparsed records)."""
    cause: Callable[[CheckItem, Answer, Profile], str] = _unexplained
    """The likely cause of a mismatch, from the item, the derived answer and the profile."""
    types: tuple[str, ...] = ()
    """Question types in the benchmark's own order (others sort by name, first)."""


_READINGS: dict[str, _Reading] = {
    "tomi": _Reading(tomi_items, tomi_cause),
    "hitom": _Reading(hitom_items, hitom_cause),
    "tgtom": _Reading(tgtom_items, types=TGTOM_QUESTION_TYPES),
}


@dataclass(frozen=True, slots=True)
class CheckRow:
    """Agreement for one question type."""

    qtype: str
    total: int
    """Questions parsed and checked."""
    agree: int
    """Golds reproduced."""
    unparsed: int = 0
    """Questions of this type that could not be parsed (not in ``total``)."""

    @property
    def rate(self) -> float:
        """Share of golds reproduced."""
        return self.agree / self.total if self.total else 1.0


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A gold the engine does not reproduce, with the likely cause."""

    story_id: str
    qtype: str
    question: str
    gold: str
    derived: str
    cause: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The outcome of a benchmark check."""

    benchmark: str
    profile: str
    rows: tuple[CheckRow, ...]
    mismatches: tuple[Mismatch, ...]
    verifier_disagreements: tuple[str, ...]
    """Items where the forward tracker and the temporal belief graph disagree (should be none)."""
    unparsed: tuple[Unparsed, ...] = ()
    """Questions whose story or wording could not be parsed, each with its line and reason."""

    @property
    def total(self) -> int:
        """Questions parsed and checked."""
        return sum(row.total for row in self.rows)

    @property
    def agree(self) -> int:
        """Golds reproduced."""
        return sum(row.agree for row in self.rows)

    @property
    def questions(self) -> int:
        """Every question read: parsed (``total``) plus unparsed."""
        return self.total + len(self.unparsed)


def _same(item: CheckItem, derived: Answer) -> bool:
    if item.qtype == "Q8" and isinstance(item.gold, dict) and isinstance(derived, dict):
        return item.gold.get("line") == derived.get("line")  # graded on the line only
    return derived == item.gold


def _batch_key(item: CheckItem | Unparsed) -> tuple[str, int]:
    """Consecutive items of one parsed story share a walk; unparsed records group apart."""
    return (item.story_id, id(item.story) if isinstance(item, CheckItem) else 0)


def _type_order(types: tuple[str, ...], qtype: str) -> tuple[int, str]:
    return (types.index(qtype), qtype) if qtype in types else (0, qtype)


def check_items(
    benchmark: Benchmark,
    items: Iterable[CheckItem | Unparsed],
    *,
    profile: str | Profile | None = None,
    verify_both: bool = True,
) -> CheckReport:
    """Re-derive each item's answer and compare it with its gold.

    Args:
        benchmark: Which benchmark the items come from (decides grading and causes).
        items: The items; consecutive items about one story are answered in one walk.
            Unparsed records are counted per question type and kept in the report.
        profile: Rule profile (default: the benchmark's own).
        verify_both: Also derive with the temporal belief graph and record disagreements.
    """
    rules = get_profile(profile or DEFAULT_PROFILES[benchmark])
    reading = _READINGS[benchmark]
    counts: dict[str, list[int]] = {}  # qtype -> [checked, agreeing, unparsed]
    mismatches: list[Mismatch] = []
    disagreements: list[str] = []
    missed: list[Unparsed] = []
    for _, group in groupby(items, key=_batch_key):
        batch: list[CheckItem] = []
        for item in group:
            if isinstance(item, Unparsed):
                counts.setdefault(item.qtype, [0, 0, 0])[2] += 1
                missed.append(item)
            else:
                batch.append(item)
        if not batch:
            continue
        specs = [item.spec for item in batch]
        answerer = Answerer(batch[0].story, rules, "tracker")
        if verify_both:
            answers, graph = answerer.answer_both(specs)
        else:
            answers = graph = answerer.answer_all(specs)
        for item, derived, other in zip(batch, answers, graph, strict=True):
            tally = counts.setdefault(item.qtype, [0, 0, 0])
            tally[0] += 1
            if derived != other:
                disagreements.append(f"{item.story_id} {item.qtype}: {item.question}")
            if _same(item, derived):
                tally[1] += 1
                continue
            mismatches.append(
                Mismatch(
                    item.story_id,
                    item.qtype,
                    item.question,
                    answer_text(item.gold),
                    answer_text(derived),
                    reading.cause(item, derived, rules),
                )
            )
    rows = tuple(
        CheckRow(qtype, total, agree, unparsed)
        for qtype, (total, agree, unparsed) in sorted(
            counts.items(), key=lambda pair: _type_order(reading.types, pair[0])
        )
    )
    return CheckReport(
        benchmark, rules.name, rows, tuple(mismatches), tuple(disagreements), tuple(missed)
    )


def check_samples(
    benchmark: Benchmark,
    samples: Iterable[Sample],
    *,
    profile: str | Profile | None = None,
    verify_both: bool = True,
) -> CheckReport:
    """Re-derive the gold answer of every imported sample of a benchmark, and report agreement.

    Args:
        benchmark: ``tomi``, ``hitom`` or ``tgtom``: which importer made the samples.
        samples: The samples as ``tomflywheel.datasets.load_benchmark`` returns them (ToMi:
            any splits; Hi-ToM: one prompting style; tgtom: all files).
        profile: Rule profile (default: the benchmark's own: ``tomi``, ``hitom``, ``tgtom``).
        verify_both: Also run the temporal belief graph and record disagreements.

    Raises:
        DataError: A meta field the check reads is missing (the samples were not made by the
            benchmark's importer). A sentence or question that does not parse is not an error:
            it is in ``CheckReport.unparsed``.
        ConfigError: Unknown profile.
    """
    items = _READINGS[benchmark].items(samples)
    return check_items(benchmark, items, profile=profile, verify_both=verify_both)
