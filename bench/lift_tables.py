"""Rows and tables of the lift experiment (``bench/lift_experiment.py``).

One row per held-out set, scoring and part (all items, targets, controls, each question type,
convention-free and -dependent targets): accuracy of the base model and after the round, the
paired lift against the base and against the previous round (95% intervals clustered by
story), the reality-bias rate before and after, and three heuristic baselines (true location,
first location, last named: what a model that tracks no mind would score).
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
    fit_set,
    is_control,
    question_part,
)
from tomflywheel.flywheel import first_verdicts, paired_part, story_key
from tomflywheel.schema import Sample, read_samples
from tomflywheel.stats import mean_interval, wilson_interval

BASELINES = ("true_location", "first_location", "last_named")
"""The heuristics shown beside every row."""


@dataclass
class HeldoutSet:
    """One held-out set's samples as the rows need them (computed once per set)."""

    samples: dict[str, Sample]
    items: dict[str, AuditItem]
    clusters: dict[str, str]
    parts: dict[str, list[str]]
    baselines: dict[str, dict[str, float | None]]

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
            free = items[sid].convention_free
            if role == "targets" and free is not None:
                parts[f"targets, convention-{'free' if free else 'dep.'}"].append(sid)
            if (question := question_part(sample)) is not None:
                parts[f"type {question}"].append(sid)
        baselines = {part: _baselines([items[i] for i in ids]) for part, ids in parts.items()}
        clusters = {sid: story_key(s) for sid, s in samples.items()}
        return cls(samples, items, clusters, dict(parts), baselines)


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
    for part, ids in sorted(held.parts.items()):
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
                "baselines": held.baselines[part],
            }
        )
    return rows


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
    f"{'TL/FL/LN %':>17}"
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
            f"{'/'.join(_pct(base[name]).strip() for name in BASELINES):>17}"
        )
    return lines


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
