"""Shortcut heuristics: cheap rules that answer a sample without tracking anyone's mind.

Each is a small registered function ``(item, fit) -> answer | None`` (``None``: it does not
apply to this item). ``fit`` holds what a heuristic may learn from the whole set (the most
frequent gold letter, the majority answer per family): those are in-sample baselines. A
heuristic that *is* the asked skill for some questions (the real location answers a reality
question) declares those question kinds, and is not counted on them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tomflywheel._registry import Registry
from tomflywheel.asking import LETTERS, normalize
from tomflywheel.audit._items import AuditItem

YES_NO = ("yes", "no")


@dataclass(frozen=True)
class SetFit:
    """What set-level heuristics learn from the audited set."""

    gold_letter: str | None = None
    """The letter (in shown order) most often gold."""
    majority: dict[str, str] = field(default_factory=dict)
    """The most frequent gold answer (normalized) of each family."""


@dataclass(frozen=True)
class Heuristic:
    """A registered shortcut."""

    name: str
    guess: Callable[[AuditItem, SetFit], str | None]
    description: str
    skill_for: tuple[str, ...] = ()
    """Question kinds it answers by definition (the real location for ``reality``)."""

    def __call__(self, item: AuditItem, fit: SetFit) -> str | None:
        """Its answer to an item, or None when it does not apply (or is the asked skill)."""
        if item.asks in self.skill_for:
            return None
        return self.guess(item, fit)


HEURISTICS: Registry[Heuristic] = Registry("heuristic")
"""Shortcut heuristics by name."""


def heuristic(
    name: str, *, skill_for: tuple[str, ...] = ()
) -> Callable[[Callable[[AuditItem, SetFit], str | None]], Heuristic]:
    """Register a heuristic function under ``name`` (its docstring's first line describes it)."""

    def add(guess: Callable[[AuditItem, SetFit], str | None]) -> Heuristic:
        description = (guess.__doc__ or "").strip().splitlines()[0]
        entry = Heuristic(name, guess, description, skill_for)
        HEURISTICS.register(name)(entry)
        return entry

    return add


def fit_set(items: Sequence[AuditItem]) -> SetFit:
    """The set-level statistics the in-sample heuristics use."""
    letters: Counter[str] = Counter()
    answers: dict[str, Counter[str]] = {}
    for item in items:
        if item.shown:
            letters.update(
                LETTERS[i] for i, option in enumerate(item.shown) if item.is_gold(option)
            )
        first = item.sample.answer.correct_answers[0]
        answers.setdefault(item.family, Counter())[normalize(first)] += 1
    gold_letter = min(letters, key=lambda k: (-letters[k], k)) if letters else None
    majority = {
        family: min(counts, key=lambda k: (-counts[k], k)) for family, counts in answers.items()
    }
    return SetFit(gold_letter=gold_letter, majority=majority)


def _in_candidates(item: AuditItem, value: str | None) -> str | None:
    if value is None:
        return None
    for candidate in item.candidates:
        if normalize(candidate) == normalize(value):
            return candidate
    return None


@heuristic("true_location", skill_for=("reality",))
def true_location(item: AuditItem, fit: SetFit) -> str | None:
    """The object's true (final) location: what a model answers if it ignores every mind."""
    return _in_candidates(item, item.reality) or item.reality


@heuristic("first_location", skill_for=("memory",))
def first_location(item: AuditItem, fit: SetFit) -> str | None:
    """The object's first location, whoever saw what since."""
    return _in_candidates(item, item.first_value) or item.first_value


def _named(item: AuditItem, pick: Callable[[dict[str, tuple[int, ...]]], str | None]) -> str | None:
    if len(item.candidates) < 2:
        return None
    positions = {c: p for c, p in zip(item.candidates, item.mentions, strict=True) if p}
    return pick(positions) if positions else None


@heuristic("last_named")
def last_named(item: AuditItem, fit: SetFit) -> str | None:
    """The candidate the story names last."""
    return _named(item, lambda p: max(p, key=lambda c: (max(p[c]), c)))


@heuristic("first_named")
def first_named(item: AuditItem, fit: SetFit) -> str | None:
    """The candidate the story names first."""
    return _named(item, lambda p: min(p, key=lambda c: (min(p[c]), c)))


@heuristic("most_named")
def most_named(item: AuditItem, fit: SetFit) -> str | None:
    """The candidate the story names most often (ties: the one named first)."""
    return _named(item, lambda p: min(p, key=lambda c: (-len(p[c]), min(p[c]))))


@heuristic("first_option")
def first_option(item: AuditItem, fit: SetFit) -> str | None:
    """Choice questions: option A as shown."""
    return item.shown[0] if item.shown else None


@heuristic("longest_option")
def longest_option(item: AuditItem, fit: SetFit) -> str | None:
    """Choice questions: the longest option (ties: the first shown)."""
    if not item.shown:
        return None
    return max(item.shown, key=lambda option: (len(option), -item.shown.index(option)))  # type: ignore[union-attr]


@heuristic("frequent_letter")
def frequent_letter(item: AuditItem, fit: SetFit) -> str | None:
    """Choice questions: the letter most often gold in the set (an in-sample baseline)."""
    if not item.shown or fit.gold_letter is None:
        return None
    index = LETTERS.index(fit.gold_letter)
    return item.shown[index] if index < len(item.shown) else None


def _yes_no(item: AuditItem) -> bool:
    named = {normalize(c) for c in item.candidates}
    if named:
        return named == set(YES_NO)
    return bool(item.golds) and item.golds <= set(YES_NO)


@heuristic("always_yes")
def always_yes(item: AuditItem, fit: SetFit) -> str | None:
    """Yes/no questions: always yes."""
    return "yes" if _yes_no(item) else None


@heuristic("always_no")
def always_no(item: AuditItem, fit: SetFit) -> str | None:
    """Yes/no questions: always no."""
    return "no" if _yes_no(item) else None


@heuristic("majority_answer")
def majority_answer(item: AuditItem, fit: SetFit) -> str | None:
    """The family's most frequent gold answer (an in-sample baseline)."""
    answer = fit.majority.get(item.family)
    if answer is None:
        return None
    return _in_candidates(item, answer) or answer
