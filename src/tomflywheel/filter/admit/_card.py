"""The dataset card (``README.md``) beside every admitted training set.

Written with ``manifest.json`` from the same verdict logs and admitted files, so it has the same
bytes for the same data (no timestamps). It follows the Hugging Face dataset card layout (YAML
front matter naming the files, then prose): what the data is, where every sample came from
(generators and versions, the failures that seeded it), what the filter checked and rejected,
the contamination guard, the shortcut audit of what was admitted, and the licenses of the
benchmarks involved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_text, read_jsonl
from tomflywheel.audit import is_control
from tomflywheel.datasets import SOURCES
from tomflywheel.schema import Sample

CARD_NAME = "README.md"


def write_card(train_dir: Path, manifest: Mapping[str, Any]) -> Path:
    """Write ``README.md`` for every training set ``manifest`` lists; returns its path."""
    train_dir = Path(train_dir)
    entries = manifest.get("datasets", {})
    samples = {
        name: _admitted(train_dir / entry.get("admitted_file", f"{name}.jsonl"))
        for name, entry in sorted(entries.items())
    }
    lines = _front_matter(entries)
    lines += [
        "# Admitted training data",
        "",
        "Theory-of-Mind question-answer samples admitted by tomflywheel's quality filter "
        f"(tomflywheel {_tomflywheel_version()}). Each line of a `<name>.jsonl` file is one "
        "sample: `story`, `question`, `answer.correct_answers` (and `wrong_answers` for "
        "choice questions), and `meta` with the question type, the symbolic trace that "
        "derives the answer, the lineage (the failure it targets) and the filter's record. "
        "`tomflywheel datasets export <file> --format hf|parquet --to <dir>` writes it as a "
        "Hugging Face dataset or Parquet.",
        "",
    ]
    for name, entry in sorted(entries.items()):
        lines += _section(name, entry, samples[name])
    path = train_dir / CARD_NAME
    atomic_write_text(path, "\n".join(lines).rstrip() + "\n")
    return path


def _admitted(path: Path) -> list[Sample]:
    if not path.exists():
        return []
    return list(read_jsonl(path, Sample, tolerate_partial_tail=True))


def _tomflywheel_version() -> str:
    try:
        return version("tomflywheel")
    except PackageNotFoundError:
        return "unknown"


def _front_matter(entries: Mapping[str, Any]) -> list[str]:
    lines = [
        "---",
        "license: other",
        "language:",
        "- en",
        "task_categories:",
        "- question-answering",
        "tags:",
        "- theory-of-mind",
        "- synthetic",
        "- tomflywheel",
        "configs:",
    ]
    for name, entry in sorted(entries.items()):
        lines += [
            f"- config_name: {name}",
            f"  data_files: {entry.get('admitted_file', f'{name}.jsonl')}",
        ]
    return [*lines, "---", ""]


def _section(name: str, entry: Mapping[str, Any], samples: Sequence[Sample]) -> list[str]:
    lines = [
        f"## {name}",
        "",
        f"{len(samples)} samples admitted (`{entry.get('admitted_file')}`) of "
        f"{entry.get('candidates', 0)} candidates: {entry.get('accepted', 0)} accepted, "
        f"{entry.get('rejected', 0)} rejected (`{entry.get('rejected_file')}`); every "
        f"decision with its checks is in `{entry.get('verdicts_file')}`.",
        "",
        "### What it holds",
        "",
        *_table(
            ["dataset", "question type", "targets", "controls"],
            [
                [dataset, qtype, str(counts[False]), str(counts[True])]
                for (dataset, qtype), counts in sorted(_by_type(samples).items())
            ],
        ),
        "",
        "Targets need the reader to track a mind or a change the question tests; controls "
        "(memory, reality, true-belief questions) keep the model honest about the world.",
        "",
        "### Provenance",
        "",
        *_bullets(_provenance(samples)),
        "",
        "### Lineage",
        "",
        *_bullets(_lineage(entry.get("lineage", {}), samples)),
        "",
        "### Filter",
        "",
        *_table(
            ["check", "passed", "rejected", "repaired", "skipped"],
            [
                [check, str(c["passed"]), str(c["rejected"]), str(c["repaired"]), _skips(c)]
                for check, c in entry.get("checks", {}).items()
            ],
        ),
        "",
        *_bullets(_filter_notes(entry)),
        "",
        "### Shortcut audit of the admitted data",
        "",
        *_audit_lines(entry.get("audit", {})),
        "",
        "### Sources and licenses",
        "",
        *_bullets(_licenses(samples)),
        "",
    ]
    return lines


def _by_type(samples: Sequence[Sample]) -> dict[tuple[str, str], Counter[bool]]:
    counts: dict[tuple[str, str], Counter[bool]] = {}
    for sample in samples:
        key = (str(sample.meta.get("dataset", "?")), str(sample.meta.get("question_type", "?")))
        counts.setdefault(key, Counter())[is_control(sample)] += 1
    return counts


def _generator(sample: Sample) -> str | None:
    trace = sample.meta.get("trace") or {}
    lineage = sample.meta.get("lineage") or {}
    name = trace.get("generator") or lineage.get("generator")
    if not name:
        return None
    return f"{name} v{trace.get('version') or lineage.get('version') or '?'}"


def _provenance(samples: Sequence[Sample]) -> list[str]:
    origins = Counter(str(s.meta.get("origin", "unstated")) for s in samples)
    generators = Counter(g for s in samples if (g := _generator(s)))
    lines = [f"origin: {_counts(origins)}"]
    if generators:
        lines.append(f"generators: {_counts(generators)}")
    with_trace = sum(1 for s in samples if s.meta.get("trace"))
    lines.append(
        f"{with_trace} of {len(samples)} samples carry the symbolic trace their answer is "
        "derived from (`meta.trace`)"
    )
    return lines


def _seeding_cases(samples: Sequence[Sample]) -> set[str]:
    """The distinct bad cases (``<evaluation set>/<sample id>``) the samples were made for."""
    return {case for s in samples for case in (s.meta.get("lineage") or {}).get("bad_case_ids", [])}


def _lineage(summary: Mapping[str, Any], samples: Sequence[Sample]) -> list[str]:
    seeds = Counter(case.partition("/")[0] for case in _seeding_cases(samples))
    lines = []
    if summary.get("diagnosis"):
        lines.append(f"diagnoses targeted: {_counts(Counter(summary['diagnosis']))}")
    if seeds:
        lines.append(
            f"failures that seeded the data (distinct), by evaluation set: {_counts(seeds)}"
        )
    if summary.get("plan_id"):
        lines.append(f"synthesis plans: {len(summary['plan_id'])}")
    complements = sum(1 for s in samples if s.meta.get("complement_of"))
    if complements:
        lines.append(f"{complements} samples added by balancing (`meta.complement_of`)")
    return lines or ["no lineage recorded (data brought from outside the loop)"]


def _skips(count: Mapping[str, Any]) -> str:
    return ", ".join(f"{why} {n}" for why, n in count.get("skipped", {}).items()) or "0"


def _filter_notes(entry: Mapping[str, Any]) -> list[str]:
    notes = []
    if entry.get("reasons"):
        notes.append(f"rejection reasons: {_counts(Counter(entry['reasons']))}")
    contamination = entry.get("checks", {}).get("contamination")
    if contamination:
        notes.append(
            "contamination guard (stories too close to the evaluation sets named in the "
            f"filter settings): {contamination['rejected']} rejected, "
            f"{contamination['passed']} passed"
        )
    labels = entry.get("labels", {})
    verified = sum(row.get("verified", 0) for row in labels.values())
    unverified = sum(row.get("unverified", 0) for row in labels.values())
    if labels:
        notes.append(f"answers verified by the world engine: {verified}; unverified: {unverified}")
    calibration = entry.get("judge_calibration")
    if calibration:
        notes.append(
            f"the LLM judge's calibration: {calibration['status']} ({calibration['agree']} of "
            f"{calibration['n']} engine-verified samples answered as the engine does)"
        )
    repair = entry.get("repair", {})
    if repair.get("attempted"):
        notes.append(f"repairs: {repair['succeeded']} of {repair['attempted']} succeeded")
    return notes


def _audit_lines(audit: Mapping[str, Any]) -> list[str]:
    admitted = audit.get("admitted")
    if not admitted:
        return ["not audited"]
    flagged = [row for row in admitted.get("rows", []) if row.get("flagged")]
    lines = [
        f"Question families: {_counts(Counter(admitted.get('families', {})))}. A family is "
        f"flagged when a heuristic answers it more than {admitted.get('margin')} above "
        "chance; admission balances until none is.",
        "",
    ]
    if not flagged:
        return [*lines, "No family is flagged."]
    rows = [
        [row["family"], row["heuristic"], f"{row['accuracy']:.1%}", f"{row['chance']:.1%}"]
        for row in flagged
    ]
    return [*lines, *_table(["family", "heuristic", "accuracy", "chance"], rows)]


def _source_of(dataset: str) -> str | None:
    """The registered benchmark a dataset label comes from (longest name it starts with)."""
    names = [name for name in SOURCES if dataset == name or dataset.startswith(name + "_")]
    return max(names, key=len) if names else None


def _licenses(samples: Sequence[Sample]) -> list[str]:
    datasets = Counter(str(s.meta.get("dataset", "?")) for s in samples)
    seeds = {case.partition("/")[0] for case in _seeding_cases(samples)}
    lines = []
    generated = sum(n for d, n in datasets.items() if d.endswith("_synth"))
    if generated:
        lines.append(
            f"{generated} samples are written by tomflywheel's generators from symbolic "
            "traces: no benchmark text is copied into them."
        )
    for label in sorted(set(datasets) | seeds):
        source = None if label.endswith("_synth") else _source_of(label)
        if source is None:
            continue
        entry = SOURCES[source]
        role = "samples" if label in datasets else "seeded failures"
        lines.append(f"`{label}` ({role}): {source}, {entry.license}; from {entry.origin}")
    unknown = sorted(d for d in datasets if not d.endswith("_synth") and _source_of(d) is None)
    if unknown:
        lines.append(f"license not known to tomflywheel for: {', '.join(unknown)}")
    return lines or ["no samples"]


def _counts(counter: Counter[str]) -> str:
    return ", ".join(
        f"{key} {n}" for key, n in sorted(counter.items(), key=lambda p: (-p[1], p[0]))
    )


def _bullets(lines: Sequence[str]) -> list[str]:
    return [f"- {line}" for line in lines]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    if not rows:
        return ["(none)"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return lines + [
        "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows
    ]
