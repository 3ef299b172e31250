"""Round summaries: accuracy per dataset and group, error profile, candidates, admissions, cost."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tomflywheel._io import read_jsonl
from tomflywheel.artifacts import (
    AdmissionAudit,
    AuditRun,
    AuditState,
    BadCaseExample,
    CandidateCounts,
    DatasetAccuracy,
    DatasetChanges,
    ErrorProfileSummary,
    Experiment,
    FeedbackFolder,
    FilterOutcome,
    FilterOutputs,
    FreshOutcome,
    Lifts,
    RoundSummary,
    TokenCounts,
    TrainOutputs,
    Usage,
    read_predictions,
)
from tomflywheel.feedback import read_diagnoses
from tomflywheel.flywheel._lift import compare, kept_scores
from tomflywheel.flywheel._manifest import RoundRecord, RoundStages
from tomflywheel.flywheel._surface import surface_check
from tomflywheel.schema import QualityDecision, QualityVerdict, read_samples

PROFILE_KEYS = (
    "total",
    "diagnosed",
    "by_category",
    "by_method",
    "by_diagnoser",
    "self_diagnosed",
    "llm_agreement",
)
"""What a round keeps of its error profile (``feedback/error_profile.json`` has the cells)."""


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def accuracy_by_dataset(exp_dir: Path) -> dict[str, DatasetAccuracy]:
    """Overall, both-correct and grouped accuracy of every dataset of an experiment.

    ``shortcut``: the scores no shortcut passes (:meth:`~tomflywheel.artifacts.ShortcutScores.kept`
    of the metric stage's entry), ``None`` for a set that asks no minds.
    """
    out = {}
    for path in sorted(Path(exp_dir).glob("*/metrics.json")):
        metrics = _json(path)
        out[metrics["dataset"]] = DatasetAccuracy.model_validate(
            {
                "task": metrics["task"],
                "overall": metrics["overall"],
                "all_correct": metrics.get("all_correct"),
                "groups": metrics.get("groups", {}),
                "counts": metrics.get("counts", {}),
                "shortcuts": metrics.get("shortcuts"),
                "shortcut": kept_scores(path),
                "usage": metrics.get("usage", {}),
            }
        )
    return out


def bad_case_examples(exp_dir: Path, *, per_category: int = 3) -> dict[str, list[BadCaseExample]]:
    """A few diagnosed bad cases per error category, with the model's own output.

    The first ``per_category`` of each category in ``diagnoses.jsonl`` order (deterministic).
    """
    path = FeedbackFolder.of(exp_dir).diagnoses
    if not path.exists():
        return {}
    chosen: dict[str, list[Any]] = {}
    for d in read_diagnoses(path):
        category = d.category.value if d.category else None
        if category and len(chosen.setdefault(category, [])) < per_category:
            chosen[category].append(d)
    experiment = Experiment(Path(exp_dir))
    out: dict[str, list[BadCaseExample]] = {}
    for category, cases in sorted(chosen.items()):
        for d in cases:
            samples = {s.id: s for s in read_samples(experiment.samples(d.dataset))}
            outputs = {
                (p.sample_id, p.trial): p.raw_output
                for p in read_predictions(experiment.predictions(d.dataset))
            }
            sample = samples.get(d.sample_id)
            out.setdefault(category, []).append(
                BadCaseExample(
                    dataset=d.dataset,
                    sample_id=d.sample_id,
                    question=sample.question if sample else "",
                    gold=sample.answer.correct_answers if sample else [],
                    output=outputs.get((d.sample_id, d.trial)) or "",
                    evidence=d.evidence or d.explanation or "",
                )
            )
    return out


def filter_outcome(verdicts_path: Path, input_path: Path) -> FilterOutcome:
    """Admitted, rejected (by reason) and repaired counts of one input file, from its verdicts."""
    decisions: Counter[bool] = Counter()
    reasons: Counter[str] = Counter()
    repaired = 0
    last: dict[tuple[str, str], QualityVerdict] = {}
    if verdicts_path.exists():
        for v in read_jsonl(verdicts_path, QualityVerdict, tolerate_partial_tail=True):
            if Path(v.input_file) == Path(input_path):
                # A later verdict (the admission balance) overrides an earlier one.
                last.pop((v.sample_id, v.input_hash), None)
                last[(v.sample_id, v.input_hash)] = v
    for v in last.values():
        accepted = v.decision is QualityDecision.ACCEPTED
        decisions[accepted] += 1
        if accepted and len(v.attempts) > 1:
            repaired += 1
        if not accepted:
            reasons.update(v.reasons)
    return FilterOutcome(
        admitted=decisions[True],
        rejected=decisions[False],
        repaired=repaired,
        reject_reasons=dict(reasons.most_common()),
    )


def _admission_audit(outputs: FilterOutputs | None) -> AdmissionAudit | None:
    """The shortcut audit of the admitted set and what this round's balance did."""
    if outputs is None:
        return None
    entry = _json(outputs.manifest).get("datasets", {}).get(outputs.admitted.stem)
    audit = (entry or {}).get("audit")
    if not audit:
        return None
    return AdmissionAudit(
        admitted=AuditState.model_validate(audit["admitted"]),
        this_round=AuditRun.model_validate(audit["runs"][-1]),
    )


def dataset_changes(
    accuracy: dict[str, DatasetAccuracy], previous: RoundSummary | None
) -> DatasetChanges | None:
    """How a round's evaluated datasets differ from the previous round's (``None``: same).

    Accuracy moves between rounds only mean something on the same samples: a dataset added,
    dropped or evaluated on another number of samples makes the rounds incomparable there.
    """
    if previous is None:
        return None
    before = {name: entry.overall.n for name, entry in previous.accuracy.items()}
    now = {name: entry.overall.n for name, entry in accuracy.items()}
    changes = DatasetChanges(
        added=sorted(set(now) - set(before)),
        removed=sorted(set(before) - set(now)),
        resized={
            name: (before[name], n) for name, n in sorted(now.items()) if before.get(name, n) != n
        },
    )
    return changes if changes.added or changes.removed or changes.resized else None


def _trained_on(trained: TrainOutputs | None, filtered: FilterOutputs | None) -> Path | None:
    """The data the round trained on, else what the filter admitted (``None``: neither)."""
    if trained is not None:
        return trained.data
    return filtered.admitted if filtered is not None else None


def round_notes(summary: RoundSummary) -> list[str]:
    """What a reader must know to compare this round with the others, in words."""
    notes = []
    if summary.trained is None:
        notes.append(
            f"no fine-tuning this round (run without --train): the model did not change; "
            f"the next round evaluates {summary.model} again"
        )
    for gap in summary.surface.gaps if summary.surface else []:
        notes.append(f"the training data's surface differs from {gap}")
    changes = summary.datasets_changed
    if changes:
        parts = [f"added {', '.join(changes.added)}"] if changes.added else []
        if changes.removed:
            parts.append(f"removed {', '.join(changes.removed)}")
        parts.extend(f"{name}: n {a} → {b}" for name, (a, b) in changes.resized.items())
        notes.append(
            f"the dataset list differs from round {summary.round - 1}'s ({'; '.join(parts)}): "
            "accuracy is not comparable across these rounds there"
        )
    return notes


def _candidates(feedback: FeedbackFolder | None) -> CandidateCounts:
    """Synthesized candidates by origin (read as written: a malformed record still counts)."""
    path = feedback.candidates if feedback else None
    records = read_jsonl(path) if path is not None and path.exists() else []
    origins = Counter(str(r.get("meta", {}).get("origin")) for r in records)
    return CandidateCounts(total=sum(origins.values()), by_origin=dict(sorted(origins.items())))


def _lifts(
    stages: RoundStages, k: int, base_heldout: Path | None
) -> tuple[Lifts | None, Lifts | None, Lifts | None]:
    """The round's lift, against the base model (after round 1), and against its SFT stage."""
    before, after, sft = stages.heldout_before, stages.heldout_after, stages.heldout_sft
    if after is None:
        return None, None, None
    later = after.outputs.exp_dir
    lift = compare(before.outputs.exp_dir, later) if before else None
    vs_base = compare(base_heldout, later) if base_heldout is not None and k > 1 else None
    vs_sft_stage = compare(sft.outputs.exp_dir, later) if sft else None
    return lift, vs_base, vs_sft_stage


def _tokens(accuracy: dict[str, DatasetAccuracy], usage: dict[str, Usage]) -> TokenCounts:
    return TokenCounts(
        evaluated_prompt=sum(entry.usage.prompt_tokens for entry in accuracy.values()),
        evaluated_completion=sum(entry.usage.completion_tokens for entry in accuracy.values()),
        llm_prompt=sum(u.prompt_tokens for u in usage.values()),
        llm_completion=sum(u.completion_tokens for u in usage.values()),
    )


def _filtered(stages: RoundStages) -> tuple[FilterOutcome, FreshOutcome | None]:
    """What the filter admitted, and what it admitted of GRPO's fresh stories."""
    filtered, fresh = stages.filter, stages.fresh
    outcome = (
        filter_outcome(filtered.outputs.verdicts, filtered.outputs.input)
        if filtered
        else FilterOutcome()
    )
    if fresh is None:
        return outcome, None
    found = filter_outcome(fresh.outputs.verdicts, fresh.outputs.input)
    return outcome, FreshOutcome(candidates=fresh.outputs.candidates, **found.model_dump())


def round_summary(
    record: RoundRecord,
    *,
    model: str,
    previous: RoundSummary | None = None,
    base_heldout: Path | None = None,
) -> RoundSummary:
    """Everything the round did, from its artifacts and the manifest's stage records.

    ``lift`` compares the held-out sets after training with the model the round started from
    (the previous round's); ``lift_vs_base`` (rounds after the first) with the base model;
    ``lift_vs_sft_stage`` (``sft-grpo``) with the round's own SFT stage. Each set's
    ``shortcut`` there (and each evaluated set's under ``accuracy``) holds the scores no
    shortcut passes, read from the experiments' ``metrics.json``.

    Args:
        record: The round's stages in the manifest.
        model: The evaluated model's served name.
        previous: The previous round's summary, to flag a changed dataset list.
        base_heldout: Round 1's held-out experiment before training (the base model).
    """
    stages = record.stages
    exp_dir = stages.evaluate.outputs.exp_dir if stages.evaluate else None
    feedback = FeedbackFolder.of(exp_dir) if exp_dir else None
    profile = _json(feedback.error_profile) if feedback else {}
    accuracy = accuracy_by_dataset(exp_dir) if exp_dir else {}
    usage = {name: stage.usage for name, stage in stages.items() if stage.usage.spent}
    lift, vs_base, vs_sft_stage = _lifts(stages, record.round, base_heldout)
    outcome, fresh = _filtered(stages)
    trained = stages.train.outputs if stages.train else None
    filtered = stages.filter.outputs if stages.filter else None
    measured = [s.outputs.exp_dir for s in (stages.evaluate, stages.heldout_before) if s]
    summary = RoundSummary(
        round=record.round,
        model=model,
        exp_dir=exp_dir,
        bad_cases=bad_case_examples(exp_dir) if exp_dir else {},
        trained=trained,
        lift=lift,
        lift_vs_base=vs_base,
        lift_vs_sft_stage=vs_sft_stage,
        accuracy=accuracy,
        error_profile=ErrorProfileSummary.model_validate({k: profile.get(k) for k in PROFILE_KEYS}),
        candidates=_candidates(feedback),
        filter=outcome,
        admission_audit=_admission_audit(filtered),
        fresh=fresh,
        usage=usage,
        requests=sum(u.requests_sent for u in usage.values()),
        cache_hits=sum(u.cache_hits for u in usage.values()),
        tokens=_tokens(accuracy, usage),
        seconds={name: round(stage.seconds, 1) for name, stage in stages.items()},
        datasets_changed=dataset_changes(accuracy, previous),
        surface=surface_check(_trained_on(trained, filtered), measured),
    )
    summary.notes = round_notes(summary)
    return summary
