"""The flywheel run's self-contained ``report.html``: rounds, error profiles, admitted data."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_text, read_jsonl
from tomflywheel.artifacts import FeedbackFolder, RoundSummary, RunFolder, TrainingSets
from tomflywheel.audit import question_family, sample_role
from tomflywheel.report._html import (
    Bar,
    bar_chart,
    esc,
    folded,
    page,
    sample_browser,
    table_html,
)
from tomflywheel.report._judge import calibration_words
from tomflywheel.report._lift_report import lift_section
from tomflywheel.report._scores import ROUND_HEADERS, round_score_rows
from tomflywheel.report._shortcuts import audit_section
from tomflywheel.schema import Sample

BROWSER_LIMIT = 1500


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _relative(target: Path, run_dir: Path) -> str:
    """``target`` relative to the run folder (the report links survive moving the run)."""
    return Path(os.path.relpath(Path(target).resolve(), Path(run_dir).resolve())).as_posix()


def _bad_cases_section(rounds: Sequence[RoundSummary]) -> str:
    rows = [
        (
            s.round,
            category,
            case.dataset,
            case.question,
            " | ".join(case.gold),
            folded(case.output),
            folded(case.evidence),
        )
        for s in rounds
        for category, cases in s.bad_cases.items()
        for case in cases
    ]
    if not rows:
        return ""
    return (
        "<h2>Bad cases by error category</h2>"
        '<p class="note">A few diagnosed failures per category, with the model\'s own output.</p>'
        + table_html(
            ("round", "category", "dataset", "question", "gold", "model output", "evidence"),
            rows,
        )
    )


def _accuracy_rows(rounds: Sequence[RoundSummary]) -> tuple[list[Bar], list[tuple[Any, ...]]]:
    """Overall accuracy per round and dataset as bars, and every group's as table rows."""
    bars = []
    rows: list[tuple[Any, ...]] = []
    for summary in rounds:
        for dataset, entry in summary.accuracy.items():
            overall = entry.overall
            series = f"round {summary.round}"
            bars.append(
                Bar(dataset, overall.accuracy, overall.ci95, series=series, chance=overall.chance)
            )
            rows.append(
                (summary.round, dataset, "overall", "all", overall.n, _pct(overall.accuracy))
            )
            for group, values in entry.groups.items():
                for value, acc in values.items():
                    rows.append((summary.round, dataset, group, value, acc.n, _pct(acc.accuracy)))
    bars.sort(key=lambda b: (b.label, b.series))
    return bars, rows


def _accuracy_section(rounds: Sequence[RoundSummary], run_dir: Path) -> str:
    bars, rows = _accuracy_rows(rounds)
    links = [
        f'<li><a href="{esc(_relative(s.exp_dir, run_dir))}/report.html">round {s.round}: '
        f"evaluation report</a> ({esc(str(s.exp_dir))})</li>"
        for s in rounds
        if s.exp_dir
    ]
    chart = bar_chart(bars, title="overall accuracy per round", width=720)
    notes = [f"<li>round {s.round}: {esc(note)}</li>" for s in rounds for note in s.notes]
    scores = round_score_rows(rounds)
    return (
        "<h2>Evaluation per round</h2>"
        + (f"<ul>{''.join(links)}</ul>" if links else "")
        + (f'<ul class="notes">{"".join(notes)}</ul>' if notes else "")
        + f'<div class="card">{chart}</div>'
        + (table_html(ROUND_HEADERS, scores) if scores else "")
        + "<details><summary>Accuracy per group</summary>"
        + table_html(("round", "dataset", "group", "value", "n", "accuracy %"), rows)
        + "</details>"
    )


