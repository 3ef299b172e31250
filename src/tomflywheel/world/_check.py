"""Benchmark checks: re-derive every gold answer of ToMi, Hi-ToM or tgtom with the engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Literal

from tomflywheel.world._answer import Answerer
from tomflywheel.world._bench_hitom import hitom_cause, load_hitom
from tomflywheel.world._bench_tgtom import TGTOM_TYPES, load_tgtom
from tomflywheel.world._bench_tomi import load_tomi, tomi_cause
from tomflywheel.world._checkitem import CheckItem
from tomflywheel.world._profiles import Profile, get_profile
from tomflywheel.world._qtext import answer_text
from tomflywheel.world._spec import Answer

Benchmark = Literal["tomi", "hitom", "tgtom"]
"""Benchmarks the engine can check."""

DEFAULT_PROFILES: dict[str, str] = {"tomi": "tomi", "hitom": "hitom", "tgtom": "tgtom"}
"""The profile each benchmark's check uses unless told otherwise."""

_LOADERS: dict[str, Callable[[Path], Iterator[CheckItem]]] = {
    "tomi": load_tomi,
    "hitom": load_hitom,
    "tgtom": load_tgtom,
}


@dataclass(frozen=True, slots=True)
class CheckRow:
    """Agreement for one question type."""

    qtype: str
    total: int
    agree: int

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

    @property
    def total(self) -> int:
        """Questions checked."""
        return sum(row.total for row in self.rows)

    @property
    def agree(self) -> int:
        """Golds reproduced."""
        return sum(row.agree for row in self.rows)


def _same(item: CheckItem, derived: Answer) -> bool:
    if item.qtype == "Q8" and isinstance(item.gold, dict) and isinstance(derived, dict):
        return item.gold.get("line") == derived.get("line")  # graded on the line only
    return derived == item.gold


def _cause(benchmark: str, item: CheckItem, derived: Answer, rules: Profile) -> str:
    if benchmark == "tomi":
        return tomi_cause(item)
    if benchmark == "hitom":
        return hitom_cause(item, derived, rules)
    return "unexplained"


def _type_order(benchmark: str, qtype: str) -> tuple[int, str]:
    if benchmark == "tgtom" and qtype in TGTOM_TYPES:
        return (TGTOM_TYPES.index(qtype), qtype)
    return (0, qtype)


def check_items(
    benchmark: Benchmark,
    items: Iterable[CheckItem],
    *,
    profile: str | Profile | None = None,
    verify_both: bool = True,
) -> CheckReport:
    """Re-derive each item's answer and compare it with its gold.

    Args:
        benchmark: Which benchmark the items come from (decides grading and causes).
        items: The items; consecutive items about one story are answered in one walk.
        profile: Rule profile (default: the benchmark's own).
        verify_both: Also derive with the temporal belief graph and record disagreements.
    """
    rules = get_profile(profile or DEFAULT_PROFILES[benchmark])
    counts: dict[str, list[int]] = {}
    mismatches: list[Mismatch] = []
    disagreements: list[str] = []
    for _, group in groupby(items, key=lambda item: (item.story_id, id(item.story))):
        batch = list(group)
        specs = [item.spec for item in batch]
        answerer = Answerer(batch[0].story, rules, "tracker")
        if verify_both:
            answers, graph = answerer.answer_both(specs)
        else:
            answers = graph = answerer.answer_all(specs)
        for item, derived, other in zip(batch, answers, graph, strict=True):
            tally = counts.setdefault(item.qtype, [0, 0])
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
                    _cause(benchmark, item, derived, rules),
                )
            )
    rows = tuple(
        CheckRow(qtype, total, agree)
        for qtype, (total, agree) in sorted(
            counts.items(), key=lambda pair: _type_order(benchmark, pair[0])
        )
    )
    return CheckReport(benchmark, rules.name, rows, tuple(mismatches), tuple(disagreements))


def check_benchmark(
    benchmark: Benchmark,
    path: Path,
    *,
    profile: str | Profile | None = None,
    verify_both: bool = True,
) -> CheckReport:
    """Parse a benchmark's files, re-derive every gold answer, and report agreement.

    Args:
        benchmark: ``tomi`` (a ``.txt`` file or a folder of splits, ``.trace`` beside),
            ``hitom`` (``Hi-ToM_data.json`` or its folder; CoTP records), ``tgtom`` (the folder
            of the five ``*_v10.jsonl`` files).
        path: Where the files are.
        profile: Rule profile (default: the benchmark's own: ``tomi``, ``hitom``, ``tgtom``).
        verify_both: Also run the temporal belief graph and record disagreements.

    Raises:
        DataError: A file is missing or malformed, or a sentence does not parse.
        ConfigError: Unknown profile.
    """
    items = _LOADERS[benchmark](Path(path))
    return check_items(benchmark, items, profile=profile, verify_both=verify_both)
