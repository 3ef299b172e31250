"""Rows and tables of the lift experiment (``bench/lift_experiment.py``).

One row per held-out set, scoring and part: first the three figures no shortcut passes
(``belief-balanced``: the mean of the false- and true-belief parts, world questions apart;
``story level``: a story counts when all its questions are right; ``paired``: a false-belief
item and its true-belief twin both right), then all items, targets, controls, the false- and
true-belief parts, each question type, convention-free and -dependent targets. Each row gives
the base model's figure and the round's, the paired lift against the base and against the
previous round (95% intervals clustered by story; the belief-balanced row's combines its two
parts' intervals as independent), the reality-bias rate before and after, three heuristic
baselines (true location, first location, last named) and the best heuristic on the row's
figure (the question-type-aware rule included: ``tomflywheel.audit.shortcut_scores``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tomflywheel.artifacts import Experiment, read_judgments, read_predictions
from tomflywheel.audit import (
    HEURISTICS,
    AuditItem,
    audit_item,
    audit_predictions,
    belief_side,
    fit_set,
    is_control,
    question_part,
    shortcut_scores,
    twin_key,
)
from tomflywheel.flywheel import first_verdicts, paired_part, story_key
from tomflywheel.schema import Sample, read_samples
from tomflywheel.stats import mean_interval, paired_lift, wilson_interval

BASELINES = ("true_location", "first_location", "last_named")
"""The heuristics shown beside every row."""
HEADLINE = ("belief-balanced", "story level", "paired")
"""The rows no shortcut passes, first in every table."""
_FIGURE = {"belief-balanced": "belief_balanced", "story level": "story_level", "paired": "paired"}


@dataclass
class HeldoutSet:
    """One held-out set's samples as the rows need them (computed once per set)."""

    samples: dict[str, Sample]
    items: dict[str, AuditItem]
    clusters: dict[str, str]
    parts: dict[str, list[str]]
    baselines: dict[str, dict[str, float | None]]
    heuristics: dict[str, dict[str, object]]
    """Each heuristic's figures on the whole set (``shortcut_scores``)."""

    @classmethod
    def read(cls, samples_path: Path) -> HeldoutSet:
        """Parts, clusters and heuristic baselines of the samples in ``samples_path``."""
        samples = {s.id: s for s in read_samples(samples_path)}
        items = {sid: audit_item(s) for sid, s in samples.items()}
        parts: dict[str, list[str]] = defaultdict(list)
        for sid, sample in samples.items():
            role = "controls" if is_control(sample) else "targets"
            parts["all"].append(sid)
            parts[role].append(sid)
            if (side := belief_side(items[sid])) is not None:
                parts[f"belief, {side}"].append(sid)
            free = items[sid].convention_free
            if role == "targets" and free is not None:
                parts[f"targets, convention-{'free' if free else 'dep.'}"].append(sid)
            if (question := question_part(sample)) is not None:
                parts[f"type {question}"].append(sid)
        baselines = {part: _baselines([items[i] for i in ids]) for part, ids in parts.items()}
        clusters = {sid: story_key(s) for sid, s in samples.items()}
        every = shortcut_scores(samples.values(), dict.fromkeys(samples, True), items=items)
        return cls(samples, items, clusters, dict(parts), baselines, every["heuristics"])

    def best(self, figure: str) -> dict[str, object] | None:
        """The heuristic scoring highest on ``figure`` over the whole set, and its value."""
        found = [
            (v[figure], name) for name, v in self.heuristics.items() if v.get(figure) is not None
        ]
        if not found:
            return None
        top, name = max(found)
        return {"name": name, "value": top}


def _baselines(items: Sequence[AuditItem]) -> dict[str, float | None]:
    """Accuracy of each baseline heuristic over the items it applies to (``None``: none).

    As in the audit, a heuristic does not apply where the engine cannot read the story, nor
    where it is the asked skill (the real location for a reality question).
    """
    fit = fit_set(items)
    out: dict[str, float | None] = {}
    for name in BASELINES:
        heuristic = HEURISTICS.get(name)
        guesses = [(item, heuristic(item, fit)) for item in items]
        applied = [item.is_gold(guess) for item, guess in guesses if guess is not None]
        out[name] = round(sum(applied) / len(applied), 4) if applied else None
    return out


