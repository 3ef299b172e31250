"""World-engine throughput: tgtom-style stories per second, generated and checked.

(a) generating temporal-belief-graph-style stories with all 12 question types (the samples,
    rendered and traced, as ``tomflywheel datasets generate tgtom`` writes them);
(b) checking them with both verifiers: every question re-derived by the forward tracker and by
    the temporal belief graph from the traces, and compared with the samples' gold.

The public reference scripts of that benchmark, on this kind of machine, do (a) at about 246
stories/s and (b) at about 1,600 stories/s.

Usage: python bench/world.py [--n 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time
from itertools import groupby

from tomflywheel.world import Answerer, QuestionSpec, Story, answer_text, generate

REFERENCE_GENERATE = 246.0
REFERENCE_CHECK = 1600.0


def check(samples: list) -> int:
    """Re-derive every sample with both verifiers, one walk per story variant; return failures."""
    failures = 0
    for _, group in groupby(samples, key=lambda s: s.meta["trace"]["story_index"]):
        batch = list(group)
        trace = batch[0].meta["trace"]
        story = Story.from_dict(trace["story"])
        specs = [QuestionSpec.from_dict(s.meta["trace"]["question"]) for s in batch]
        tracker, graph = Answerer(story, trace["profile"]).answer_both(specs)
        for sample, a, b in zip(batch, tracker, graph, strict=True):
            if a != b or answer_text(a) not in sample.answer.correct_answers:
                failures += 1
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="stories")
    parser.add_argument("--seed", type=int, default=0, help="generator seed")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best one counts")
    args = parser.parse_args()

    generated = generated_wall = checked = checked_wall = 0.0
    for _ in range(args.repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        samples = list(generate("tgtom", n=args.n, seed=args.seed))
        generated = max(generated, args.n / (time.process_time() - cpu))
        generated_wall = max(generated_wall, args.n / (time.perf_counter() - wall))

        wall, cpu = time.perf_counter(), time.process_time()
        failures = check(samples)
        checked = max(checked, args.n / (time.process_time() - cpu))
        checked_wall = max(checked_wall, args.n / (time.perf_counter() - wall))

    print(f"stories: {args.n}, samples: {len(samples)}, check failures: {failures}")
    print(
        f"(a) generate tgtom, all 12 question types: {generated:,.0f} stories/s "
        f"({generated / REFERENCE_GENERATE:.1f}x the reference {REFERENCE_GENERATE:,.0f}); "
        f"wall clock {generated_wall:,.0f} stories/s"
    )
    print(
        f"(b) check with both verifiers:             {checked:,.0f} stories/s "
        f"({checked / REFERENCE_CHECK:.1f}x the reference {REFERENCE_CHECK:,.0f}); "
        f"wall clock {checked_wall:,.0f} stories/s"
    )
    print(
        f"stories/s per CPU second of this process, best of {args.repeat} runs "
        "(wall clock also shown: the machine may be shared)"
    )


if __name__ == "__main__":
    main()
