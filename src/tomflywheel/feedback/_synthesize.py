"""Symbolic synthesis from a plan: generator output with lineage, rationale and origin marks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import groupby
from typing import Any

from tomflywheel.feedback._plan import PlanItem, SynthesisPlan
from tomflywheel.feedback._surface import adopt_surface
from tomflywheel.schema import Sample
from tomflywheel.world import GENERATORS, rationale


def lineage(plan: SynthesisPlan, item: PlanItem, sample: Sample) -> dict[str, Any]:
    """Where a candidate comes from: bad cases, diagnosis, generator, version, seed, plan."""
    trace = sample.meta.get("trace") or {}
    return {
        "bad_case_ids": item.bad_case_ids,
        "diagnosis": item.category.value,
        "weakness": item.weakness,
        "generator": item.generator,
        "version": trace.get("version"),
        "seed": item.seed,
        "plan_id": plan.plan_id,
    }


def story_limit(item: PlanItem) -> int:
    """The most stories a plan item may use (every story yields at least one sample)."""
    return max(item.count, 1)


def stream_item(item: PlanItem, *, stories: int | None = None, start: int = 0) -> Iterator[Sample]:
    """The generator's samples for a plan item (lazily; stories ``start`` .. ``start+stories``)."""
    generator = GENERATORS.get(item.generator)
    return generator(item.params, seed=item.seed, n=stories or story_limit(item), start=start)


def finish(
    plan: SynthesisPlan, item: PlanItem, index: int, sample: Sample, *, with_rationale: bool
) -> Sample:
    """A generated sample turned candidate: plan-scoped id, lineage, origin and rationale."""
    if item.surface is not None:
        sample = adopt_surface(sample, item.surface)
    meta = dict(sample.meta)
    meta["origin"] = "symbolic"
    meta["lineage"] = lineage(plan, item, sample)
    if with_rationale and isinstance(meta.get("trace"), dict):
        meta["rationale"] = rationale(meta["trace"])
    return sample.model_copy(
        update={"id": f"fb-{plan.plan_id}-{index:02d}-{sample.id}", "meta": meta}
    )


def _story_key(sample: Sample) -> object:
    """The generated story a sample asks about (its own id when it has no trace)."""
    trace = sample.meta.get("trace") or {}
    return trace.get("story_index", sample.id)


def whole_stories(samples: Iterable[Sample], count: int) -> Iterator[Sample]:
    """Whole stories, in order, until the total is as near ``count`` as whole stories allow.

    A question family is never cut: the last story is taken when it overshoots ``count`` by
    less than the samples still missing (and the first story always is).
    """
    taken = 0
    for _, group in groupby(samples, key=_story_key):
        story = list(group)
        if taken and taken + len(story) - count >= count - taken:
            return
        taken += len(story)
        yield from story
        if taken >= count:
            return


def synthesize_block(
    plan: SynthesisPlan, index: int, start: int, stop: int, *, with_rationale: bool
) -> list[Sample]:
    """Candidates of stories ``start`` .. ``stop`` of plan item ``index`` (every question)."""
    item = plan.items[index]
    return [
        finish(plan, item, index, sample, with_rationale=with_rationale)
        for sample in stream_item(item, stories=stop - start, start=start)
    ]


def synthesize(
    plan: SynthesisPlan,
    *,
    with_rationale: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[Sample]:
    """Every plan item's first stories, whole, up to ``count`` samples (controls included).

    ``on_progress`` is called after each plan item with (samples asked so far, samples asked).
    """
    out: list[Sample] = []
    total, asked = sum(item.count for item in plan.items), 0
    for index, item in enumerate(plan.items):
        for sample in whole_stories(stream_item(item), item.count):
            out.append(finish(plan, item, index, sample, with_rationale=with_rationale))
        asked += item.count
        if on_progress is not None:
            on_progress(asked, total)
    return out


def fresh_samples(plan: SynthesisPlan, count: int, *, with_rationale: bool = True) -> list[Sample]:
    """About ``count`` new samples from the plan's own generators, none of them synthesized.

    Each item continues its generator's stream past the stories ``synthesize`` may use, and
    gets a share of ``count`` proportional to its own count, in whole stories (an item whose
    share rounds to nothing gets none). The same plan and count give the same samples.
    """
    total = sum(item.count for item in plan.items)
    out: list[Sample] = []
    for index, item in enumerate(plan.items):
        share = round(count * item.count / total) if total else 0
        if not share:
            continue
        stream = stream_item(item, stories=share, start=story_limit(item))
        for sample in whole_stories(stream, share):
            out.append(finish(plan, item, index, sample, with_rationale=with_rationale))
    return out
