"""Adversarial selection (in the spirit of ExploreToM): keep the candidates the model fails."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice

from tomflywheel.asking import Predictor, judge_by_rules
from tomflywheel.config import EvalSettings
from tomflywheel.datasets import TaskSpec, task_for_sample
from tomflywheel.feedback._plan import SynthesisPlan
from tomflywheel.feedback._synthesize import finish, stream_item
from tomflywheel.llm import ContentClient, run_batch
from tomflywheel.schema import Sample, Verdict


@dataclass
class AdversarialReport:
    """What the selection asked and kept."""

    requests: int = 0
    asked: int = 0
    failed: int = 0
    kept: int = 0
    per_item: dict[str, int] = field(default_factory=dict)


def _stories(samples: Sequence[Sample]) -> list[list[Sample]]:
    groups: dict[int, list[Sample]] = defaultdict(list)
    for sample in samples:
        groups[int((sample.meta.get("trace") or {}).get("story_index", -1))].append(sample)
    return [groups[key] for key in sorted(groups)]


async def adversarial_select(
    plan: SynthesisPlan,
    client: ContentClient,
    eval_settings: EvalSettings,
    *,
    pool: int,
    request_budget: int,
    with_rationale: bool,
) -> tuple[list[Sample], AdversarialReport]:
    """Keep, per plan item, the candidate stories the evaluated model fails, up to ``count``.

    A story's target (non-control) questions are asked; when any is failed, its failed
    questions and its controls are kept. The pool is ``pool`` times the wanted count; stories
    are asked in order until the item is full or the request budget is spent.
    """
    report = AdversarialReport()
    kept: list[Sample] = []
    budget = request_budget
    for index, item in enumerate(plan.items):
        candidates = list(islice(stream_item(item, stories=item.count * pool), item.count * pool))
        if not candidates:
            report.per_item[item.weakness] = 0
            continue
        # One generator per plan item: its samples share one task.
        task = task_for_sample(candidates[0])
        chosen: list[Sample] = []
        for story in _stories(candidates):
            targets = [s for s in story if not s.meta.get("control")]
            if len(chosen) >= item.count or budget < len(targets):
                break
            budget -= len(targets)
            verdicts = await _ask(targets, task, client, eval_settings)
            report.requests += len(targets)
            report.asked += len(targets)
            failed = [t for t, v in zip(targets, verdicts, strict=True) if v is Verdict.INCORRECT]
            report.failed += len(failed)
            if failed:
                controls = [s for s in story if s.meta.get("control")]
                chosen.extend([*failed, *controls][: item.count - len(chosen)])
        report.per_item[item.weakness] = len(chosen)
        kept.extend(
            _mark(finish(plan, item, index, sample, with_rationale=with_rationale))
            for sample in chosen
        )
    report.kept = len(kept)
    return kept, report


def _mark(sample: Sample) -> Sample:
    return sample.model_copy(update={"meta": {**sample.meta, "adversarial": True}})


async def _ask(
    targets: Sequence[Sample], task: TaskSpec, client: ContentClient, settings: EvalSettings
) -> list[Verdict]:
    predictor = Predictor(
        client=client, settings=settings.model_copy(update={"trials": 1}), task=task
    )

    async def one(sample: Sample) -> Verdict:
        prediction = await predictor((sample, 0))
        if prediction.error is not None:
            return Verdict.ERROR
        return judge_by_rules(sample, prediction, partial=not task.strict_matching).verdict

    results = await run_batch(targets, one, concurrency=client.concurrency)
    return [r if isinstance(r, Verdict) else Verdict.ERROR for r in results]
