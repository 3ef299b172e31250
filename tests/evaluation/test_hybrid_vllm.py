"""The hybrid judge against the real server: rules decide closed sets, the LLM never overturns.

No mock: the real SmolLM2 judge is asked (or provably not asked) about real-shaped items.
"""

from __future__ import annotations

import asyncio

import pytest

from tomflywheel.asking import JUDGES, JudgeContext
from tomflywheel.asking.judge import inconsistency
from tomflywheel.config import JudgeSettings
from tomflywheel.llm import ContentClient, StructureClient
from tomflywheel.schema import Answer, Prediction, Sample, Verdict

pytestmark = pytest.mark.vllm

TOMI = Sample(
    id="tomi-test-000007",
    story=(
        "1 Jayden entered the cellar.\n2 Sophia entered the cellar.\n"
        "3 The grapes is in the purple_container.\n4 Sophia exited the cellar.\n"
        "5 Jayden moved the grapes to the yellow_trunk."
    ),
    question="Where will Sophia look for the grapes?",
    answer=Answer(correct_answers=["purple_container", "purple container"]),
    meta={"dataset": "tomi", "candidates": ["purple_container", "yellow_trunk"]},
)
# The open question of an LLM-written story: no candidates, the rules cannot decide it.
FREE = Sample(
    id="free-0001",
    story="Mia lost her kite in the storm. Her brother found it and gave it back.",
    question="How does Mia feel when she gets the kite back?",
    answer=Answer(correct_answers=["happy"]),
    meta={"dataset": "free_form"},
)


def _prediction(sample: Sample, output: str) -> Prediction:
    return Prediction(sample_id=sample.id, mode="generate", endpoint="chat", raw_output=output)


def _run(llm_settings, rate: float, items: list[tuple[Sample, Prediction]]):
    async def go():
        async with ContentClient(llm_settings) as client:
            context = JudgeContext(
                structure=StructureClient.from_settings(client),
                settings=JudgeSettings(calibration_rate=rate),
            )
            judge = JUDGES.get("hybrid")(context)
            judgments = [await judge(sample, prediction) for sample, prediction in items]
            return judgments, client.stats.as_dict()

    return asyncio.run(go())


def test_a_closed_set_wrong_answer_is_never_sent_to_the_judge(llm_settings):
    # The case: the real location named for a false-belief question.
    wrong = _prediction(TOMI, "The grapes is in the yellow_trunk.")
    [judgment], stats = _run(llm_settings, 0.0, [(TOMI, wrong)])
    assert (judgment.verdict, judgment.match_type, judgment.answer) == (
        Verdict.INCORRECT,
        "candidate",
        "yellow_trunk",
    )
    assert judgment.judge_verdict is None
    assert stats["requests_sent"] == 0 and stats["cache_hits"] == 0


def test_when_asked_for_calibration_the_judge_is_recorded_but_never_obeyed(llm_settings):
    outputs = [
        "The grapes is in the yellow_trunk.",
        "The potato was at the beginning of the story.",
        "purple_container",
    ]
    items = [
        (TOMI, _prediction(TOMI, o).model_copy(update={"trial": i})) for i, o in enumerate(outputs)
    ]
    judgments, stats = _run(llm_settings, 1.0, items)
    assert [j.verdict for j in judgments] == [Verdict.INCORRECT, Verdict.INCORRECT, Verdict.CORRECT]
    assert stats["requests_sent"] + stats["cache_hits"] >= 3  # the judge was really asked
    assert all(j.judge_verdict is not None and j.rules_certain for j in judgments)
    assert all(j.rules_verdict == j.verdict for j in judgments)


def test_an_open_answer_gets_the_judges_verdict_only_when_its_reply_holds_together(llm_settings):
    outputs = ["She is happy.", "She feels sad and angry.", "Mia is glad to have it back."]
    items = [
        (FREE, _prediction(FREE, o).model_copy(update={"trial": i})) for i, o in enumerate(outputs)
    ]
    judgments, _ = _run(llm_settings, 0.0, items)
    # "She is happy." contains the gold: the rules decide it without the judge.
    assert (judgments[0].verdict, judgments[0].judge_verdict) == (Verdict.CORRECT, None)
    for judgment, output in zip(judgments[1:], outputs[1:], strict=True):
        assert judgment.match_type == "judge" and judgment.judge_verdict == judgment.verdict
        if judgment.verdict is Verdict.UNJUDGED:
            assert judgment.failure and (
                judgment.failure.startswith("inconsistent judge") or judgment.raw_judge_output
            )
        else:
            problem = inconsistency(
                FREE,
                output,
                answer=judgment.judge_answer or "",
                reason=judgment.reason or "",
                correct=judgment.verdict is Verdict.CORRECT,
            )
            assert problem is None
