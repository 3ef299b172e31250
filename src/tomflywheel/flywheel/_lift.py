"""Before/after comparison of a trained model: lift per dataset and group, targets vs controls.

Controls are the items the new data should *not* change: memory, reality, true-belief and no-ToM
questions, control variants and matched twins, by the one rule the plan and the audit use
(:func:`tomflywheel.audit.is_control`). A lift on targets that comes with a drop on controls is a
new shortcut (e.g. "the answer is never where the object is"), and the comparison says so.

Each part's lift also comes paired, on the items scored both times, with a 95% interval
clustered by story (:func:`tomflywheel.stats.paired_lift`): ToMi and Hi-ToM ask several
questions of one story, whose answers move together.

``shortcut`` puts the scores no shortcut passes side by side (belief-balanced, story-level and
paired accuracy, each with the margin over the best heuristic), read from each experiment's
``metrics.json`` as the metric stage wrote them, with the lift of each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from tomflywheel.artifacts import (
    PARTS,
    DatasetLift,
    Experiment,
    GroupLift,
    Lifts,
    PairedLiftRecord,
    Part,
    Rate,
    ScoreLifts,
    ShortcutLift,
    ShortcutScores,
    read_judgments,
    shortcut_scores_of,
)
from tomflywheel.audit import is_control, story_key
from tomflywheel.schema import SCORED, Judgment, Sample, Verdict, read_samples
from tomflywheel.stats import PairedLift, accuracy, paired_lift

SHORTCUT_DROP = 0.05
"""A drop of at least this much (5 points) on one part beside a gain on the other is flagged."""


def _split(samples: dict[str, Sample], judgments: Iterable[Judgment]) -> dict[Part, Rate]:
    tallies: dict[Part, list[int]] = {part: [0, 0] for part in PARTS}
    # once per sample, not per judgment: the role may need the engine to read the story
    part: dict[str, Part] = {
        sid: "controls" if is_control(s) else "targets" for sid, s in samples.items()
    }
    for j in judgments:
        if j.verdict not in SCORED or j.sample_id not in samples:
            continue
        right = j.verdict is Verdict.CORRECT
        for key in ("all", part[j.sample_id]):
            tallies[key][0] += right
            tallies[key][1] += 1
    return {key: Rate.model_validate(accuracy(c, n)) for key, (c, n) in tallies.items()}


def first_verdicts(experiment: Experiment, label: str) -> dict[str, bool]:
    """Sample id -> right, for the first trial of every scored item of one dataset."""
    return {
        j.sample_id: j.verdict is Verdict.CORRECT
        for j in read_judgments(experiment.judgments(label))
        if j.trial == 0 and j.verdict in SCORED
    }


def paired_part(
    before: dict[str, bool], after: dict[str, bool], clusters: dict[str, str], ids: Iterable[str]
) -> PairedLift | None:
    """The paired lift of the items ``ids`` scored both times, clustered by ``clusters``."""
    shared = sorted(i for i in ids if i in before and i in after)
    return paired_lift([(clusters[i], before[i], after[i]) for i in shared])


def _paired(
    first: Experiment, second: Experiment, label: str
) -> dict[Part, PairedLiftRecord | None]:
    samples = {s.id: s for s in read_samples(first.samples(label))}
    clusters = {sid: story_key(s) for sid, s in samples.items()}
    before, after = first_verdicts(first, label), first_verdicts(second, label)
    ids: dict[Part, list[str]] = {"all": sorted(samples), "targets": [], "controls": []}
    for sid, sample in sorted(samples.items()):
        ids["controls" if is_control(sample) else "targets"].append(sid)
    out: dict[Part, PairedLiftRecord | None] = {}
    for part, members in ids.items():
        found = paired_part(before, after, clusters, members)
        out[part] = PairedLiftRecord.model_validate(asdict(found)) if found is not None else None
    return out


def dataset_split(experiment: Experiment, label: str) -> dict[Part, Rate]:
    """Accuracy on all items, targets and controls of one evaluated dataset."""
    samples = {s.id: s for s in read_samples(experiment.samples(label))}
    return _split(samples, read_judgments(experiment.judgments(label)))


def _delta(before: Rate, after: Rate) -> float | None:
    if before.accuracy is None or after.accuracy is None:
        return None
    return round(after.accuracy - before.accuracy, 4)


def kept_scores(metrics_path: Path) -> ShortcutScores | None:
    """A ``metrics.json``'s ``shortcut`` entry as a round summary keeps it (``None``: none).

    Every figure and margin, and of the heuristics only those a margin names (the best on
    each figure): the metrics file has the whole table.
    """
    if not metrics_path.exists():
        return None
    scores = shortcut_scores_of(json.loads(metrics_path.read_text(encoding="utf-8")))
    return scores.kept() if scores is not None else None


def _lift_of(before: ShortcutScores | None, after: ShortcutScores | None) -> ScoreLifts:
    lifts: dict[str, float | None] = {}
    for metric in ("belief_balanced", "story_level", "paired"):
        first = before.headline(metric) if before else None
        second = after.headline(metric) if after else None
        lifts[metric] = None if first is None or second is None else round(second - first, 4)
    return ScoreLifts.model_validate(lifts)


def shortcut_lift(before_metrics: Path, after_metrics: Path) -> ShortcutLift | None:
    """Before and after scores no shortcut passes, and the lift of each figure.

    ``None`` when neither ``metrics.json`` has a ``shortcut`` entry (a set that asks no minds,
    or one scored before the entry existed).
    """
    before, after = kept_scores(before_metrics), kept_scores(after_metrics)
    if before is None and after is None:
        return None
    return ShortcutLift(before=before, after=after, lift=_lift_of(before, after))


def compare(before_exp: Path, after_exp: Path) -> Lifts:
    """Lift of every dataset evaluated in both experiments, with the shortcut check."""
    out: Lifts = {}
    first, second = Experiment(Path(before_exp)), Experiment(Path(after_exp))
    for label in sorted(p.parent.name for p in first.root.glob("*/judgment.jsonl")):
        if not second.judgments(label).exists():
            continue
        before, after = dataset_split(first, label), dataset_split(second, label)
        lift = {key: _delta(before[key], after[key]) for key in before}
        out[label] = DatasetLift(
            before=before,
            after=after,
            lift=lift,
            paired=_paired(first, second, label),
            groups=_group_lifts(first.metrics(label), second.metrics(label)),
            shortcut_warning=shortcut_warning(lift["targets"], lift["controls"]),
            shortcut=shortcut_lift(first.metrics(label), second.metrics(label)),
        )
    return out


def shortcut_warning(targets: float | None, controls: float | None) -> str | None:
    """A note when targets and controls move apart (a bias, not a skill), else ``None``.

    Targets up with controls down: answers learned to avoid the true state ("never where the
    object is"). Controls up with targets down: answers drifted toward the true state (reality
    bias). Both are flagged when the part that fell lost at least ``SHORTCUT_DROP``.
    """
    if targets is None or controls is None:
        return None
    if targets > 0 and controls <= -SHORTCUT_DROP:
        return "possible new shortcut: targets rose while controls dropped"
    if controls > 0 and targets <= -SHORTCUT_DROP:
        return "possible reality bias: controls rose while targets dropped"
    return None


def _groups(metrics_path: Path) -> dict[str, dict[str, Rate]]:
    groups = json.loads(metrics_path.read_text(encoding="utf-8")).get("groups", {})
    return {
        group: {value: Rate.model_validate(acc) for value, acc in values.items()}
        for group, values in groups.items()
    }


def _group_lifts(before_path: Path, after_path: Path) -> dict[str, dict[str, GroupLift]]:
    if not before_path.exists() or not after_path.exists():
        return {}
    before, after = _groups(before_path), _groups(after_path)
    out: dict[str, dict[str, GroupLift]] = {}
    for group, values in before.items():
        for value, acc in values.items():
            later = after.get(group, {}).get(value)
            if later is None:
                continue
            out.setdefault(group, {})[value] = GroupLift(
                before=acc, after=later, lift=_delta(acc, later)
            )
    return out
