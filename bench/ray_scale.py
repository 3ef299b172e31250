"""Generate + verify + dedup on N stories: the local executor against Ray with 1 and 2 workers.

One run measures, on the same plan: symbolic synthesis (every story generated and its answers
derived by both verifiers) and the filter's per-candidate work with near-duplicate detection
(record checks, symbolic label re-verification, MinHash LSH, exact Jaccard), with the LLM
checks and the shortcut balance off (they run on the driver whichever executor is chosen).
Ray's fixed start-up cost (``ray.init`` plus the first, worker-starting dataset) is measured
apart. Every executor's candidates and admitted files are compared byte for byte.

    python bench/ray_scale.py                  # a plan of 2,000 samples
    python bench/ray_scale.py --budget 20000 --workers 1 2 4
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.cluster import map_blocks, ray_session
from tomflywheel.config import FeedbackSettings, RaySettings, Settings
from tomflywheel.feedback import SynthesisPlan, build_plan, synthesize
from tomflywheel.feedback._synthesize_ray import synthesize_on_ray
from tomflywheel.filter import FilterRun, run_filter
from tomflywheel.schema import Diagnosis, ErrorCategory


def plan_for(budget: int) -> SynthesisPlan:
    """A plan over ToMi, Hi-ToM and tgtom weaknesses spending ``budget`` samples."""

    def diagnosis(n: int, dataset: str, category: ErrorCategory, order: int, qtype: str | None):
        return Diagnosis(
            dataset=dataset,
            sample_id=f"s{n}",
            reason="wrong",
            method="symbolic",
            category=category,
            order=order,
            question_type=qtype,
        )

    diagnoses = [
        *(diagnosis(n, "tomi_test", ErrorCategory.REALITY_BIAS, 2, None) for n in range(6)),
        *(diagnosis(10 + n, "hitom", ErrorCategory.ORDER_CONFUSION, 3, None) for n in range(3)),
        diagnosis(20, "tgtom", ErrorCategory.UNSUPPORTED, 5, "Q6"),
    ]
    tasks = {"tomi_test": "tomi", "hitom": "hitom", "tgtom": "tgtom"}
    return build_plan(diagnoses, tasks, FeedbackSettings(budget=budget))


def stories_in(samples) -> int:  # type: ignore[no-untyped-def]
    return len({(s.meta["lineage"]["seed"], s.meta["trace"]["story_index"]) for s in samples})


def one_run(plan: SynthesisPlan, settings: Settings, folder: Path) -> tuple[float, list]:
    """Seconds for synthesis then the filter; the candidates."""
    start = time.perf_counter()
    if settings.executor == "ray":
        candidates, _ = synthesize_on_ray(
            plan, folder, block=settings.ray.synthesis_block, with_rationale=True
        )
    else:
        candidates = synthesize(plan)
    write_jsonl_atomic(folder / "candidates.jsonl", candidates)
    run_filter(
        FilterRun(
            settings=settings,
            input_path=folder / "candidates.jsonl",
            use_llm=False,
            train_dir=folder / "train",
            eval_dir=folder / "no-eval",
        )
    )
    return time.perf_counter() - start, candidates


def _noop(payload: bytes) -> bytes:
    return payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=2000, help="Samples the plan asks for.")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Ray CPUs.")
    parser.add_argument("--block", type=int, default=32, help="Stories per synthesis block.")
    args = parser.parse_args()
    plan = plan_for(args.budget)
    base = Settings()
    base.filter.audit.enforce = False
    rows: list[tuple[str, float, float | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        seconds, candidates = one_run(plan, base, root / "local")
        stories, samples = stories_in(candidates), len(candidates)
        reference = (root / "local" / "train" / "candidates.jsonl").read_bytes()
        rows.append(("local", seconds, None))
        for workers in args.workers:
            ray = RaySettings(num_cpus=workers, synthesis_block=args.block)
            settings = base.model_copy(update={"executor": "ray", "ray": ray})
            start = time.perf_counter()
            with ray_session(ray):
                list(map_blocks(_noop, [(n, b"") for n in range(workers)]))  # start workers
                startup = time.perf_counter() - start
                folder = root / f"ray-{workers}"
                seconds, _ = one_run(plan, settings, folder)
            same = (folder / "train" / "candidates.jsonl").read_bytes() == reference
            assert same, f"ray with {workers} worker(s) admitted other bytes than local"
            rows.append((f"ray {workers} worker{'s' if workers > 1 else ''}", seconds, startup))
    print(f"plan: {samples:,} samples from {stories:,} stories; admitted files identical")
    local = rows[0][1]
    print(
        f"{'executor':16s} {'seconds':>8s} {'stories/s':>10s} {'samples/s':>10s} "
        f"{'vs local':>9s} {'start-up s':>11s}"
    )
    for name, seconds, startup in rows:
        print(
            f"{name:16s} {seconds:8.1f} {stories / seconds:10.1f} {samples / seconds:10.1f} "
            f"{local / seconds:8.2f}x {'-' if startup is None else f'{startup:.1f}':>11s}"
        )


if __name__ == "__main__":
    main()
