"""One example end to end: prompt, output, parse and verdict (``tomflywheel example``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tomflywheel.asking import JudgeContext, Predictor, build_judge
from tomflywheel.config import LLMSettings, Settings
from tomflywheel.datasets import TaskSpec, task_for_sample
from tomflywheel.errors import ConfigError
from tomflywheel.evaluation._select import judge_for
from tomflywheel.llm import ContentClient, Need, StructureClient, llm_endpoint
from tomflywheel.schema import Answer, Judgment, Prediction, Sample, read_samples


@dataclass(frozen=True)
class ExampleResult:
    """Everything about one example."""

    sample: Sample
    task: TaskSpec
    judge: str
    prediction: Prediction
    judgment: Judgment | None
    """``None`` when no gold answer was given."""


def sample_from_text(story: str, question: str, answer: str | None) -> Sample:
    """An ad-hoc open-QA sample (the answer, if given, is the gold)."""
    gold = Answer(correct_answers=[answer]) if answer else Answer(correct_answers=["?"])
    return Sample(
        id="example",
        story=story,
        question=question,
        answer=gold,
        meta={"dataset": "example", "has_gold": answer is not None},
    )


def sample_from_file(path: Path, index: int, *, exclude_memory_reality: bool) -> Sample:
    """The ``index``-th sample (0-based) of a dataset file, after the optional filter.

    Raises:
        ConfigError: The index is out of range.
    """
    samples = list(read_samples(path))
    if exclude_memory_reality and samples:
        dropped = set(task_for_sample(samples[0]).excludable_question_types)
        samples = [s for s in samples if s.meta.get("question_type") not in dropped]
    if not 0 <= index < len(samples):
        raise ConfigError(f"{path}: index {index} out of range (0..{len(samples) - 1})")
    return samples[index]


def run_example(
    settings: Settings,
    sample: Sample,
    *,
    judge: str | None = None,
    label: str | None = None,
    on_status: Callable[[str], None] | None = None,
) -> ExampleResult:
    """Ask the model about one sample and judge the answer (when the sample has a gold).

    Args:
        settings: The configuration (which server, which model).
        sample: The example.
        judge: Judging method (default: the config's for this dataset, else the task's).
        label: The dataset's name (a file's stem), for ``eval.judges`` entries by name.
        on_status: Told when an embedded server starts (a minute or so) and is ready.
    """
    task = task_for_sample(sample)
    judge_name = judge or judge_for(settings.eval.judges, task, label)
    has_gold = sample.meta.get("has_gold", True)

    async def go(llm_settings: LLMSettings) -> tuple[Prediction, Judgment | None]:
        async with ContentClient(llm_settings) as client:
            predictor = Predictor(
                client=client,
                settings=settings.eval.model_copy(update={"trials": 1}),
                task=task,
                logprob=judge_name == "logprob",
            )
            prediction = await predictor((sample, 0))
            if not has_gold:
                return prediction, None
            context = JudgeContext(
                structure=StructureClient.from_settings(client), settings=settings.judge
            )
            return prediction, await build_judge(judge_name, settings.eval, context, task)(
                sample, prediction
            )

    needs: set[Need] = {"logprobs" if judge_name == "logprob" else settings.llm.endpoint}
    if has_gold and build_judge(judge_name, settings.eval, JudgeContext(), task).uses_llm:
        needs.add("chat")
    with llm_endpoint(settings, on_status, needs=needs) as llm_settings:
        prediction, judgment = asyncio.run(go(llm_settings))
    return ExampleResult(sample, task, judge_name, prediction, judgment)
