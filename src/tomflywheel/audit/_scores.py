"""Metrics no shortcut can pass, scored for a model's answers and for every heuristic beside it.

A model's plain accuracy means little next to what a rule that tracks no mind scores on the
same items. Three figures are harder to pass that way:

- **belief-balanced accuracy**: the mean of the accuracy on false-belief items (targets) and on
  true-belief items (belief controls), world questions apart. The real state of the world
  answers every control and no target, so "always the true state" scores exactly 50; on a set
  of twins so does any rule that gives a false-belief item and its true-belief twin the same
  answer (one that reads only the world, whose state the twins share);
- **story-level accuracy**: a story counts only when every scored question of it is right;
- **paired accuracy**: a false-belief item and its true-belief twin (:func:`twin_key`) count
  only when both are right; a rule reading only the world gets at most one of them.

:func:`shortcut_scores` gives each figure for the model and for every registered heuristic
(plus ``by_question_type``, the best heuristic of each question family), and the model's
margin over the best heuristic on each.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from tomflywheel.audit._heuristics import HEURISTICS, fit_set
from tomflywheel.audit._items import AuditItem, audit_item, question_family
from tomflywheel.audit._roles import CONTROL_QUESTION_TYPES
from tomflywheel.audit._stories import story_key, twin_key
from tomflywheel.schema import Sample
from tomflywheel.stats import (
    Z95,
    PairedLift,
    accuracy,
    balanced_accuracy_interval,
    paired_lift,
)

Side = Literal["false", "true"]

BY_QUESTION_TYPE = "by_question_type"
"""The question-type-aware rule: per question family, the single heuristic right most often."""

METRICS = ("accuracy", "belief_balanced", "story_level", "paired")
"""The four figures scored for the model and for every heuristic."""

_SIDES: tuple[Side, Side] = ("false", "true")


def _asks_world(item: AuditItem) -> bool:
    question_type = str(item.sample.meta.get("question_type") or "")
    return item.asks in ("reality", "memory") or question_type in CONTROL_QUESTION_TYPES


def _marked_side(meta: Mapping[str, Any]) -> Side | None:
    question_type = str(meta.get("question_type") or "")
    if question_type.endswith("_no_tom"):
        return "true"
    if question_type.endswith("_tom"):
        return "false"
    if meta.get("belief") in _SIDES:
        return "false" if meta["belief"] == "false" and not meta.get("control") else "true"
    if isinstance(meta.get("tom"), bool):
        return "false" if meta["tom"] else "true"
    return None


def belief_side(item: AuditItem) -> Side | None:
    """Whether a mind question's answer is a false belief (``"false"``) or a true one.

    ``None`` for world questions (the engine reads a reality or memory question, or the
    question type is one of :data:`CONTROL_QUESTION_TYPES`) and where the side cannot be told.
    When the engine reads the story: ``"false"`` if the gold is not the real value. Otherwise
    the sample's markers: a ToMi-style ``question_type`` ending ``_no_tom`` (true) or ``_tom``
    (false); BigToM's ``belief`` (false only for a false-belief story that is not a control);
    ``tom`` (true: false belief).
    """
    if _asks_world(item):
        return None
    if item.asks is not None and item.reality is not None:
        return "false" if item.false_belief else "true"
    return _marked_side(item.sample.meta)


def _with_reality(item: AuditItem, side: Side | None) -> AuditItem:
    """A 2-way item the engine cannot read, given the real and first values its side implies.

    With one correct and one wrong answer (BigToM), the real state is the gold of a
    true-belief item and the wrong answer of a false-belief one; the first value is the other.
    So "always the true state" and "always the initial state" are scored there too.
    """
    answer = item.sample.answer
    if item.asks is not None or side is None:
        return item
    if len(answer.correct_answers) != 1 or len(answer.wrong_answers) != 1:
        return item
    gold, wrong = answer.correct_answers[0], answer.wrong_answers[0]
    real, first = (gold, wrong) if side == "true" else (wrong, gold)
    return replace(item, reality=real, first_value=first)


@dataclass(frozen=True)
class _ScoredSet:
    """The scored items and their groupings, computed once for the model and every rule."""

    ids: list[str]
    side_of: dict[str, Side | None]
    """Item id -> :func:`belief_side`."""
    stories: dict[str, str]
    """Item id -> story key (the cluster of every interval)."""
    sides: dict[Side, list[str]]
    unknown_side: int
    """Mind questions whose side cannot be told."""
    story_groups: list[list[str]]
    twin_groups: list[list[str]]
    """Twins with at least two members scored."""
    dependent: frozenset[str]
    """Items whose gold the engine's principled rules do not give: the benchmark's labelling
    convention decides them (``AuditItem.convention_free`` is False)."""

    @classmethod
    def build(cls, items: Mapping[str, AuditItem]) -> _ScoredSet:
        ids = sorted(items)
        sides: dict[Side, list[str]] = {"false": [], "true": []}
        unknown = 0
        stories: dict[str, str] = {}
        by_story: dict[str, list[str]] = {}
        by_twin: dict[str, list[str]] = {}
        side_of = {i: belief_side(items[i]) for i in ids}
        for i in ids:
            item, side = items[i], side_of[i]
            if side is not None:
                sides[side].append(i)
            unknown += side is None and not _asks_world(item)
            stories[i] = story_key(item.sample)
            by_story.setdefault(stories[i], []).append(i)
            if (twin := twin_key(item.sample)) is not None:
                by_twin.setdefault(twin, []).append(i)
        twins = [members for members in by_twin.values() if len(members) >= 2]
        dependent = frozenset(i for i in ids if items[i].convention_free is False)
        groups = list(by_story.values())
        return cls(ids, side_of, stories, sides, unknown, groups, twins, dependent)


def _belief_balanced(right: Mapping[str, bool], scored: _ScoredSet) -> dict[str, Any] | None:
    (cf, nf), (ct, nt) = (
        (sum(right[i] for i in scored.sides[side]), len(scored.sides[side])) for side in _SIDES
    )
    if not nf or not nt:
        return None
    return {
        "value": round((cf / nf + ct / nt) / 2, 4),
        "ci95": balanced_accuracy_interval(cf, nf, ct, nt),
        "false_belief": accuracy(cf, nf),
        "true_belief": accuracy(ct, nt),
        "unknown_side": scored.unknown_side,
        "convention_free": _convention_free(right, scored),
    }


def _convention_free(right: Mapping[str, bool], scored: _ScoredSet) -> dict[str, Any] | None:
    """Belief-balanced accuracy without the items the benchmark's convention decides.

    ``None`` when no item is convention-dependent. ToMi's golds follow its generator's
    convention on some second-order true-belief items, which the engine's principled rules
    answer otherwise: a model taught the principled rules is measured without them here.
    """
    if not scored.dependent:
        return None
    kept = [[i for i in scored.sides[side] if i not in scored.dependent] for side in _SIDES]
    if not all(kept):
        return None
    (cf, nf), (ct, nt) = ((sum(right[i] for i in ids), len(ids)) for ids in kept)
    return {
        "value": round((cf / nf + ct / nt) / 2, 4),
        "ci95": balanced_accuracy_interval(cf, nf, ct, nt),
        "left_out": len(scored.dependent),
    }


def _all_right(right: Mapping[str, bool], groups: list[list[str]]) -> dict[str, Any]:
    figure = accuracy(sum(all(right[i] for i in ids) for ids in groups), len(groups))
    return {"correct": figure["correct"], "accuracy": figure["accuracy"], "ci95": figure["ci95"]}


def _story_level(right: Mapping[str, bool], scored: _ScoredSet) -> dict[str, Any] | None:
    if not any(len(ids) >= 2 for ids in scored.story_groups):
        return None
    return {
        "stories": len(scored.story_groups),
        **_all_right(right, scored.story_groups),
        "questions_per_story": round(len(scored.ids) / len(scored.story_groups), 2),
    }


def _paired(right: Mapping[str, bool], scored: _ScoredSet) -> dict[str, Any] | None:
    if not scored.twin_groups:
        return None
    return {"pairs": len(scored.twin_groups), **_all_right(right, scored.twin_groups)}


def _figures(right: Mapping[str, bool], scored: _ScoredSet) -> dict[str, Any]:
    return {
        "n": len(scored.ids),
        "accuracy": accuracy(sum(right[i] for i in scored.ids), len(scored.ids)),
        "belief_balanced": _belief_balanced(right, scored),
        "story_level": _story_level(right, scored),
        "paired": _paired(right, scored),
    }


def _values(figures: Mapping[str, Any]) -> dict[str, float | None]:
    """The headline number of each figure (a heuristic's row)."""
    headline = {"belief_balanced": "value", "story_level": "accuracy", "paired": "accuracy"}
    values = {key: None if figures[key] is None else figures[key][h] for key, h in headline.items()}
    return {"accuracy": figures["accuracy"]["accuracy"], **values}


def _heuristic_rights(items: Mapping[str, AuditItem]) -> dict[str, dict[str, bool]]:
    """Item id -> right, per registered heuristic (``guess`` directly: also on its own skill)."""
    fit = fit_set([items[i] for i in sorted(items)])
    rights = {}
    for name in HEURISTICS.names():
        guess = HEURISTICS.get(name).guess
        rights[name] = {i: item.is_gold(guess(item, fit)) for i, item in items.items()}
    return rights


def _by_question_type(
    rights: Mapping[str, Mapping[str, bool]], items: Mapping[str, AuditItem]
) -> tuple[dict[str, bool], dict[str, str]]:
    """Per question family, the answers of the heuristic right most often (ties: by name).

    The family (:func:`question_family`) is the question as a model sees it: ToMi's
    ``first_order``, BigToM's ``forward_belief``, Hi-ToM's ``order_2``. Not the question
    *part* of the reports, whose ``_tom`` / ``false belief`` names the answer's side: picking
    "first location" on ``_tom`` items would read the label, not the story.
    """
    parts: dict[str, list[str]] = {}
    for i in sorted(items):
        parts.setdefault(question_family(items[i].sample), []).append(i)
    right: dict[str, bool] = {}
    picks: dict[str, str] = {}
    for part, ids in parts.items():
        best = min(rights, key=lambda name: (-sum(rights[name][i] for i in ids), name))
        picks[part] = best
        right.update((i, rights[best][i]) for i in ids)
    return right, picks


def _best(heuristics: Mapping[str, Mapping[str, Any]], metric: str) -> str | None:
    """The heuristic scoring highest on ``metric``.

    Ties go to a single heuristic over ``by_question_type`` (the simpler explanation), then to
    the more accurate one on all items (several score 0 paired), then by name.
    """
    ranked = [name for name, row in heuristics.items() if row[metric] is not None]
    if not ranked:
        return None
    return min(
        ranked,
        key=lambda n: (
            -heuristics[n][metric],
            n == BY_QUESTION_TYPE,
            -(heuristics[n]["accuracy"] or 0.0),
            n,
        ),
    )


def _lift(
    scored: _ScoredSet, ids: list[str], before: Mapping[str, bool], after: Mapping[str, bool]
) -> PairedLift | None:
    return paired_lift([(scored.stories[i], before[i], after[i]) for i in ids])


def _balanced_margin(
    model: Mapping[str, bool], rule: Mapping[str, bool], name: str, scored: _ScoredSet
) -> dict[str, Any] | None:
    """Model minus heuristic on belief-balanced accuracy, with a rough 95% interval.

    The difference is the mean of the two sides' paired lifts; its variance is taken as
    ``(se_false**2 + se_true**2) / 4``, each ``se`` read back from that side's clustered
    interval (half-width / 1.96): rough, since the sides share stories and those intervals
    are not symmetric about the lift.
    """
    found = [_lift(scored, scored.sides[side], rule, model) for side in _SIDES]
    lifts = [lift for lift in found if lift is not None]
    if len(lifts) < len(_SIDES):
        return None
    value = sum(lift.lift for lift in lifts) / 2
    half = Z95 * math.sqrt(sum(((lift.high - lift.low) / 2 / Z95) ** 2 for lift in lifts) / 4)
    ci95 = (round(max(-1.0, value - half), 4), round(min(1.0, value + half), 4))
    return {"heuristic": name, "value": round(value, 4), "ci95": ci95}


def _difference(
    model: Mapping[str, Any], heuristics: Mapping[str, Mapping[str, Any]], metric: str
) -> dict[str, Any] | None:
    """Model minus the best heuristic on a metric without an interval."""
    name = _best(heuristics, metric)
    if model[metric] is None or name is None:
        return None
    return {"heuristic": name, "value": round(model[metric] - heuristics[name][metric], 4)}


def _scored_items(
    samples: Iterable[Sample], right: Mapping[str, bool], items: Mapping[str, AuditItem] | None
) -> dict[str, AuditItem]:
    """The audit view of every sample in ``right`` (the first sample of an id)."""
    found: dict[str, AuditItem] = {}
    for sample in samples:
        if sample.id in right and sample.id not in found:
            known = items.get(sample.id) if items is not None else None
            found[sample.id] = known if known is not None else audit_item(sample)
    return found


def shortcut_scores(
    samples: Iterable[Sample],
    right: Mapping[str, bool],
    *,
    items: Mapping[str, AuditItem] | None = None,
) -> dict[str, Any]:
    """A model's scores that no shortcut can pass, beside every heuristic's (JSON-able).

    Args:
        samples: The evaluated samples.
        right: Sample id -> whether the model answered it right. Samples absent from it are
            left out of every figure, the heuristics' included, so both are scored on the same
            items.
        items: Audit items by sample id, when already computed (building one reads its story
            with the engine).

    Returns:
        ``n``, ``accuracy`` (:func:`tomflywheel.stats.accuracy`), ``belief_balanced``
        (``value``, ``ci95``, ``false_belief``, ``true_belief``, ``unknown_side``),
        ``story_level`` (``stories``, ``correct``, ``accuracy``, ``ci95``,
        ``questions_per_story``) and ``paired`` (``pairs``, ``correct``, ``accuracy``,
        ``ci95``), each ``None`` where undefined; ``heuristics``: name -> those four headline
        numbers (``by_question_type`` also lists its ``picks`` per question family);
        ``best_heuristic`` (highest accuracy) and ``margin`` (model minus it, a
        :class:`~tomflywheel.stats.PairedLift` as a dict); ``belief_balanced_margin``,
        ``story_level_margin``, ``paired_margin``: model minus the best heuristic on that
        figure (``heuristic``, ``value``; the first with a rough ``ci95``).
    """
    found = _scored_items(samples, right, items)
    scored = _ScoredSet.build(found)
    model = {i: bool(right[i]) for i in scored.ids}
    # world facts read off 2-way items from their side, for the heuristics only
    guessed = {i: _with_reality(item, scored.side_of[i]) for i, item in found.items()}
    rights = _heuristic_rights(guessed)
    rights[BY_QUESTION_TYPE], picks = _by_question_type(rights, guessed)
    heuristics: dict[str, dict[str, Any]] = {
        name: _values(_figures(rule, scored)) for name, rule in rights.items()
    }
    heuristics[BY_QUESTION_TYPE]["picks"] = picks
    figures = _figures(model, scored)
    best = _best(heuristics, "accuracy")
    margin = _lift(scored, scored.ids, rights[best], model) if best is not None else None
    balanced = _best(heuristics, "belief_balanced")
    values = _values(figures)
    return {
        **figures,
        "heuristics": heuristics,
        "best_heuristic": best,
        "margin": asdict(margin) if margin is not None else None,
        "belief_balanced_margin": (
            _balanced_margin(model, rights[balanced], balanced, scored)
            if balanced is not None and figures["belief_balanced"] is not None
            else None
        ),
        "story_level_margin": _difference(values, heuristics, "story_level"),
        "paired_margin": _difference(values, heuristics, "paired"),
    }
