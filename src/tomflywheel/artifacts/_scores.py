"""The scores a dataset's ``metrics.json`` holds, as records.

Rates, the shortcut audit of the answers (``shortcuts``) and the scores no shortcut passes
(``shortcut``, written by :func:`tomflywheel.audit.shortcut_scores`). The metric stage
writes plain JSON; a round summary, the reports and the CLI read these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from tomflywheel.artifacts._record import Record

Interval = tuple[float, float]
"""A 95% interval, low and high."""

Metric = Literal["accuracy", "belief_balanced", "story_level", "paired"]
"""The four figures scored for the model and for every heuristic."""


class Rate(Record):
    """A share of items right: ``stats.accuracy`` (and a metric group's ``chance``)."""

    n: int
    correct: int | None = None
    accuracy: float | None = None
    """``None`` when nothing was judged."""
    ci95: Interval | None = None
    chance: float | None = None
    """What guessing scores, where the options say (a metric group of ``metrics.json``)."""


class PairedLiftRecord(Record):
    """:class:`tomflywheel.stats.PairedLift` as written: a change on the same items."""

    n: int
    clusters: int
    gained: int
    lost: int
    lift: float
    low: float
    high: float
    design_effect: float


class AnswerAudit(Record):
    """``metrics.json`` ``shortcuts``: which heuristic agrees most with the model's answers."""

    agreement: dict[str, Rate] = Field(default_factory=dict)
    best_explained_by: str | None = None
    reality_bias: Rate | None = None
    """The real location named on false-belief targets."""


class ConventionFree(Record):
    """Belief-balanced accuracy without the items the benchmark's convention decides."""

    value: float
    ci95: Interval | None = None
    left_out: int = 0


class BeliefBalanced(Record):
    """The mean of false- and true-belief accuracy (a rule tracking no mind holds 50%)."""

    value: float
    ci95: Interval | None = None
    false_belief: Rate
    true_belief: Rate
    unknown_side: int = 0
    convention_free: ConventionFree | None = None


class StoryLevel(Record):
    """Stories counted right only when every question of them is."""

    stories: int
    correct: int
    accuracy: float | None = None
    ci95: Interval | None = None
    questions_per_story: float | None = None


class PairedScore(Record):
    """False-belief items counted right only when their true-belief twin is too."""

    pairs: int
    correct: int
    accuracy: float | None = None
    ci95: Interval | None = None


class HeuristicScores(Record):
    """One heuristic's four headline numbers (``by_question_type`` adds its ``picks``)."""

    accuracy: float | None = None
    belief_balanced: float | None = None
    story_level: float | None = None
    paired: float | None = None
    picks: dict[str, str] | None = None
    """``by_question_type``: the heuristic answering each question family."""

    def figure(self, metric: Metric) -> float | None:
        """The heuristic's number on ``metric``."""
        return {
            "accuracy": self.accuracy,
            "belief_balanced": self.belief_balanced,
            "story_level": self.story_level,
            "paired": self.paired,
        }[metric]


class Margin(Record):
    """The model minus the best heuristic on one figure."""

    heuristic: str
    value: float
    ci95: Interval | None = None


class ShortcutScores(Record):
    """``metrics.json`` ``shortcut``: the scores no shortcut passes, beside the heuristics'."""

    n: int = 0
    accuracy: Rate | None = None
    belief_balanced: BeliefBalanced | None = None
    story_level: StoryLevel | None = None
    paired: PairedScore | None = None
    heuristics: dict[str, HeuristicScores] = Field(default_factory=dict)
    best_heuristic: str | None = None
    """The heuristic most accurate on all items."""
    margin: PairedLiftRecord | None = None
    """The model minus the best heuristic on accuracy, paired and clustered by story."""
    belief_balanced_margin: Margin | None = None
    story_level_margin: Margin | None = None
    paired_margin: Margin | None = None

    def headline(self, metric: Metric) -> float | None:
        """The model's number on ``metric`` (``None`` where undefined)."""
        if metric == "accuracy":
            return self.accuracy.accuracy if self.accuracy else None
        if metric == "belief_balanced":
            return self.belief_balanced.value if self.belief_balanced else None
        figure = self.story_level if metric == "story_level" else self.paired
        return figure.accuracy if figure else None

    def margin_on(self, metric: Metric) -> Margin | None:
        """The model minus the best heuristic on ``metric``.

        On ``accuracy`` it is the paired clustered :attr:`margin` over :attr:`best_heuristic`.
        """
        if metric == "belief_balanced":
            return self.belief_balanced_margin
        if metric == "story_level":
            return self.story_level_margin
        if metric == "paired":
            return self.paired_margin
        if self.margin is None or self.best_heuristic is None:
            return None
        return Margin(
            heuristic=self.best_heuristic,
            value=self.margin.lift,
            ci95=(self.margin.low, self.margin.high),
        )

    def kept(self) -> ShortcutScores:
        """As a round summary keeps it: every figure and margin, and the heuristics a margin names.

        Only the best heuristic on each figure is kept; ``metrics.json`` has the whole table.
        """
        named = {self.best_heuristic}
        named.update(m.heuristic for m in (self.margin_on(k) for k in _MARGINS) if m)
        table = self.heuristics
        kept = {name: table[name] for name in sorted(n for n in named if n) if name in table}
        return self.model_copy(update={"heuristics": kept})


_MARGINS: tuple[Metric, ...] = ("belief_balanced", "story_level", "paired")


def shortcut_scores_of(metrics: Mapping[str, Any]) -> ShortcutScores | None:
    """The ``shortcut`` entry of a ``metrics.json`` as read.

    ``None``: a set asking no minds, or one scored before the entry existed.
    """
    entry = metrics.get("shortcut")
    return ShortcutScores.model_validate(entry) if entry else None


def answer_audit_of(metrics: Mapping[str, Any]) -> AnswerAudit | None:
    """The ``shortcuts`` entry of a ``metrics.json`` (``None`` where it has none)."""
    entry = metrics.get("shortcuts")
    return AnswerAudit.model_validate(entry) if entry else None
