"""Per-UID outputs of sentence tasks: a report file, and the predictions grouped by UID.

``uid_report.md`` (accuracy per UID, the macro-average over UIDs, the log-prob sweep's best
temperature) is written for every task that macro-averages over a field; with
``eval.scoring.save_predictions`` also ``predictions_by_uid.json`` (BabyLM's layout: for each
UID, each item's chosen completion).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_json, atomic_write_text
from tomflywheel.artifacts import Experiment, LoadedDataset, read_judgments, read_predictions
from tomflywheel.config import EvalSettings
from tomflywheel.schema import Sample


def _chosen(sample: Sample, answer: str | None) -> dict[str, Any]:
    sentences = [str(s) for s in sample.meta.get("sentences") or sample.options]
    completions = [str(c) for c in sample.meta.get("completions") or sentences]
    index = sentences.index(answer) if answer in sentences else None
    return {
        "id": sample.id,
        "pred": completions[index] if index is not None else None,
        "pred_index": index,
        "label": sample.meta.get("label"),
    }


def predictions_by_uid(field: str, dataset: LoadedDataset, experiment: Experiment) -> dict:
    """``{uid: {"predictions": [{id, pred, pred_index, label, correct, scores}]}}``.

    ``scores`` are the options' log-probs in the sentences' own order.
    """
    by_id = {sample.id: sample for sample in dataset.samples}
    scores = {
        p.sample_id: dict(zip(p.options or [], p.option_logprobs or [], strict=False))
        for p in read_predictions(experiment.predictions(dataset.label))
        if p.trial == 0
    }
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for judgment in read_judgments(experiment.judgments(dataset.label)):
        sample = by_id.get(judgment.sample_id)
        if sample is None or judgment.trial != 0:
            continue
        row = _chosen(sample, judgment.answer)
        row["correct"] = judgment.verdict.value == "correct"
        shown = scores.get(sample.id, {})
        row["scores"] = [shown.get(str(s)) for s in sample.meta.get("sentences") or []]
        uid = str(sample.meta.get(field, "∅"))
        out.setdefault(uid, {"predictions": []})["predictions"].append(row)
    return dict(sorted(out.items()))


def uid_report(label: str, metrics: dict[str, Any]) -> str:
    """Markdown: accuracy per UID, the macro-average and the sweep's best temperature."""
    macro = metrics.get("macro_accuracy") or {}
    field = macro.get("by", "UID")
    groups = metrics.get("groups", {}).get(field, {})
    lines = [f"# {label}: accuracy per {field}", "", f"| {field} | n | correct | accuracy |"]
    lines.append("| --- | ---: | ---: | ---: |")
    for uid, row in groups.items():
        value = "–" if row["accuracy"] is None else f"{100 * row['accuracy']:.2f}"
        lines.append(f"| {uid} | {row['n']} | {row['correct']} | {value} |")
    if macro:
        lines.append(
            f"| **macro-average ({macro['n_groups']} {field})** | | | "
            f"**{100 * macro['accuracy']:.2f}** |"
        )
    overall = metrics.get("overall", {})
    if overall.get("accuracy") is not None:
        lines += ["", f"Micro accuracy: {100 * overall['accuracy']:.2f} ({overall['n']} items)."]
    sweep = metrics.get("logprob_sweep")
    if sweep:
        best = sweep["best"]
        lines.append(
            f"Log-prob sweep: best temperature {best['temperature']} gives "
            f"{100 * best['accuracy']:.2f} expected accuracy ({sweep['caveat']})."
        )
    return "\n".join(lines) + "\n"


def write_uid_outputs(
    settings: EvalSettings,
    dataset: LoadedDataset,
    experiment: Experiment,
    metrics: dict[str, Any],
) -> list[Path]:
    """Write the UID report (and the per-UID predictions if asked); returns the files written."""
    field = dataset.task.macro_accuracy_by
    if field is None:
        return []
    folder = experiment.metrics(dataset.label).parent
    written = [folder / "uid_report.md"]
    atomic_write_text(written[0], uid_report(dataset.label, metrics))
    if settings.scoring.save_predictions:
        written.append(folder / "predictions_by_uid.json")
        atomic_write_json(written[1], predictions_by_uid(field, dataset, experiment))
    return written
