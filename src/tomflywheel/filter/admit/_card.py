"""The dataset card (``README.md``) beside every admitted training set.

Written with ``manifest.json`` from the same verdict logs and admitted files, so it has the same
bytes for the same data (no timestamps). It follows the Hugging Face dataset card layout (YAML
front matter naming the files, then prose): what the data is, where every sample came from
(generators and versions, the failures that seeded it, or the benchmark files it was imported
from), what the filter checked and rejected, every label it changed (listed in
``label_changes/<name>.jsonl``) and every convention-dependent one it kept, the contamination
guard, the shortcut audit of what was admitted, and the licence of each benchmark involved.

Lines about files only the training folder holds (``rejected/``, ``verdicts/``) sit between
:data:`TRAIN_ONLY` markers, which ``datasets export`` removes with what they hold, so an
exported card names only files the export has. Text taken from the data (dataset names,
reasons, provenance) is HTML-escaped: a card is rendered as HTML.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_text, read_jsonl
from tomflywheel.audit import is_control
from tomflywheel.datasets import GENERATED_SUFFIX, TRAIN_ONLY, license_of
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
    lines = _front_matter(entries, samples)
    lines += [
        "# Admitted training data",
        "",
        "Theory-of-Mind question-answer samples admitted by tomflywheel's quality filter "
        f"(tomflywheel {_tomflywheel_version()}). Each line of a `<name>.jsonl` file is one "
        "sample: `story`, `question`, `answer.correct_answers` (and `wrong_answers` for "
        "choice questions), and `meta`: the question type, the filter's record "
        "(`meta.filter`), for an engine-made sample the symbolic trace that derives the "
        "answer and its lineage (the failure it targets), for a changed label "
        "`meta.label_repair`, for a convention-dependent one `meta.convention`. "
        "`tomflywheel datasets export <file> --format hf|parquet --to <dir>` writes it as a "
        "Hugging Face dataset or Parquet, with this card and the list of changed labels.",
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


def _is_generated(sample: Sample) -> bool:
    """Whether tomflywheel's generators wrote the sample (no benchmark text in it)."""
    return str(sample.meta.get("dataset", "")).endswith(GENERATED_SUFFIX) or bool(
        _generator(sample)
    )


def _card_license(samples: Sequence[Sample]) -> str:
    """The front matter's ``license``: the benchmarks' one id when they share it, else other."""
    ids = {
        entry.card_id if (entry := license_of(str(s.meta.get("dataset", "?")))) else "unknown"
        for s in samples
        if not _is_generated(s)
    }
    return ids.pop() if len(ids) == 1 and "unknown" not in ids else "other"