def reality_bias(experiment: Experiment, label: str, items: Sequence[AuditItem]) -> float | None:
    """Share of false-belief items (of ``items``) on which the model named the real value."""
    predictions = list(read_predictions(experiment.predictions(label)))
    judgments = list(read_judgments(experiment.judgments(label)))
    return audit_predictions(items, predictions, judgments)["reality_bias"]["accuracy"]


def _accuracy(verdicts: dict[str, bool], ids: list[str]) -> dict[str, Any]:
    scored = [verdicts[i] for i in ids if i in verdicts]
    return {
        "n": len(scored),
        "correct": sum(scored),
        "accuracy": round(sum(scored) / len(scored), 4) if scored else None,
        "ci95": wilson_interval(sum(scored), len(scored)),
    }


def label_rows(
    held: HeldoutSet, label: str, base: Experiment, previous: Experiment, after: Experiment
) -> list[dict[str, Any]]:
    """The rows of one held-out set and scoring after one round."""
    first, prior, last = (first_verdicts(e, label) for e in (base, previous, after))
    rows = []
    for part, ids in sorted(held.parts.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        items = [held.items[i] for i in ids]
        vs_base = paired_part(first, last, held.clusters, ids)
        vs_previous = paired_part(prior, last, held.clusters, ids)
        rows.append(
            {
                "set": label,
                "part": part,
                "items": len(ids),
                "unscored": {
                    "base": len(ids) - sum(i in first for i in ids),
                    "after": len(ids) - sum(i in last for i in ids),
                },
                "base": _accuracy(first, ids),
                "after": _accuracy(last, ids),
                "vs_base": asdict(vs_base) if vs_base else None,
                "vs_previous": asdict(vs_previous) if vs_previous else None,
                "reality_bias": {
                    "base": reality_bias(base, label, items),
                    "after": reality_bias(after, label, items),
                },
                "baselines": {
                    **held.baselines[part],
                    "best": held.best("accuracy") if part == "all" else None,
                },
            }
        )
    return [*headline_rows(held, label, rows, (first, prior, last)), *rows]


Verdicts = dict[str, bool]


def headline_rows(
    held: HeldoutSet, label: str, rows: list[dict[str, Any]], verdicts: tuple[Verdicts, ...]
) -> list[dict[str, Any]]:
    """The belief-balanced, story-level and paired rows, where the set has them."""
    first, prior, last = verdicts
    by_part = {row["part"]: row for row in rows}
    found = []
    sides = by_part.get("belief, false"), by_part.get("belief, true")
    if all(sides):
        found.append(_balanced_row(held, label, sides))  # type: ignore[arg-type]
    for name, unit in (("story level", held.clusters), ("paired", _twins(held))):
        units = _units(unit)
        if units:
            found.append(_unit_row(held, label, name, units, first, prior, last))
    return found


def _balanced_row(
    held: HeldoutSet, label: str, sides: tuple[dict[str, Any], dict[str, Any]]
) -> dict[str, Any]:
    false, true = sides

    def mean(key: str) -> dict[str, Any]:
        values = [side[key]["accuracy"] for side in sides]
        value = None if None in values else round(sum(values) / 2, 4)
        n = false[key]["n"] + true[key]["n"]
        return {"n": n, "correct": None, "accuracy": value, "ci95": None}

    return {
        "set": label,
        "part": "belief-balanced",
        "items": false["items"] + true["items"],
        "unscored": {k: false["unscored"][k] + true["unscored"][k] for k in ("base", "after")},
        "base": mean("base"),
        "after": mean("after"),
        "vs_base": _combined(false["vs_base"], true["vs_base"]),
        "vs_previous": _combined(false["vs_previous"], true["vs_previous"]),
        "reality_bias": false["reality_bias"],
        "baselines": {**_figures(held, "belief_balanced"), "best": held.best("belief_balanced")},
    }


def _combined(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """The mean of two parts' paired lifts; its interval from theirs, taken as independent."""
    if a is None or b is None:
        return None
    lift = (a["lift"] + b["lift"]) / 2
    half = math.hypot(a["high"] - a["low"], b["high"] - b["low"]) / 4
    return {"n": a["n"] + b["n"], "lift": lift, "low": lift - half, "high": lift + half}


def _twins(held: HeldoutSet) -> dict[str, str]:
    return {sid: key for sid, s in held.samples.items() if (key := twin_key(s)) is not None}


def _units(unit: dict[str, str]) -> dict[str, list[str]]:
    """Units (stories, twin pairs) of two or more items: their item ids."""
    members: dict[str, list[str]] = defaultdict(list)
    for sid, key in unit.items():
        members[key].append(sid)
    return {key: ids for key, ids in members.items() if len(ids) > 1}


def _unit_row(
    held: HeldoutSet,
    label: str,
    name: str,
    units: dict[str, list[str]],
    first: Verdicts,
    prior: Verdicts,
    last: Verdicts,
) -> dict[str, Any]:
    """A row where a unit (a story, a twin pair) is right when all its items are."""

    def whole(verdicts: Verdicts) -> dict[str, bool]:
        return {
            key: all(verdicts[i] for i in ids)
            for key, ids in units.items()
            if all(i in verdicts for i in ids)
        }

    base, before, after = whole(first), whole(prior), whole(last)

    def lift(earlier: dict[str, bool]) -> dict[str, Any] | None:
        shared = sorted(set(earlier) & set(after))
        found = paired_lift([(key, earlier[key], after[key]) for key in shared])
        return None if found is None else asdict(found)

    figure = _FIGURE[name]
    return {
        "set": label,
        "part": name,
        "items": len(units),
        "unscored": {"base": len(units) - len(base), "after": len(units) - len(after)},
        "base": _accuracy(base, sorted(units)),
        "after": _accuracy(after, sorted(units)),
        "vs_base": lift(base),
        "vs_previous": lift(before),
        "reality_bias": {"base": None, "after": None},
        "baselines": {**_figures(held, figure), "best": held.best(figure)},
    }


def _figures(held: HeldoutSet, figure: str) -> dict[str, Any]:
    return {name: held.heuristics.get(name, {}).get(figure) for name in BASELINES}


def across_seeds(seeds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per set and part: each seed's lift against the base, and their mean with a t interval."""
    lifts: dict[tuple[str, str], list[float]] = defaultdict(list)
    for rows in seeds:
        for row in rows:
            if row["vs_base"] is not None:
                lifts[(row["set"], row["part"])].append(row["vs_base"]["lift"])
    out = []
    for (label, part), values in sorted(lifts.items()):
        found = mean_interval(values)
        out.append(
            {
                "set": label,
                "part": part,
                "seeds": values,
                "mean": sum(values) / len(values),
                "ci95": None if found is None else [found[1], found[2]],
            }
        )
    return out


def _pct(value: float | None) -> str:
    return "–" if value is None or math.isnan(value) else f"{100 * value:5.1f}"


def _lift(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "–"
    return f"{100 * entry['lift']:+6.1f} [{100 * entry['low']:+6.1f},{100 * entry['high']:+6.1f}]"


HEADER = (
    f"{'held-out set':26} {'part':34} {'n':>4} {'base%':>6} {'after%':>6} "
    f"{'vs base pts [95% CI]':>24} {'vs previous round':>24} {'bias base→after':>16} "
    f"{'TL/FL/LN %':>17} {'best heuristic %':>26}"
)


def render_rows(rows: list[dict[str, Any]]) -> list[str]:
    """Table lines of one round's rows."""
    lines = [HEADER]
    for row in rows:
        bias = row["reality_bias"]
        base = row["baselines"]
        lines.append(
            f"{row['set']:26} {row['part'][:34]:34} {row['base']['n']:>4} "
            f"{_pct(row['base']['accuracy']):>6} {_pct(row['after']['accuracy']):>6} "
            f"{_lift(row['vs_base']):>24} {_lift(row['vs_previous']):>24} "
            f"{_pct(bias['base']):>7}→{_pct(bias['after']):<7}  "
            f"{'/'.join(_pct(base[name]).strip() for name in BASELINES):>17} "
            f"{_best(base.get('best')):>26}"
        )
    return lines


def _best(best: dict[str, Any] | None) -> str:
    return "–" if not best else f"{best['name']} {_pct(best['value']).strip()}"


def render_summary(summary: list[dict[str, Any]]) -> list[str]:
    """Table lines of the mean over data seeds."""
    lines = [f"{'held-out set':26} {'part':34} {'per seed (pts)':>30} {'mean [95% t CI]':>26}"]
    for entry in summary:
        seeds = " ".join(f"{100 * v:+.1f}" for v in entry["seeds"])
        ci = entry["ci95"]
        interval = "" if ci is None else f" [{100 * ci[0]:+.1f},{100 * ci[1]:+.1f}]"
        lines.append(
            f"{entry['set']:26} {entry['part'][:34]:34} {seeds:>30} "
            f"{100 * entry['mean']:+8.1f}{interval:>18}"
        )
    return lines