def _profile_section(rounds: Sequence[RoundSummary]) -> str:
    bars = []
    for summary in rounds:
        # Shares of the independent diagnoses: the evaluated model's own are counted apart.
        by_category = summary.error_profile.by_category or {}
        total = sum(by_category.values())
        for category, n in by_category.items():
            bars.append(
                Bar(category, n / total if total else None, series=f"round {summary.round}")
            )
    bars.sort(key=lambda b: (b.label, b.series))
    note = '<p class="note">Share of the diagnosed bad cases in each error category.</p>'
    own = [
        f"round {s.round}: "
        + ", ".join(f"{esc(k)} {v}" for k, v in (s.error_profile.self_diagnosed or {}).items())
        for s in rounds
        if s.error_profile.self_diagnosed
    ]
    if own:
        note += (
            '<p class="note">Left out above: LLM diagnoses the evaluated model made of its own '
            f"answers (not planned from unless feedback.plan_self_diagnoses): {'; '.join(own)}.</p>"
        )
    chart = bar_chart(bars, title="error categories", width=720)
    return f'<h2>Error profile</h2>{note}<div class="card">{chart}</div>'


def _admission_section(rounds: Sequence[RoundSummary], admitted: list[Sample]) -> str:
    rows = [
        (
            s.round,
            s.candidates.total,
            s.filter.admitted,
            s.filter.rejected,
            s.filter.repaired,
            ", ".join(f"{k} {v}" for k, v in s.filter.reject_reasons.items()),
            s.requests,
            ", ".join(f"{k} {v:.0f}s" for k, v in s.seconds.items()),
        )
        for s in rounds
    ]
    parts = [
        "<h2>Candidates and admission</h2>",
        table_html(
            (
                "round",
                "candidates",
                "admitted",
                "rejected",
                "repaired",
                "reject reasons",
                "requests",
                "wall time",
            ),
            rows,
        ),
    ]
    parts.append(_plan_tables(rounds))
    parts.append(_roles_table(admitted))
    for key in ("weakness", "generator", "diagnosis"):
        counts = Counter(str((s.meta.get("lineage") or {}).get(key)) for s in admitted)
        title = "plan item" if key == "weakness" else key
        parts.append(f"<h4>Admitted by {esc(title)}</h4>")
        parts.append(table_html((title, "samples"), sorted(counts.items())))
    origins = Counter(str(s.meta.get("origin")) for s in admitted)
    parts.append(
        "<h4>Admitted by origin</h4>" + table_html(("origin", "samples"), sorted(origins.items()))
    )
    return "".join(parts)


def _plan_tables(rounds: Sequence[RoundSummary]) -> str:
    """Each round's synthesis plan as its items: what was aimed at, with what, why, how much."""
    parts = []
    for summary in rounds:
        path = FeedbackFolder.of(summary.exp_dir).plan if summary.exp_dir else None
        if path is None or not path.is_file():
            continue
        plan = json.loads(path.read_text(encoding="utf-8"))
        rows = [
            (
                item["weakness"],
                item.get("role", "target"),
                item["generator"],
                folded(item["why"]),
                item["n_diagnoses"],
                item["count"],
            )
            for item in plan.get("items", [])
        ]
        left_out = plan.get("self_diagnoses_left_out") or 0
        note = f" ({left_out} diagnoses by the evaluated model itself left out)" if left_out else ""
        if plan.get("uncalibrated_left_out"):
            note += (
                f" ({plan['uncalibrated_left_out']} LLM diagnoses left out: "
                f"{calibration_words(plan.get('diagnoser_calibration'))})"
            )
        parts.append(
            f"<h4>Round {summary.round}: synthesis plan {esc(plan['plan_id'])}, budget "
            f"{plan['budget']}{esc(note)}</h4>"
            + table_html(("aimed at", "role", "generator", "why", "bad cases", "samples"), rows)
        )
    return "".join(parts)


