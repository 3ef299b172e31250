"""Curation a maintainer can trust: what ``filter --no-llm`` changes on public benchmarks.

For ToMi's test split (the release), a *principled copy* of it (the release's 464
convention-dependent second-order golds relabelled as the principled rules answer, as a corrected
public copy labels them) and Hi-ToM (CoTP, 600), under each answer profile:

- as given: labels verified, convention-dependent (kept), changed (by kind), dropped; how many
  *correct* labels (a gold some profile's rules give) were changed, and how many of those only
  because a profile was named explicitly (``--profile``) to resolve a convention; the shortcut
  audit's second-order true-location accuracy of what is admitted;
- planted errors of every kind, seeded per set (``rng_for``): *another place of the story* no
  profile gives (an error: found? repaired back, every alias included?), *a convention's answer*
  on a convention-dependent question (kept and marked convention-dependent, never counted
  verified?), *a dropped alias* (``green_bucket`` without ``green bucket``: restored?); and the
  collateral: correct unplanted labels changed.

Everything is decided by ``run_filter`` as the command runs it (balancing off, no contamination
guard; the audit's learned probe is left out, its heuristics kept). The figures are printed and
written to ``bench/results/curate.txt`` (``--out``) under the command and commit. Only public
attributes are read, so the same script measures an older checkout
(``PYTHONPATH=<old>/src python bench/curate.py --out /tmp/before.txt``).

    python bench/curate.py
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from provenance import recorded
from tomflywheel._rng import rng_for
from tomflywheel.config import Settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.filter import FilterSettings, run_filter
from tomflywheel.schema import Sample
from tomflywheel.world import read_labels

try:
    from tomflywheel.filter import FilterRun
except ImportError:  # a checkout before run_filter took one FilterRun (issue 53)
    FilterRun = None  # type: ignore[assignment,misc]

ROOT = Path(__file__).resolve().parents[1]
OWN = {"tomi": "tomi", "hitom": "hitom"}
_WORDS = re.compile(r"[\W_]+")
KINDS = ("other_place", "convention", "alias")


def norm(text: str) -> str:
    """An answer compared across written forms (``green_bucket`` = ``green bucket``)."""
    return " ".join(w for w in _WORDS.sub(" ", text.lower()).split() if w not in ("a", "the"))


def with_gold(sample: Sample, correct: list[str], wrong: list[str] | None = None) -> Sample:
    """The sample with another answer."""
    answer = {"correct_answers": correct, "wrong_answers": sample.answer.wrong_answers}
    if wrong is not None:
        answer["wrong_answers"] = wrong
    return Sample.model_validate({**sample.model_dump(mode="json"), "answer": answer})


def forms(place: str) -> list[str]:
    """A ToMi place as the importer writes it: as written, then spaced."""
    spaced = place.replace("_", " ")
    return [place] if spaced == place else [place, spaced]


@dataclass
class Item:
    """One question: what each reference profile answers, and whether the gold is supported."""

    answers: dict[str, str]
    """``default`` and the benchmark's own profile, by name: the answer text."""
    every: set[str]
    """Every profile's answer (normalized)."""

    @property
    def dependent(self) -> bool:
        """The reference profiles disagree (a convention decides the answer)."""
        return len({norm(a) for a in self.answers.values()}) > 1


def items_of(samples: list[Sample], own: str) -> list[Item]:
    """Each question's answers under the default, its own and every profile."""
    names = ("default", "hitom", "tgtom", "tomi")
    by_profile = {name: list(read_labels(samples, profile=name)) for name in names}
    return [
        Item(
            {name: by_profile[name][i].answer_text for name in ("default", own)},
            {norm(by_profile[name][i].answer_text) for name in names},
        )
        for i in range(len(samples))
    ]


def supported(sample: Sample, item: Item) -> bool:
    """Whether some profile's rules give the gold (a correct label under some convention)."""
    return any(norm(gold) in item.every for gold in sample.answer.correct_answers)


def principled_copy(samples: list[Sample], items: list[Item]) -> list[Sample]:
    """ToMi as a corrected copy labels it: convention-dependent golds as ``default`` answers."""
    return [
        with_gold(s, forms(item.answers["default"])) if item.dependent else s
        for s, item in zip(samples, items, strict=True)
    ]


