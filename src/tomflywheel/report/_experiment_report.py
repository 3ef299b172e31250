"""The report stage of one experiment: ``tables/`` and a self-contained ``report.html``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_text, require_folder
from tomflywheel._yaml import load_yaml
from tomflywheel.artifacts import (
    Experiment,
    answer_audit_of,
    read_judgments,
    read_predictions,
    shortcut_scores_of,
)
from tomflywheel.report._html import Bar, bar_chart, esc, page, sample_browser, table_html
from tomflywheel.report._judge import calibration_text, judge_notes
from tomflywheel.report._scores import NOTE, scores_html
from tomflywheel.report._shortcuts import shortcut_summary
from tomflywheel.report._tables import metric_rows, write_tables
from tomflywheel.schema import Judgment, read_samples

BROWSER_LIMIT = 2000
"""Samples per dataset embedded in the browser (the page stays light for big runs)."""


def _load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _browser_rows(experiment: Experiment, label: str, limit: int) -> list[dict[str, Any]]:
    samples_path = experiment.samples(label)
    samples = {s.id: s for s in read_samples(samples_path)} if samples_path.exists() else {}
    judgments = {(j.sample_id, j.trial): j for j in read_judgments(experiment.judgments(label))}
    rows = []
    for prediction in read_predictions(experiment.predictions(label))[:limit]:
        sample = samples.get(prediction.sample_id)
        judgment = judgments.get((prediction.sample_id, prediction.trial))
        output = prediction.raw_output
        if output is None and prediction.option_logprobs and prediction.options:
            output = "log-probs: " + ", ".join(
                f"{o} {v:.2f}"
                for o, v in zip(prediction.options, prediction.option_logprobs, strict=True)
            )
        rows.append(
            {
                "id": prediction.sample_id + (f" #{prediction.trial}" if prediction.trial else ""),
                "story": sample.story if sample else "",
                "question": sample.question if sample else "",
                "options": prediction.options,
                "gold": sample.answer.correct_answers if sample else [],
                "output": output or prediction.error or "",
                "verdict": judgment.verdict.value if judgment else "unjudged",
                "match": judgment.match_type if judgment else None,
                "reason": judgment.reason if judgment else None,
                "judge": _judge_detail(judgment),
                "failure": judgment.failure if judgment else None,
            }
        )
    return rows


def _judge_detail(judgment: Judgment | None) -> str | None:
    """What the LLM judge said, when it was asked (with the answer it read)."""
    if judgment is None or judgment.judge_verdict is None:
        return None
    read = f" (read {judgment.judge_answer!r})" if judgment.judge_answer is not None else ""
    role = "decided" if judgment.match_type == "judge" else "calibration only, not counted"
    return f"{judgment.judge_verdict.value}{read} · {role}"


def _dataset_section(metrics: dict[str, Any]) -> str:
    parts = [f"<h2>{esc(metrics['dataset'])}</h2>"]
    judge = metrics.get("judge") or {}
    parts.append(
        f'<p class="meta">task {esc(metrics["task"])} · judge {esc(judge.get("name", "–"))} · '
        f"{metrics['n_samples']} samples · "
        + esc(", ".join(f"{k} {v}" for k, v in metrics["counts"].items()))
        + "</p>"
    )
    parts.extend(f'<p class="warn">⚠ {esc(note)}</p>' for note in judge_notes(metrics))
    chance = (metrics.get("overall") or {}).get("chance")
    if chance is not None:
        parts.append(
            f'<p class="note">chance level {100 * chance:.1f}% (a random pick among the '
            "options or the story's candidates; dashed red marks on the bars)</p>"
        )
    parts.append(shortcut_summary(answer_audit_of(metrics)))
    parts.append(scores_html(shortcut_scores_of(metrics)))
    charts = []
    for section in ("groups", "fields"):
        for group, values in (metrics.get(section) or {}).items():
            bars = [
                Bar(
                    str(v),
                    a["accuracy"],
                    tuple(a["ci95"]) if a["ci95"] else None,
                    chance=a.get("chance"),
                )
                for v, a in values.items()
            ]
            charts.append(
                f'<div class="card"><h4>by {esc(group)}</h4>'
                f"{bar_chart(bars, title=f'by {group}')}</div>"
            )
    if charts:
        parts.append('<div class="grid">' + "".join(charts) + "</div>")
    rows = [
        (
            r["group"],
            r["value"],
            r["n"],
            "–" if r["accuracy"] is None else f"{100 * r['accuracy']:.1f}",
            "–"
            if r["ci95_low"] is None
            else f"{100 * r['ci95_low']:.1f}–{100 * r['ci95_high']:.1f}",
        )
        for r in metric_rows(metrics)
    ]
    parts.append(table_html(("group", "value", "n", "accuracy %", "95% CI"), rows))
    sweep = metrics.get("logprob_sweep")
    if sweep:
        best = sweep["best"]
        parts.append(
            f"<p>Log-prob argmax accuracy {100 * sweep['argmax_accuracy']:.1f}%; best expected "
            f"accuracy {100 * best['accuracy']:.1f}% at T={best['temperature']} "
            f'<span class="note">({esc(sweep["caveat"])})</span></p>'
        )
    calibration = calibration_text(metrics)
    if calibration:
        parts.append(f"<p>{esc(calibration)}</p>")
    agreement = metrics.get("judge_agreement")
    if agreement:
        parts.append(
            f"<p>On the {agreement['n']} open answers the rules could not settle, the LLM judge "
            f"agreed with the rules' guess on {agreement['agree']} "
            f"({100 * agreement['rate']:.1f}%)</p>"
        )
    return "".join(parts)


def _balanced_overview(all_metrics: list[dict[str, Any]]) -> str:
    """Belief-balanced accuracy of every dataset that has it: the headline, first."""
    bars = []
    for metrics in all_metrics:
        balanced = (metrics.get("shortcut") or {}).get("belief_balanced")
        if balanced:
            ci = tuple(balanced["ci95"]) if balanced["ci95"] else None
            bars.append(Bar(metrics["dataset"], balanced["value"], ci))
    if not bars:
        return ""
    return (
        "<h2>Belief-balanced accuracy</h2>"
        f'<p class="note">{esc(NOTE)}</p>'
        f'<div class="card">{bar_chart(bars, title="belief-balanced accuracy")}</div>'
    )


def write_experiment_report(experiment: Experiment) -> list[Path]:
    """Write ``tables/`` and ``report.html`` of an experiment from its artifacts (no request)."""
    root = require_folder(experiment.root, "experiment folder")
    all_metrics = [_load_json(p) for p in sorted(root.glob("*/metrics.json"))]
    written = write_tables(root / "tables", all_metrics)
    config = (
        load_yaml((root / "config.yaml").read_text(encoding="utf-8"))
        if (root / "config.yaml").exists()
        else {}
    )
    model = (config.get("llm") or {}).get("model") or (config.get("embedded") or {}).get(
        "served_model_name", "?"
    )
    overview = [
        Bar(
            m["dataset"],
            m["overall"]["accuracy"],
            tuple(m["overall"]["ci95"]) if m["overall"]["ci95"] else None,
            chance=m["overall"].get("chance"),
        )
        for m in all_metrics
    ]
    body = [
        f"<h1>Experiment {esc(root.name)}</h1>",
        f'<p class="meta">model {esc(model)} · {len(all_metrics)} dataset(s)</p>',
        _balanced_overview(all_metrics),
        "<h2>Overall accuracy</h2>",
        f'<div class="card">{bar_chart(overview, title="overall accuracy")}</div>',
        *(_dataset_section(m) for m in all_metrics),
        "<h2>Samples</h2>",
        sample_browser(
            {
                m["dataset"]: _browser_rows(experiment, m["dataset"], BROWSER_LIMIT)
                for m in all_metrics
            }
        ),
    ]
    path = root / "report.html"
    atomic_write_text(path, page(f"tomflywheel · {root.name}", "".join(body)))
    return [*written, path]
