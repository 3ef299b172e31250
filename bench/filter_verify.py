"""Curating datasets nobody here made: the filter's label verification on the public benchmarks.

Imports each benchmark from its own files (``--benchmarks``, default ``../shared/benchmarks``),
runs ``filter --no-llm`` on it exactly as the command does (balancing off, as for a curated
external set; no contamination guard, since the set is its own evaluation set) and prints, per
run, the label table (verified / repaired / dropped / unverified) and every disagreement with
the engine's explanation. Then:

- throughput of the symbolic label checks alone (the engine's reading, samples/s);
- planted errors: 50 golds of the ToMi test split flipped to the story's other place, how many
  the filter finds and repairs back, and how many correct labels it changes;
- a mapping import (Social IQa through the generic importer) and OpenToM (``--opentom DIR``,
  when its files are at hand): counts of unverified items, and that every candidate has a
  verdict (nothing dropped silently).

What it prints is also written to ``bench/results/filter_verify.txt`` (``--out``) under the
command and commit.

    python bench/filter_verify.py
    python bench/filter_verify.py --show 20 --opentom ~/data/opentom_data
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from provenance import recorded
from tomflywheel._rng import rng_for
from tomflywheel.config import Settings
from tomflywheel.datasets import import_dataset, load_benchmark
from tomflywheel.filter import FilterRun, FilterSettings, FilterSummary, read_candidates, run_filter
from tomflywheel.filter.checks import read_engine_labels
from tomflywheel.schema import Sample

ROOT = Path(__file__).resolve().parents[1]


def filter_settings(**changes: object) -> FilterSettings:
    """The filter settings of a curation run: no balancing, no contamination guard."""
    data: dict = {"audit": {"enforce": False}, "disabled_checks": ["contamination"]}
    data.update(changes)
    return FilterSettings.model_validate(data)


def write(samples: list[Sample], path: Path) -> Path:
    """Samples to a JSONL file."""
    path.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
    return path


def curate(path: Path, work: Path, name: str, **changes: object) -> FilterSummary:
    """``filter --no-llm`` on one file, into its own training folder."""
    return run_filter(
        FilterRun(
            settings=Settings(filter=filter_settings(**changes)),
            input_path=path,
            name=name,
            use_llm=False,
            train_dir=work / f"train_{name}",
            eval_dir=work / "none",
        )
    )


def disagreements(summary: FilterSummary) -> list[tuple[str, str, str]]:
    """(sample id, question type, the engine's word) of every label it did not verify as given."""
    found = []
    for verdict in summary.verdicts:
        for result in verdict.attempts[0].checks:
            if result.check != "engine_label" or result.status.value == "skipped":
                continue
            if result.failed or result.detail.startswith("repaired:"):
                meta = verdict.sample.meta if verdict.sample else {}
                qtype = meta.get("question_type") or f"order_{meta.get('order', '?')}"
                found.append((verdict.sample_id, str(qtype), result.detail))
    return found


def report(title: str, summary: FilterSummary, seconds: float, *, show: int | None) -> None:
    """The label table of one run and its disagreements (all, or the first ``show``)."""
    print(
        f"\n== {title}: {summary.candidates:,} candidates, filtered in {seconds:.1f} s "
        f"({summary.candidates / seconds:,.0f} samples/s end to end)"
    )
    for row in summary.labels:
        counts = ", ".join(f"{k} {v:,}" for k, v in row.counts.items() if v)
        share = row.counts["verified"] / row.candidates if row.candidates else 0.0
        print(
            f"   {row.dataset}: {counts}; verified as given {share:.2%}; admitted {row.admitted:,}"
        )
        for status, reasons in sorted(row.why.items()):
            for why, n in reasons.items():
                print(f"     {status} {n:,}: {why}")
    print(
        f"   verdicts {len(summary.verdicts):,} for {summary.candidates:,} candidates; "
        f"rejected by check: {summary.reasons_by_check or '-'}"
    )
    found = disagreements(summary)
    listed = found if show is None else found[:show]
    if found:
        print(
            f"   {len(found)} disagreements with the gold as given"
            + ("" if len(listed) == len(found) else f" (first {len(listed)}; --show all)")
        )
    for sample_id, qtype, detail in listed:
        print(f"     {sample_id} {qtype}: {detail}")


def timed(function, *args, **kwargs):
    """A call's result and its wall time in seconds."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def throughput(paths: dict[str, Path]) -> None:
    """Samples/s through the symbolic label checks (the engine's reading, repairs included)."""
    print("\n== symbolic label checks alone (read_engine_labels: parse, derive, compare)")
    for name, path in paths.items():
        candidates = list(read_candidates(path))
        best = min(timed(read_engine_labels, candidates, filter_settings())[1] for _ in range(3))
        print(
            f"   {name}: {len(candidates):,} samples in {best:.2f} s = "
            f"{len(candidates) / best:,.0f} samples/s (best of 3)"
        )


def flipped(sample: Sample) -> Sample:
    """The sample with the other of ToMi's two candidate places as its gold."""
    gold = sample.answer.correct_answers[0]
    other = next(place for place in sample.meta["candidates"] if place != gold)
    answer = {"correct_answers": [other, other.replace("_", " ")], "wrong_answers": []}
    return Sample.model_validate({**sample.model_dump(mode="json"), "answer": answer})


def planted(tomi: list[Sample], work: Path, count: int) -> None:
    """Flip ``count`` golds, filter, and count what was found, repaired back, and changed."""
    chosen = set(rng_for("bench-filter-verify", "planted").sample(range(len(tomi)), count))
    rows = [flipped(s) if i in chosen else s for i, s in enumerate(tomi)]
    summary = curate(write(rows, work / "tomi_planted.jsonl"), work, "tomi_planted")
    admitted = {
        record["id"]: record
        for record in map(json.loads, summary.admitted_path.read_text().splitlines())
    }
    found = {
        i for i, s in enumerate(tomi) if "label_repair" in admitted.get(s.id, {}).get("meta", {})
    }
    back = sum(
        admitted[s.id]["answer"]["correct_answers"] == s.answer.correct_answers
        for i, s in enumerate(tomi)
        if i in chosen and s.id in admitted
    )
    changed = sum(
        s.id not in admitted
        or admitted[s.id]["answer"]["correct_answers"] != s.answer.correct_answers
        for i, s in enumerate(tomi)
        if i not in chosen
    )
    print(f"\n== planted errors: {count} of {len(tomi):,} ToMi test golds flipped")
    print(
        f"   found {len(found & chosen)}/{count}, repaired back {back}/{count}, "
        f"correct labels changed or lost {changed}, flagged though correct "
        f"{len(found - chosen)}"
    )


def mapping_import(benchmarks: Path, work: Path) -> None:
    """Social IQa through the generic mapping importer, then ``filter --no-llm``."""
    folder = benchmarks / "socialiqa"
    labels = (folder / "dev-labels.lst").read_text(encoding="utf-8").split()
    rows = [json.loads(line) for line in (folder / "dev.jsonl").open(encoding="utf-8")]
    data = work / "siqa_records.jsonl"
    with data.open("w", encoding="utf-8") as handle:
        for n, (row, label) in enumerate(zip(rows, labels, strict=True)):
            choices = [row["answerA"], row["answerB"], row["answerC"]]
            record = {
                "qid": f"siqa-{n}",
                "context": row["context"],
                "q": row["question"],
                "choices": choices,
                "gold": int(label) - 1,
            }
            handle.write(json.dumps(record) + "\n")
    mapping = work / "siqa.yaml"
    mapping.write_text(
        "name: siqa_mapped\nfields:\n  id: qid\n  story: context\n  question: q\n"
        "  options: choices\n  label: gold\n  label_format: index0\ntask:\n  judge: rules\n",
        encoding="utf-8",
    )
    out = work / "siqa_mapped.jsonl"
    import_dataset("mapping", data, out=out, mapping=mapping)
    for admit in (False, True):
        summary, seconds = timed(
            curate, out, work, f"siqa_{admit}", label={"admit_unverified": admit}
        )
        report(
            f"mapping import (Social IQa), label.admit_unverified={admit}", summary, seconds, show=0
        )


def opentom(folder: Path | None, work: Path) -> None:
    """OpenToM from its release folder, when given: import, filter admitting unverified."""
    if folder is None or not folder.is_dir():
        print(
            "\n== OpenToM: files not found here (pass --opentom DIR, the release's "
            "data/opentom_data/); not measured"
        )
        return
    out = work / "opentom.jsonl"
    import_dataset("opentom", folder, out=out)
    summary, seconds = timed(curate, out, work, "opentom", label={"admit_unverified": True})
    report("OpenToM", summary, seconds, show=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("TOMFLYWHEEL_BENCHMARKS") or ROOT.parent / "shared" / "benchmarks"
    parser.add_argument("--benchmarks", type=Path, default=Path(default))
    parser.add_argument("--opentom", type=Path, default=None, help="OpenToM's opentom_data/")
    parser.add_argument("--show", default="10", help="disagreements to list per run, or 'all'")
    parser.add_argument("--planted", type=int, default=50, help="golds to flip")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/filter_verify.txt")
    args = parser.parse_args()
    with recorded(args.out, "curating datasets nobody here made: filter --no-llm, benchmarks"):
        run(args)


def run(args: argparse.Namespace) -> None:
    """Every measurement, printed."""
    show = None if args.show == "all" else int(args.show)
    root = args.benchmarks
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tomi = load_benchmark("tomi", root / "tomi" / "tomi_balanced_story_types", split="test")
        hitom = load_benchmark("hitom", root / "hitom" / "Hi-ToM_data.json")
        tgtom = load_benchmark("tgtom", root / "tgtom")
        paths = {
            "tomi": write(tomi, work / "tomi_test.jsonl"),
            "hitom": write(hitom, work / "hitom.jsonl"),
            "tgtom": write(tgtom, work / "tgtom.jsonl"),
        }
        runs = [
            ("ToMi test, profile auto (tomi)", "tomi", "tomi_auto", {}, show),
            (
                "ToMi test, profile default",
                "tomi",
                "tomi_default",
                {"answer_profile": "default", "label": {"contradicted": "drop"}},
                show,
            ),
            ("Hi-ToM (CoTP), profile auto (hitom)", "hitom", "hitom_auto", {}, None),
            ("tgtom (100 stories), profile auto (tgtom)", "tgtom", "tgtom_auto", {}, None),
        ]
        for title, source, name, changes, limit in runs:
            summary, seconds = timed(curate, paths[source], work, name, **changes)
            report(title, summary, seconds, show=limit)
            if name == "tomi_default":
                kinds = Counter(
                    detail.split(" under default (", 1)[-1].split(":")[0]
                    for _, _, detail in disagreements(summary)
                )
                print(f"   by convention behind them: {dict(kinds)}")
        throughput(paths)
        planted(tomi, work, args.planted)
        mapping_import(root, work)
        opentom(args.opentom, work)


if __name__ == "__main__":
    main()