def plant(
    samples: list[Sample], items: list[Item], name: str, count: int
) -> tuple[list[Sample], dict[int, str]]:
    """Planted errors of every kind (``count`` each, where the set allows), seeded by name."""
    rng = rng_for("bench-curate-plants", name)
    rows, kinds = list(samples), {}
    pools: dict[str, list[tuple[int, Sample]]] = {kind: [] for kind in KINDS}
    for i, (s, item) in enumerate(zip(samples, items, strict=True)):
        if not supported(s, item):
            continue  # the benchmark's own error: no clean place to plant
        for kind in KINDS:
            made = _planted(s, item, kind)
            if made is not None:
                pools[kind].append((i, made))
    for kind in KINDS:
        free = [(i, made) for i, made in pools[kind] if i not in kinds]
        for i, made in rng.sample(free, min(count, len(free))):
            kinds[i] = kind
            rows[i] = made
    return rows, kinds


def _planted(sample: Sample, item: Item, kind: str) -> Sample | None:
    """The sample with a planted error of ``kind``, or None where it cannot have one."""
    gold = sample.answer.correct_answers
    options = sample.answer.wrong_answers
    if kind == "alias":  # open answers written in two forms only
        return with_gold(sample, gold[:1]) if not options and len(gold) > 1 else None
    if kind == "other_place":  # a place of the story no profile gives
        targets = [p for p in sample.meta.get("candidates", []) if norm(p) not in item.every]
    elif item.dependent:  # the reference answer the gold does not follow
        targets = [a for a in item.answers.values() if norm(a) not in {norm(g) for g in gold}]
    else:
        return None
    if not options:
        return with_gold(sample, forms(targets[0])) if targets else None
    targets = [t for t in targets if t in options]  # a choice question: swap with the option
    if not targets or len(gold) != 1:
        return None
    return with_gold(sample, [targets[0]], [gold[0] if w == targets[0] else w for w in options])


@dataclass
class Outcome:
    """What one filter run did to its input."""

    seconds: float
    labels: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    admitted: dict[str, dict] = field(default_factory=dict)
    audit: dict[str, float] = field(default_factory=dict)


def run(rows: list[Sample], work: Path, name: str, profile: str) -> Outcome:
    """``filter --no-llm --no-balance --profile P`` on ``rows``, contamination off."""
    source = work / f"{name}.jsonl"
    source.write_text("".join(s.model_dump_json() + "\n" for s in rows), encoding="utf-8")
    settings = FilterSettings.model_validate(
        {
            "answer_profile": profile,
            "audit": {"enforce": False, "probe": False},  # the heuristics are enough here
            "disabled_checks": ["contamination"],
        }
    )
    choices: dict[str, Any] = {
        "input_path": source,
        "name": name,
        "use_llm": False,
        "train_dir": work / "train",
        "eval_dir": work / "none",
    }
    start = time.perf_counter()
    if FilterRun is None:  # an older checkout: run_filter took the filter settings apart
        older: Callable[..., Any] = run_filter
        summary = older(Settings(), filter_settings=settings, **choices)
    else:
        summary = run_filter(FilterRun(settings=Settings(filter=settings), **choices))
    outcome = Outcome(time.perf_counter() - start)
    for row in summary.labels:
        outcome.labels.update({k: v for k, v in row.counts.items() if v})
    outcome.admitted = {
        record["id"]: record
        for record in map(json.loads, summary.admitted_path.read_text().splitlines())
    }
    for record in outcome.admitted.values():
        repair = record["meta"].get("label_repair")
        if repair:
            outcome.kinds[repair.get("kind", "unrecorded")] += 1
    manifest = json.loads(summary.manifest_path.read_text())["datasets"][name]
    for row in manifest.get("audit", {}).get("admitted", {}).get("rows", []):
        if row["heuristic"] == "true_location":
            outcome.audit[row["family"]] = row["accuracy"]
    return outcome


def answers(record: dict | None) -> list[str] | None:
    return None if record is None else record["answer"]["correct_answers"]


def changed(original: Sample, outcome: Outcome) -> bool:
    """Whether the admitted label differs from the input's (or the sample was not admitted)."""
    return answers(outcome.admitted.get(original.id)) != original.answer.correct_answers


def explicit(original: Sample, outcome: Outcome) -> bool:
    """Whether a change resolved a convention toward a profile the user named."""
    record = outcome.admitted.get(original.id)
    repair = (record or {}).get("meta", {}).get("label_repair") or {}
    return repair.get("kind") == "convention"