def _roles_table(admitted: list[Sample]) -> str:
    """Admitted samples per question family, targets (false beliefs) apart from controls."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for sample in admitted:
        dataset = str(sample.meta.get("dataset") or "?")
        counts[(dataset, question_family(sample), sample_role(sample))] += 1
    keys = sorted({(dataset, family) for dataset, family, _ in counts})
    rows = [
        (dataset, family, counts[(dataset, family, "target")], counts[(dataset, family, "control")])
        for dataset, family in keys
    ]
    targets = sum(n for (_, _, role), n in counts.items() if role == "target")
    return (
        f"<h4>Admitted by question family: {targets} targets, "
        f"{sum(counts.values()) - targets} controls</h4>"
        '<p class="note">Targets ask a mind whose answer differs from reality (a false belief); '
        "controls are answered by the real state of the world (memory, reality, true beliefs, "
        "control variants).</p>"
        + table_html(("dataset", "question family", "targets", "controls"), rows)
    )


def _lineage_text(lineage: dict[str, Any]) -> str:
    """Lineage as a chain: bad cases → diagnosis → plan item → generator, seed."""
    cases = lineage.get("bad_case_ids") or []
    shown = ", ".join(str(c) for c in cases[:5]) + (
        f" (+{len(cases) - 5})" if len(cases) > 5 else ""
    )
    chain = (
        f"bad cases {shown or '–'} → diagnosis {lineage.get('diagnosis', '–')} "
        f"({lineage.get('weakness', '')}) → plan {lineage.get('plan_id', '–')} → generator "
        f"{lineage.get('generator', '–')} v{lineage.get('version', '?')}, seed "
        f"{lineage.get('seed', '–')}"
    )
    known = {"bad_case_ids", "diagnosis", "weakness", "plan_id", "generator", "version", "seed"}
    rest = {k: v for k, v in lineage.items() if k not in known}
    return chain + ("\n" + json.dumps(rest, ensure_ascii=False) if rest else "")


def _browser_rows(admitted: list[Sample]) -> list[dict[str, Any]]:
    rows = []
    for sample in admitted[:BROWSER_LIMIT]:
        answer = sample.answer
        rows.append(
            {
                "id": sample.id,
                "story": sample.story,
                "question": sample.question,
                "options": answer.wrong_answers
                and [*answer.correct_answers, *answer.wrong_answers],
                "gold": answer.correct_answers,
                "output": sample.meta.get("rationale") or "",
                "verdict": str(sample.meta.get("origin", "")),
                "details": _lineage_text(sample.meta.get("lineage") or {}),
            }
        )
    return rows


def write_run_report(
    run_dir: Path, rounds: Sequence[RoundSummary], train_name: str, train_dir: Path
) -> Path:
    """Write ``<run_dir>/report.html`` (no request; everything comes from the run's files)."""
    admitted_path = TrainingSets(Path(train_dir)).admitted(train_name)
    # The report may be drawn while a killed run left a cut last line: skip it, as resume does.
    admitted = (
        list(read_jsonl(admitted_path, Sample, tolerate_partial_tail=True))
        if admitted_path.exists()
        else []
    )
    body = [
        f"<h1>Flywheel run {esc(Path(run_dir).name)}</h1>",
        f'<p class="meta">{len(rounds)} round(s) · training set {esc(train_name)} '
        f"({len(admitted)} admitted samples in {esc(admitted_path)})</p>",
        _accuracy_section(rounds, Path(run_dir)),
        lift_section(rounds),
        _admission_section(rounds, admitted),
        _profile_section(rounds),
        _bad_cases_section(rounds),
        audit_section(rounds),
        "<h2>Admitted samples with lineage</h2>",
        '<p class="note">The rationale is derived from the trace; "how made" is the origin '
        "(symbolic: made and verified by the world engine; naturalized: an engine sample "
        "reworded by an LLM; free_form: LLM-written, label unverified).</p>",
        sample_browser(
            {train_name: _browser_rows(admitted)},
            verdicts=("symbolic", "naturalized", "free_form"),
            columns=("id", "question", "rationale", "how made"),
        ),
    ]
    path = RunFolder(Path(run_dir)).report
    atomic_write_text(path, page(f"tomflywheel run {Path(run_dir).name}", "".join(body)))
    return path
