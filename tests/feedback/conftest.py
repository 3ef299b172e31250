"""Real ToMi and Hi-ToM samples, and bad cases built from them with a chosen model answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tomflywheel.asking import shuffle_options
from tomflywheel.config import FeedbackSettings
from tomflywheel.datasets import load_benchmark
from tomflywheel.feedback import BadCase, build_plan, synthesize
from tomflywheel.schema import (
    Diagnosis,
    ErrorCategory,
    Judgment,
    MethodRef,
    Prediction,
    QAKind,
    Sample,
    Verdict,
)


@pytest.fixture(scope="session")
def real(benchmarks: Path) -> dict[str, Sample]:
    """ToMi test split and Hi-ToM (CoTP) samples by id."""
    samples = load_benchmark(
        "tomi", benchmarks / "tomi" / "tomi_balanced_story_types", split="test"
    )
    samples += load_benchmark("hitom", benchmarks / "hitom" / "Hi-ToM_data.json")
    return {s.id: s for s in samples}


def bad_case(sample: Sample, output: str, *, match_type: str = "none") -> BadCase:
    """A wrong prediction whose output is ``output`` (an option text is turned into its letter)."""
    options = letters = option_map = None
    answer = output
    if sample.kind is not QAKind.OPEN:
        shuffled = shuffle_options(sample)
        options, option_map, letters = shuffled.options, shuffled.option_map, shuffled.gold_letters
        if output in options:
            answer = chr(65 + options.index(output))
            output = f"{answer}. {output}"
        else:
            answer = None
    prediction = Prediction(
        sample_id=sample.id,
        mode="generate",
        endpoint="chat",
        raw_output=output,
        options=options,
        option_map=option_map,
        gold_letters=letters,
    )
    judgment = Judgment(
        sample_id=sample.id,
        verdict=Verdict.INCORRECT,
        method=MethodRef(name="rules"),
        match_type="letter" if answer and options else match_type,
        answer=answer,
    )
    return BadCase(str(sample.meta["dataset"]), sample, prediction, judgment, "wrong")


def reality_bias_samples() -> list[Sample]:
    """The candidates a plan for one first-order reality-bias failure on ToMi synthesizes."""
    diagnosis = Diagnosis(
        dataset="tomi_test",
        sample_id="x",
        reason="wrong",
        method="symbolic",
        category=ErrorCategory.REALITY_BIAS,
        order=1,
    )
    plan = build_plan(
        [diagnosis], {"tomi_test": "tomi"}, FeedbackSettings(budget=4, controls=False)
    )
    return synthesize(plan)
