"""Near-duplicate detection of the filter: throughput on 100k synthetic samples, and recall.

Builds ``--samples`` engine-made samples (ToMi-, Hi-ToM- and tgtom-style: several questions per
story, as synthetic data has), plants ``--planted`` lightly edited copies of random samples at
random later positions, and runs exactly what the filter's duplicate checks do: features and
MinHash signatures in bulk, then for each item in order an exact and a near-duplicate query
against everything before it (MinHash LSH proposes, exact shingle Jaccard confirms), and an
insert when it is new. Prints samples/s, recall on the planted copies (per kind of edit) and
how many unplanted items were flagged.

    python bench/filter_dedup.py                       # 100k samples, 1,000 planted copies
    python bench/filter_dedup.py --samples 20000 --planted 500 --out /tmp/dedup.txt

What it prints is also written to ``bench/results/filter_dedup.txt`` (``--out``) under the
command and commit.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from pathlib import Path

from provenance import ROOT, recorded
from tomflywheel._gc import frozen_heap
from tomflywheel._rng import rng_for
from tomflywheel.filter import DedupSettings, DuplicateIndex
from tomflywheel.schema import Sample
from tomflywheel.world import generate

MIX = (("tomi", 0.7), ("hitom", 0.2), ("tgtom", 0.1))


def engine_samples(total: int, seed: int) -> list[Sample]:
    """About ``total`` samples in the MIX proportions, deterministic."""
    out: list[Sample] = []
    for kind, share in MIX:
        want = int(total * share) if kind != MIX[-1][0] else total - len(out)
        stories = 1
        while True:  # grow the story count until the generator yields enough samples
            batch = []
            for item in generate(kind, n=stories, seed=seed):
                batch.append(item)
                if len(batch) == want:
                    break
            if len(batch) == want:
                break
            stories = max(stories * 2, int(stories * want / max(1, len(batch))) + 1)
        out += batch
    return out


def _swap_container(story: str, rng) -> str:
    containers = sorted(set(re.findall(r"\b[a-z]+_[a-z_]+\b", story)))
    return story.replace(rng.choice(containers), "red_envelope", 1) if containers else story


def _insert_sentence(story: str, rng) -> str:
    lines = story.splitlines()
    lines.insert(rng.randrange(len(lines) + 1), "Zelda likes the lime.")
    return "\n".join(lines)


def _reword_verb(story: str, rng) -> str:
    return story.replace(" entered ", " walked into ", 1).replace(" moved ", " carried ", 1)


def _reformat(story: str, rng) -> str:
    # Line numbers dropped, case and punctuation changed: an exact duplicate once normalized.
    return re.sub(r"^\d+ ", "", story, flags=re.MULTILINE).upper().replace(".", " !")


EDITS = {
    "swap_container": _swap_container,
    "insert_sentence": _insert_sentence,
    "reword_verbs": _reword_verb,
    "reformat": _reformat,
    "reword_question": None,  # the story kept, the question reworded: "So, where ...?"
}


def plant(samples: list[Sample], count: int, seed: int) -> tuple[list[Sample], dict[str, str]]:
    """Insert ``count`` edited copies after their originals; returns items and copy -> edit."""
    rng = rng_for("bench-filter-dedup", seed)
    items = list(samples)
    kinds: dict[str, str] = {}
    for number in range(count):
        position = rng.randrange(len(items) - 1)
        original = items[position]
        kind = sorted(EDITS)[number % len(EDITS)]
        edit = EDITS[kind]
        update = {"id": f"planted-{number}"}
        if edit is None:
            update["question"] = "So, " + original.question[:1].lower() + original.question[1:]
        else:
            update["story"] = edit(original.story, rng)
        copy = original.model_copy(update=update)
        items.insert(rng.randrange(position + 1, len(items) + 1), copy)
        kinds[copy.id] = kind
    return items, kinds


def detect(items: list[Sample], settings: DedupSettings) -> tuple[dict[str, str], float, float]:
    """The filter's duplicate pass; returns flagged id -> 'exact' | 'near', wall and CPU seconds."""
    started, cpu = time.perf_counter(), time.process_time()
    index = DuplicateIndex(settings)
    flagged: dict[str, str] = {}
    with frozen_heap():  # as the filter's first pass runs
        for position, (item, (feats, signature)) in enumerate(
            zip(items, index.features_many(items), strict=True)
        ):
            if index.exact(feats, before=position) is not None:
                flagged[item.id] = "exact"
            elif index.near(feats, signature, before=position) is not None:
                flagged[item.id] = "near"
            else:
                index.add(position, item.id, feats, signature)
    return flagged, time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000, help="Engine-made samples.")
    parser.add_argument("--planted", type=int, default=1_000, help="Edited copies planted.")
    parser.add_argument("--seed", type=int, default=1, help="Generator and planting seed.")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/filter_dedup.txt")
    args = parser.parse_args()
    with recorded(args.out, "the filter's duplicate finding: throughput and recall"):
        run(args)


def run(args: argparse.Namespace) -> None:
    """Build, plant, detect, print."""
    settings = DedupSettings()
    base = engine_samples(args.samples, args.seed)
    items, kinds = plant(base, args.planted, args.seed)
    flagged, seconds, cpu_seconds = detect(items, settings)
    found = Counter(kinds[i] for i in flagged if i in kinds)
    planted = Counter(kinds.values())
    false_flags = sum(1 for i in flagged if i not in kinds)
    stories = len({s.story for s in base})
    print(
        f"items: {len(items):,} ({len(base):,} engine samples over {stories:,} stories "
        f"+ {len(kinds):,} planted copies); threshold {settings.near_duplicate_threshold}, "
        f"{settings.num_perm} permutations, {settings.shingle_size}-word shingles"
    )
    print(
        f"throughput: {len(items) / seconds:,.0f} samples/s ({seconds:.1f} s wall); "
        f"{len(items) / cpu_seconds:,.0f} per CPU second of this process (the machine is shared)"
    )
    print(f"recall on planted near-duplicates: {sum(found.values()) / len(kinds):.3f}")
    for kind in sorted(planted):
        print(f"  {kind:16s} {found[kind]:5d} / {planted[kind]:5d}")
    print(f"unplanted items flagged: {false_flags:,} (duplicates the generators made themselves)")


if __name__ == "__main__":
    main()
