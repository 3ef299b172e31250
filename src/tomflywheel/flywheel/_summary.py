"""Round summaries: accuracy per dataset and group, error profile, candidates, admissions, cost."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tomflywheel._io import read_jsonl
from tomflywheel.artifacts import Experiment, read_predictions
from tomflywheel.flywheel._lift import compare, kept_scores
from tomflywheel.flywheel._manifest import RoundRecord
from tomflywheel.flywheel._surface import surface_check
from tomflywheel.schema import read_samples


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def accuracy_by_dataset(exp_dir: Path) -> dict[str, Any]:
    """Overall, both-correct and grouped accuracy of every dataset of an experiment.

    ``shortcut``: the scores no shortcut passes (:func:`~tomflywheel.flywheel._lift.kept_scores`
    of the metric stage's entry), ``None`` for a set that asks no minds.
    """
    out = {}
    for path in sorted(Path(exp_dir).glob("*/metrics.json")):
        metrics = _json(path)
        out[metrics["dataset"]] = {
            "task": metrics["task"],
            "overall": metrics["overall"],
            "all_correct": metrics.get("all_correct"),
            "groups": metrics.get("groups", {}),
            "counts": metrics.get("counts", {}),
            "shortcuts": metrics.get("shortcuts"),
            "shortcut": kept_scores(metrics.get("shortcut")),
            "usage": metrics.get("usage", {}),
        }
    return out


def bad_case_examples(exp_dir: Path, *, per_category: int = 3) -> dict[str, list[dict[str, Any]]]:
    """A few diagnosed bad cases per error category, with the model's own output.

    The first ``per_category`` of each category in ``diagnoses.jsonl`` order (deterministic).
    """
    path = Path(exp_dir) / "feedback" / "diagnoses.jsonl"
    if not path.exists():
        return {}
    chosen: dict[str, list[dict[str, Any]]] = {}
    for d in read_jsonl(path, tolerate_partial_tail=True):
        category = d.get("category")
        if category and len(chosen.setdefault(category, [])) < per_category:
            chosen[category].append(d)
    experiment = Experiment(Path(exp_dir))
    out: dict[str, list[dict[str, Any]]] = {}
    for category, cases in sorted(chosen.items()):
        for d in cases:
            label = d["dataset"]
            samples = {s.id: s for s in read_samples(experiment.samples(label))}
            outputs = {
                (p.sample_id, p.trial): p.raw_output
                for p in read_predictions(experiment.predictions(label))
            }
            sample = samples.get(d["sample_id"])
            out.setdefault(category, []).append(
                {
                    "dataset": label,
                    "sample_id": d["sample_id"],
                    "question": sample.question if sample else "",
                    "gold": sample.answer.correct_answers if sample else [],
                    "output": outputs.get((d["sample_id"], d.get("trial", 0))) or "",
                    "evidence": d.get("evidence") or d.get("explanation") or "",
                }
            )
    return out


def filter_outcome(verdicts_path: Path, input_path: Path) -> dict[str, Any]:
    """Admitted, rejected (by reason) and repaired counts of one input file, from its verdicts."""
    decisions: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    repaired = 0
    last: dict[tuple[str, str], dict[str, Any]] = {}
    if verdicts_path.exists():
        for v in read_jsonl(verdicts_path, tolerate_partial_tail=True):
            if Path(v.get("input_file", "")) == Path(input_path):
                # A later verdict (the admission balance) overrides an earlier one.
                last.pop((v["sample_id"], v["input_hash"]), None)
                last[(v["sample_id"], v["input_hash"])] = v
    for v in last.values():
        decisions[v["decision"]] += 1
        if v["decision"] == "accepted" and len(v.get("attempts", [])) > 1:
            repaired += 1
        if v["decision"] != "accepted":
            reasons.update(v.get("reasons", []))
    return {
        "admitted": decisions.get("accepted", 0),
        "rejected": sum(n for d, n in decisions.items() if d != "accepted"),
        "repaired": repaired,
        "reject_reasons": dict(reasons.most_common()),
    }


def _admission_audit(outputs: dict[str, Any]) -> dict[str, Any] | None:
    """The shortcut audit of the admitted set and what this round's balance did."""
    if "manifest" not in outputs or "admitted" not in outputs:
        return None
    entry = _json(Path(outputs["manifest"])).get("datasets", {}).get(Path(outputs["admitted"]).stem)
    audit = (entry or {}).get("audit")
    if not audit:
        return None
    return {"admitted": audit["admitted"], "this_round": audit["runs"][-1]}


def dataset_changes(
    accuracy: dict[str, Any], previous: dict[str, Any] | None
) -> dict[str, Any] | None:
    """How a round's evaluated datasets differ from the previous round's (``None``: same).

    Accuracy moves between rounds only mean something on the same samples: a dataset added,
    dropped or evaluated on another number of samples makes the rounds incomparable there.
    """
    if previous is None:
        return None
    before = {name: entry["overall"]["n"] for name, entry in previous["accuracy"].items()}
    now = {name: entry["overall"]["n"] for name, entry in accuracy.items()}
    changes = {
        "added": sorted(set(now) - set(before)),
        "removed": sorted(set(before) - set(now)),
        "resized": {
            name: [before[name], n] for name, n in sorted(now.items()) if before.get(name, n) != n
        },
    }
    return changes if any(changes.values()) else None


def _trained_on(trained: dict[str, Any] | None, filtered: dict[str, Any]) -> Path | None:
    """The data the round trained on, else what the filter admitted (``None``: neither)."""
    if trained and trained.get("data"):
        return Path(trained["data"])
    return Path(filtered["admitted"]) if filtered.get("admitted") else None


def round_notes(summary: dict[str, Any]) -> list[str]:
    """What a reader must know to compare this round with the others, in words."""
    notes = []
    if summary.get("trained") is None:
        notes.append(
            f"no fine-tuning this round (run without --train): the model did not change; "
            f"the next round evaluates {summary['model']} again"
        )
    for gap in (summary.get("surface") or {}).get("gaps", []):
        notes.append(f"the training data's surface differs from {gap}")
    changes = summary.get("datasets_changed")
    if changes:
        parts = [f"added {', '.join(changes['added'])}"] if changes["added"] else []
        if changes["removed"]:
            parts.append(f"removed {', '.join(changes['removed'])}")
        parts.extend(f"{name}: n {a} → {b}" for name, (a, b) in changes["resized"].items())
        notes.append(
            f"the dataset list differs from round {summary['round'] - 1}'s ({'; '.join(parts)}): "
            "accuracy is not comparable across these rounds there"
        )
    return notes


def round_summary(
    record: RoundRecord,
    *,
    model: str,
    previous: dict[str, Any] | None = None,
    base_heldout: Path | None = None,
) -> dict[str, Any]:
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
    evaluate = stages.get("evaluate")
    exp_dir = Path(evaluate.outputs["exp_dir"]) if evaluate else None
    feedback = exp_dir / "feedback" if exp_dir else None
    profile = _json(feedback / "error_profile.json") if feedback else {}
    candidates = Counter(
        str(r.get("meta", {}).get("origin"))
        for r in (
            read_jsonl(feedback / "candidates.jsonl")
            if feedback and (feedback / "candidates.jsonl").exists()
            else []
        )
    )
    filtered = stages.get("filter")
    outcome = (
        filter_outcome(Path(filtered.outputs["verdicts"]), Path(filtered.outputs["input"]))
        if filtered
        else {}
    )
    fresh = stages.get("fresh")  # GRPO's fresh stories, filtered apart from the admitted set
    fresh_outcome = (
        {
            "candidates": fresh.outputs["candidates"],
            **filter_outcome(Path(fresh.outputs["verdicts"]), Path(fresh.outputs["input"])),
        }
        if fresh
        else None
    )
    accuracy = accuracy_by_dataset(exp_dir) if exp_dir else {}
    eval_tokens = Counter()
    for entry in accuracy.values():
        eval_tokens.update({k: v for k, v in entry["usage"].items() if k.endswith("_tokens")})
    usage = {name: stage.usage for name, stage in stages.items() if stage.usage}
    before, after = stages.get("heldout_before"), stages.get("heldout_after")
    lift = (
        compare(Path(before.outputs["exp_dir"]), Path(after.outputs["exp_dir"]))
        if before and after
        else None
    )
    vs_base = (
        compare(base_heldout, Path(after.outputs["exp_dir"]))
        if after and base_heldout is not None and record.round > 1
        else None
    )
    sft_stage = stages.get("heldout_sft")  # sft-grpo: what GRPO added to its SFT stage
    vs_sft_stage = (
        compare(Path(sft_stage.outputs["exp_dir"]), Path(after.outputs["exp_dir"]))
        if sft_stage and after
        else None
    )
    trained = stages.get("train")
    summary = {
        "round": record.round,
        "model": model,
        "exp_dir": str(exp_dir) if exp_dir else None,
        "bad_cases": bad_case_examples(exp_dir) if exp_dir else {},
        "trained": trained.outputs if trained else None,
        "lift": lift,
        "lift_vs_base": vs_base,
        "lift_vs_sft_stage": vs_sft_stage,
        "accuracy": accuracy,
        "error_profile": {
            k: profile.get(k)
            for k in (
                "total",
                "diagnosed",
                "by_category",
                "by_method",
                "by_diagnoser",
                "self_diagnosed",
                "llm_agreement",
            )
        },
        "candidates": {
            "total": sum(candidates.values()),
            "by_origin": dict(sorted(candidates.items())),
        },
        "filter": outcome,
        "admission_audit": _admission_audit(filtered.outputs if filtered else {}),
        "fresh": fresh_outcome,
        "usage": usage,
        "requests": sum(int(u.get("requests_sent", 0)) for u in usage.values()),
        "cache_hits": sum(int(u.get("cache_hits", 0)) for u in usage.values()),
        "tokens": {
            "evaluated_prompt": eval_tokens.get("prompt_tokens", 0),
            "evaluated_completion": eval_tokens.get("completion_tokens", 0),
            "llm_prompt": sum(int(u.get("prompt_tokens", 0)) for u in usage.values()),
            "llm_completion": sum(int(u.get("completion_tokens", 0)) for u in usage.values()),
        },
        "seconds": {name: round(stage.seconds, 1) for name, stage in stages.items()},
        "datasets_changed": dataset_changes(accuracy, previous),
        "surface": surface_check(
            _trained_on(trained.outputs if trained else None, filtered.outputs if filtered else {}),
            [Path(s.outputs["exp_dir"]) for s in (evaluate, before) if s is not None],
        ),
    }
    summary["notes"] = round_notes(summary)
    return summary
