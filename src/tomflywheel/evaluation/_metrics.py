"""The metric stage: overall and grouped accuracy with intervals, and the registry's aggregates.

Both-correct units, trials, trial fields, judge agreement, the log-prob temperature sweep and
the scores no shortcut passes (belief-balanced, story-level and paired accuracy).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from tomflywheel.asking import normalize
from tomflywheel.asking.judge import closed_candidates, gold_positions, option_scores, softmax
from tomflywheel.audit import AuditItem, audit_item, belief_side, shortcut_scores, story_key
from tomflywheel.config import LogprobSettings
from tomflywheel.datasets import TaskSpec
from tomflywheel.evaluation._f1 import macro_f1_by
from tomflywheel.schema import SCORED, Judgment, Prediction, Sample, Verdict
from tomflywheel.stats import accuracy, mean_and_std

# Ambiguous replies count as wrong in every accuracy (the strict answer policy) and are also
# counted apart under ``counts``.
JUDGED = SCORED


def _key(sample: Sample, fields: tuple[str, ...]) -> str | None:
    values = [sample.meta.get(field) for field in fields]
    if all(value is None for value in values):
        return None
    return " × ".join("∅" if value is None else str(value) for value in values)


def _tally(
    pairs: Iterable[tuple[str | None, Judgment]], chance: dict[str, float] | None = None
) -> dict[str, Any]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    members: dict[str, list[Judgment]] = defaultdict(list)
    for key, judgment in pairs:
        if key is None or judgment.verdict not in JUDGED:
            continue
        counts[key][1] += 1
        counts[key][0] += judgment.verdict is Verdict.CORRECT
        members[key].append(judgment)
    return {
        key: _with_chance(accuracy(c, n), members[key], chance or {})
        for key, (c, n) in sorted(counts.items(), key=lambda kv: kv[0])
    }


def _all_correct(by: str, samples: dict[str, Sample], judgments: list[Judgment]) -> dict[str, Any]:
    """A unit (e.g. a story's two prompts) counts only when every one of its samples is right."""
    units: dict[tuple[str, int], list[Verdict]] = defaultdict(list)
    for j in judgments:
        unit = samples[j.sample_id].meta.get(by)
        if unit is not None:
            units[(str(unit), j.trial)].append(j.verdict)
    judged = [v for v in units.values() if all(x in JUDGED for x in v)]
    correct = sum(all(x is Verdict.CORRECT for x in v) for v in judged)
    return {"by": by, **accuracy(correct, len(judged)), "units_left_out": len(units) - len(judged)}


def _trials(judgments: list[Judgment]) -> dict[str, Any] | None:
    trials = sorted({j.trial for j in judgments})
    if len(trials) < 2:
        return None
    per_trial = []
    for trial in trials:
        judged = [j for j in judgments if j.trial == trial and j.verdict in JUDGED]
        correct = sum(j.verdict is Verdict.CORRECT for j in judged)
        per_trial.append(accuracy(correct, len(judged)))
    values = [t["accuracy"] for t in per_trial if t["accuracy"] is not None]
    mean, std = mean_and_std(values)
    return {"n_trials": len(trials), "per_trial": per_trial, "mean": mean, "std": std}


def _agreement(judgments: list[Judgment]) -> dict[str, Any] | None:
    """Rules vs the LLM on the items the LLM decided (where the rules were unsure)."""
    both = [
        j
        for j in judgments
        if j.match_type == "judge" and j.rules_verdict is not None and j.verdict in JUDGED
    ]
    if not both:
        return None
    agree = sum(j.rules_verdict == j.verdict for j in both)
    return {"n": len(both), "agree": agree, "rate": round(agree / len(both), 4)}


def _macro_accuracy(
    field: str, samples: dict[str, Sample], judgments: list[Judgment]
) -> dict[str, Any] | None:
    """Accuracy averaged over the values of ``field`` (each value weighs the same)."""
    per = _tally((_key(samples[j.sample_id], (field,)), j) for j in judgments)
    rates = [g["correct"] / g["n"] for g in per.values() if g["n"]]
    if not rates:
        return None
    return {"by": field, "n_groups": len(rates), "accuracy": round(sum(rates) / len(rates), 4)}


def judge_calibration(judgments: list[Judgment], *, min_accuracy: float) -> dict[str, Any] | None:
    """The LLM judge's estimated accuracy: its agreement with the rules where they are certain.

    An inconsistent or failed judge reply counts as a disagreement. ``warning`` is set when the
    estimate is under ``min_accuracy`` (an unreliable judge: its verdicts elsewhere are suspect).
    """
    asked = [
        j
        for j in judgments
        if j.rules_certain and j.rules_verdict is not None and j.judge_verdict is not None
    ]
    if not asked:
        return None
    agree = sum(j.judge_verdict == j.rules_verdict for j in asked)
    estimate = accuracy(agree, len(asked))
    inconsistent = sum(j.judge_verdict is Verdict.UNJUDGED for j in asked)
    warning = None
    if estimate["accuracy"] is not None and estimate["accuracy"] < min_accuracy:
        warning = (
            f"the LLM judge agrees with certain rule verdicts on {agree} of {len(asked)} items "
            f"({estimate['accuracy']:.0%}, under {min_accuracy:.0%}): its verdicts are unreliable"
        )
    return {
        **estimate,
        "agree": agree,
        "inconsistent": inconsistent,
        "min_accuracy": min_accuracy,
        "warning": warning,
    }


def chance_by_sample(samples: list[Sample], predictions: list[Prediction]) -> dict[str, float]:
    """Each item's accuracy under a uniform random pick among its options or candidates.

    Choice QA: gold options / options shown; open QA over a closed set: golds among the story's
    candidates / candidates. Items with no closed answer set have no chance level.
    """
    shown = {p.sample_id: p for p in predictions if p.options}
    rates = {}
    for sample in samples:
        prediction = shown.get(sample.id)
        if prediction is not None and prediction.options:
            rates[sample.id] = len(prediction.gold_letters or []) / len(prediction.options)
        elif (candidates := closed_candidates(sample)) is not None:
            golds = {normalize(g) for g in sample.answer.correct_answers}
            rates[sample.id] = sum(normalize(c) in golds for c in candidates) / len(candidates)
        elif sample.answer.wrong_answers:
            n = len(sample.answer.correct_answers) + len(sample.answer.wrong_answers)
            rates[sample.id] = len(sample.answer.correct_answers) / n
    return rates


def _with_chance(
    tally: dict[str, Any], judgments: Iterable[Judgment], chance: dict[str, float]
) -> dict[str, Any]:
    """Add the mean chance level of the judged items, when every one of them has one."""
    rates = [chance.get(j.sample_id) for j in judgments if j.verdict in JUDGED]
    if rates and all(r is not None for r in rates):
        return {**tally, "chance": round(sum(rates) / len(rates), 4)}  # type: ignore[arg-type]
    return tally


def _sweep(
    samples: dict[str, Sample],
    predictions: list[Prediction],
    settings: LogprobSettings,
    macro_by: str | None = None,
) -> dict[str, Any] | None:
    """Expected accuracy under softmax(score / T) for each T: the probability mass on the gold.

    The best temperature is chosen on the evaluated data itself, so it is optimistic.
    """
    scored = [p for p in predictions if p.option_logprobs and p.error is None]
    if not scored:
        return None
    macro_field = settings.macro_by or macro_by
    temperatures = []
    t = settings.min_temperature
    while t <= settings.max_temperature + 1e-9:
        temperatures.append(round(t, 6))
        t += settings.temperature_step

    def macro(values: list[tuple[str, float]]) -> float:
        if macro_field is None:
            return sum(v for _, v in values) / len(values)
        groups: dict[str, list[float]] = defaultdict(list)
        for key, value in values:
            groups[key].append(value)
        return sum(sum(g) / len(g) for g in groups.values()) / len(groups)

    def unit(p: Prediction) -> str:
        field = macro_field
        return str(samples[p.sample_id].meta.get(field, p.sample_id)) if field else p.sample_id

    rows = []
    argmax = []
    for p in scored:
        scores = option_scores(p, settings.normalize)
        gold = gold_positions(p)
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        argmax.append((unit(p), 1.0 if best in gold else 0.0))
        rows.append((unit(p), scores, gold))
    table = []
    for temperature in temperatures:
        values = [(u, sum(softmax(s, temperature)[i] for i in g)) for u, s, g in rows]
        table.append({"temperature": temperature, "accuracy": round(macro(values), 4)})
    best_row = max(table, key=lambda row: row["accuracy"])
    return {
        "normalize": settings.normalize,
        "macro_by": macro_field,
        "argmax_accuracy": round(macro(argmax), 4),
        "temperatures": table,
        "best": best_row,
        "caveat": "the best temperature is chosen on the evaluated data itself (optimistic)",
    }


def _asks_minds(scores: Mapping[str, Any], items: Mapping[str, AuditItem]) -> bool:
    """Whether a set is shaped like a ToM set: beliefs, twins, or stories asked several times.

    Any item with a belief side (one side is enough: the margin over "always the real state"
    still says something), or a twin pair, or stories of two or more questions on average with
    a story at all: a few repeated contexts (Social IQa's 24 of 1,930) do not make a set ToM.
    """
    if scores["paired"] is not None or any(belief_side(i) is not None for i in items.values()):
        return True
    level = scores["story_level"]
    return (
        level is not None
        and level["questions_per_story"] >= 2
        and any(story_key(item.sample) for item in items.values())
    )


def shortcut_entry(
    samples: list[Sample],
    judgments: list[Judgment],
    *,
    items: Mapping[str, AuditItem] | None = None,
) -> dict[str, Any] | None:
    """:func:`~tomflywheel.audit.shortcut_scores` of the first trial's scored answers.

    ``None`` where nothing is scored or the set asks no minds (:func:`_asks_minds`): a non-ToM
    set (Social IQa) would carry only the heuristics' noise.
    """
    right = {
        j.sample_id: j.verdict is Verdict.CORRECT
        for j in judgments
        if j.trial == 0 and j.verdict in JUDGED
    }
    audit: dict[str, AuditItem] = {}
    for sample in samples:
        if sample.id in right and sample.id not in audit:
            known = items.get(sample.id) if items is not None else None
            audit[sample.id] = known if known is not None else audit_item(sample)
    if not audit:
        return None
    scores = shortcut_scores(samples, right, items=audit)
    return scores if _asks_minds(scores, audit) else None


def compute_metrics(
    *,
    label: str,
    task: TaskSpec,
    samples: list[Sample],
    predictions: list[Prediction],
    judgments: list[Judgment],
    logprob: LogprobSettings,
    min_judge_accuracy: float = 0.8,
    items: Mapping[str, AuditItem] | None = None,
) -> dict[str, Any]:
    """Every metric of one dataset of an experiment, as plain JSON-able data.

    ``shortcut`` is :func:`shortcut_entry` (``None`` for a set that asks no minds); ``items``
    are the samples' audit items by id when the caller has them (building one reads its story
    with the engine).
    """
    by_id = {s.id: s for s in samples}
    judgments = [j for j in judgments if j.sample_id in by_id]
    predictions = [p for p in predictions if p.sample_id in by_id]
    verdicts = Counter(j.verdict.value for j in judgments)
    correct = verdicts.get(Verdict.CORRECT.value, 0)
    judged = sum(verdicts.get(v.value, 0) for v in JUDGED)
    chance = chance_by_sample(samples, predictions)
    groups = {
        " × ".join(fields): _tally(
            ((_key(by_id[j.sample_id], fields), j) for j in judgments), chance
        )
        for fields in task.groupings
    }
    trial_fields = {
        field: _tally((_key(by_id[j.sample_id], (field,)), j) for j in judgments)
        for field in task.trial_fields
    }
    return {
        "dataset": label,
        "task": task.name,
        "judge": judgments[0].method.model_dump() if judgments else None,
        "n_samples": len(samples),
        "n_predictions": len(predictions),
        "n_judgments": len(judgments),
        "overall": _with_chance(accuracy(correct, judged), judgments, chance),
        "counts": {v.value: verdicts.get(v.value, 0) for v in Verdict},
        "groups": groups,
        "match_types": dict(sorted(Counter(j.match_type or "none" for j in judgments).items())),
        "all_correct": _all_correct(task.all_correct_by, by_id, judgments)
        if task.all_correct_by
        else None,
        "trials": _trials(judgments),
        "fields": trial_fields,
        "judge_agreement": _agreement(judgments),
        "judge_calibration": judge_calibration(judgments, min_accuracy=min_judge_accuracy),
        "macro_f1": macro_f1_by(task.macro_f1_by, by_id, predictions, judgments)
        if task.macro_f1_by
        else None,
        "macro_accuracy": _macro_accuracy(task.macro_accuracy_by, by_id, judgments)
        if task.macro_accuracy_by
        else None,
        "logprob_sweep": _sweep(by_id, predictions, logprob, task.macro_accuracy_by),
        "shortcut": shortcut_entry(samples, judgments, items=items),
        "usage": _usage(predictions),
    }


def _usage(predictions: list[Prediction]) -> dict[str, Any]:
    latencies = [p.latency_s for p in predictions if p.latency_s is not None]
    return {
        "prompt_tokens": sum(p.usage.get("prompt_tokens", 0) for p in predictions),
        "completion_tokens": sum(p.usage.get("completion_tokens", 0) for p in predictions),
        "mean_latency_s": round(sum(latencies) / len(latencies), 4) if latencies else None,
    }