def _front_matter(entries: Mapping[str, Any], samples: Mapping[str, Sequence[Sample]]) -> list[str]:
    everything = [sample for name in sorted(samples) for sample in samples[name]]
    tags = ["- theory-of-mind"]
    if any(_is_generated(sample) for sample in everything):
        tags.append("- synthetic")
    lines = [
        "---",
        f"license: {_card_license(everything)}",
        "language:",
        "- en",
        "task_categories:",
        "- question-answering",
        "tags:",
        *tags,
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
        f"## {_esc(name)}",
        "",
        f"{len(samples)} samples admitted (`{entry.get('admitted_file')}`) of "
        f"{entry.get('candidates', 0)} candidates: {entry.get('accepted', 0)} accepted, "
        f"{entry.get('rejected', 0)} rejected.",
        "",
        TRAIN_ONLY[0],
        f"The rejected candidates, with every reason, are in `{entry.get('rejected_file')}`; "
        f"every decision with its checks is in `{entry.get('verdicts_file')}`.",
        TRAIN_ONLY[1],
        "",
        "### What it holds",
        "",
        *_table(
            ["dataset", "question type", "targets", "controls"],
            [
                [_esc(dataset), _esc(qtype), str(counts[False]), str(counts[True])]
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
        "### Labels",
        "",
        *_label_lines(entry),
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


def _origin(sample: Sample) -> str:
    """Where the label comes from: ``meta.origin``, else the filter's reading of it."""
    return str(sample.meta.get("origin") or (sample.meta.get("filter") or {}).get("origin") or "?")


def _provenance(samples: Sequence[Sample]) -> list[str]:
    origins = Counter(_origin(s) for s in samples)
    generators = Counter(g for s in samples if (g := _generator(s)))
    lines = [f"label origin: {_esc(_counts(origins))}"]
    if generators:
        lines.append(f"generators: {_esc(_counts(generators))}")
    imported = Counter(
        (str(s.meta.get("dataset", "?")), str(s.meta["provenance"]))
        for s in samples
        if s.meta.get("provenance")
    )
    for (dataset, where), n in sorted(imported.items()):
        lines.append(f"`{_esc(dataset)}`: {n} samples imported from {_esc(where)}")
    unrecorded = sum(1 for s in samples if not s.meta.get("provenance") and not _is_generated(s))
    if unrecorded:
        lines.append(
            f"{unrecorded} samples from outside the loop do not record which files they were "
            "imported from (`meta.provenance`)"
        )
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
    diagnoses = {k: n for k, n in (summary.get("diagnosis") or {}).items() if k != "none"}
    plans = [plan for plan in summary.get("plan_id") or {} if plan != "none"]
    if diagnoses:
        lines.append(f"diagnoses targeted: {_esc(_counts(Counter(diagnoses)))}")
    if seeds:
        lines.append(
            f"failures that seeded the data (distinct), by evaluation set: {_esc(_counts(seeds))}"
        )
    if plans:
        lines.append(f"synthesis plans: {len(plans)}")
    complements = sum(1 for s in samples if s.meta.get("complement_of"))
    if complements:
        lines.append(f"{complements} samples added by balancing (`meta.complement_of`)")
    return lines or ["no lineage recorded (data brought from outside the loop)"]


def _skips(count: Mapping[str, Any]) -> str:
    return ", ".join(f"{why} {n}" for why, n in count.get("skipped", {}).items()) or "0"


def _filter_notes(entry: Mapping[str, Any]) -> list[str]:
    notes = []
    if entry.get("reasons"):
        notes.append(f"rejection reasons: {_esc(_counts(Counter(entry['reasons'])))}")
    contamination = entry.get("checks", {}).get("contamination")
    if contamination:
        notes.append(
            "contamination guard (stories too close to the evaluation sets named in the "
            f"filter settings): {contamination['rejected']} rejected, "
            f"{contamination['passed']} passed"
        )
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
    balanced = (
        "admission balances until none is"
        if audit.get("enforced", True)
        else "this set was admitted as it is (balancing off, `--no-balance`): a flagged family "
        "is reported, not balanced"
    )
    lines = [
        f"Question families: {_esc(_counts(Counter(admitted.get('families', {}))))}. A family "
        f"is flagged when a heuristic answers it more than {admitted.get('margin')} above "
        f"chance; {balanced}.",
        "",
    ]
    if not flagged:
        return [*lines, "No family is flagged."]
    rows = [
        [_esc(row["family"]), row["heuristic"], f"{row['accuracy']:.1%}", f"{row['chance']:.1%}"]
        for row in flagged
    ]
    return [*lines, *_table(["family", "heuristic", "accuracy", "chance"], rows)]


def _licenses(samples: Sequence[Sample]) -> list[str]:
    datasets = Counter(str(s.meta.get("dataset", "?")) for s in samples)
    seeds = {case.partition("/")[0] for case in _seeding_cases(samples)}
    lines = []
    generated = sum(n for d, n in datasets.items() if d.endswith(GENERATED_SUFFIX))
    if generated:
        lines.append(
            f"{generated} samples are written by tomflywheel's generators from symbolic "
            "traces: no benchmark text is copied into them."
        )
    for label in sorted(set(datasets) | seeds):
        entry = license_of(label)
        if entry is None:
            continue
        role = f"{datasets[label]} samples" if label in datasets else "seeded failures"
        line = f"`{_esc(label)}` ({role}): {_esc(entry.line)}"
        if label in datasets and entry.training == "forbidden":
            line += (
                " — its authors forbid training on it; admitted only because the filter ran "
                "with `--allow-license-override`"
            )
        lines.append(line)
    unknown = sorted(
        d for d in datasets if not d.endswith(GENERATED_SUFFIX) and license_of(d) is None
    )
    if unknown:
        lines.append(f"license not known to tomflywheel for: {_esc(', '.join(unknown))}")
    return lines or ["no samples"]


def _label_lines(entry: Mapping[str, Any]) -> list[str]:
    """The label table (as the filter printed it), the changed labels and the conventions."""
    labels = entry.get("labels", {})
    statuses = ["verified", "convention", "repaired", "dropped", "llm_confirmed", "unverified"]
    rows = [
        [_esc(dataset), str(row.get("candidates", 0))]
        + [str(row.get(status, 0)) for status in statuses]
        + [str(row.get("admitted", 0))]
        for dataset, row in sorted(labels.items())
    ]
    lines = _table(["dataset", "samples", *statuses, "admitted"], rows)
    notes = []
    changes = entry.get("label_changes") or {}
    if changes.get("count"):
        kinds = ", ".join(f"{kind} {n}" for kind, n in changes.get("by_kind", {}).items())
        notes.append(
            f"{changes['count']} admitted samples carry a changed label ({kinds}): each is "
            f"listed, with old and new answers, why and profile, in `{changes['file']}` "
            "(shipped with the data) and in its `meta.label_repair`"
        )
    else:
        notes.append("no admitted label was changed")
    for dataset, row in sorted(labels.items()):
        for reason, n in (row.get("why") or {}).get("repaired", {}).items():
            notes.append(f"`{_esc(dataset)}` changed {n}: {_esc(reason)}")
    conventions = entry.get("conventions") or {}
    if conventions.get("count"):
        follows = ", ".join(f"{_esc(who)} {n}" for who, n in conventions.get("follows", {}).items())
        notes.append(
            f"{conventions['count']} admitted samples keep a convention-dependent gold "
            f"(`meta.convention`; the gold follows the rules of: {follows}): the rule profiles "
            "disagree on them, so they were kept as given; `filter --profile NAME` resolves "
            "them to one profile's rules"
        )
    return [*lines, "", *_bullets(notes)]


def _counts(counter: Counter[str]) -> str:
    return ", ".join(
        f"{key} {n}" for key, n in sorted(counter.items(), key=lambda p: (-p[1], p[0]))
    )


def _esc(text: str) -> str:
    """Text from the data, safe in a card rendered as HTML (``<``, ``>`` and ``&`` escaped)."""
    return html.escape(str(text), quote=False)


def _bullets(lines: Sequence[str]) -> list[str]:
    return [f"- {line}" for line in lines]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    if not rows:
        return ["(none)"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return lines + [
        "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows
    ]