def as_given(name: str, rows: list[Sample], items: list[Item], work: Path, profile: str) -> None:
    """One run on the set as given: label statuses, correct labels changed, the audit."""
    outcome = run(rows, work, f"{name}_{profile}", profile)
    correct = [s for s, item in zip(rows, items, strict=True) if supported(s, item)]
    moved = [s for s in correct if changed(s, outcome)]
    asked = sum(explicit(s, outcome) for s in moved)
    second = next((v for k, v in outcome.audit.items() if "second_order" in k), None)
    statuses = ", ".join(f"{k} {v:,}" for k, v in sorted(outcome.labels.items()))
    kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(outcome.kinds.items())) or "none"
    audit = f"; second-order true-location {second:.1%}" if second is not None else ""
    print(
        f"  {profile:8s} correct labels changed {len(moved):,} of {len(correct):,} "
        f"({asked:,} resolved to the named profile); labels: {statuses}; changes by kind: "
        f"{kinds}{audit} [{outcome.seconds:.1f} s]"
    )


def planted(
    name: str, rows: list[Sample], items: list[Item], work: Path, profile: str, count: int
) -> None:
    """One run on the set with planted errors: found, repaired back, kept, collateral."""
    dirty, kinds = plant(rows, items, name, count)
    outcome = run(dirty, work, f"{name}_planted_{profile}", profile)
    parts = []
    for kind in KINDS:
        chosen = [i for i, k in kinds.items() if k == kind]
        if not chosen:
            continue
        found = back = marked = verified = 0
        for i in chosen:
            record = outcome.admitted.get(rows[i].id)
            meta = (record or {}).get("meta", {})
            marks = kind == "convention" and "convention" in meta
            found += record is None or "label_repair" in meta or marks
            back += answers(record) == rows[i].answer.correct_answers
            kept = answers(record) == dirty[i].answer.correct_answers
            marked += kept and "convention" in meta
            verified += kept and "convention" not in meta and "label_repair" not in meta
        text = f"{kind}: found {found}/{len(chosen)}, repaired back {back}"
        if kind == "convention":
            text += f", kept and marked {marked}, counted verified {verified}"
        parts.append(text)
    clean = [
        s
        for i, (s, item) in enumerate(zip(rows, items, strict=True))
        if i not in kinds and supported(s, item)
    ]
    moved = [s for s in clean if changed(s, outcome)]
    asked = sum(explicit(s, outcome) for s in moved)
    print(
        f"  {profile:8s} {'; '.join(parts)}; collateral (correct unplanted labels changed) "
        f"{len(moved) - asked:,} (+{asked:,} resolved to the named profile) "
        f"[{outcome.seconds:.1f} s]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=Path, default=ROOT.parent / "shared" / "benchmarks")
    parser.add_argument("--plants", type=int, default=60, help="Planted errors per kind.")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "curate.txt")
    args = parser.parse_args()
    with recorded(args.out, "bench/curate.py: labels changed, kept and found, per profile"):
        bench(args)


def bench(args: argparse.Namespace) -> None:
    tomi = load_benchmark("tomi", args.benchmarks / "tomi" / "tomi_balanced_story_types")
    hitom = load_benchmark("hitom", args.benchmarks / "hitom" / "Hi-ToM_data.json")
    tomi_items = items_of(tomi, "tomi")
    sets = {
        "tomi": (tomi, tomi_items, ("auto", "default", "tomi")),
        "tomi_principled": (
            principled_copy(tomi, tomi_items),
            tomi_items,
            ("auto", "default", "tomi"),
        ),
        "hitom": (hitom, items_of(hitom, "hitom"), ("auto", "default", "hitom")),
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, (rows, items, profiles) in sets.items():
            dependent = sum(item.dependent for item in items)
            wrong = sum(not supported(s, item) for s, item in zip(rows, items, strict=True))
            print(
                f"\n== {name}: {len(rows):,} questions, {dependent:,} convention-dependent "
                f"(default and the benchmark's own profile disagree), {wrong:,} golds no "
                "profile gives (the benchmark's own errors)"
            )
            print(" as given:")
            for profile in profiles:
                as_given(name, rows, items, work, profile)
            print(f" planted ({args.plants} per kind where the set allows):")
            for profile in profiles:
                planted(name, rows, items, work, profile, args.plants)


if __name__ == "__main__":
    main()
