"""The GRPO reward: the evaluation's rules against the engine's answer, on engine samples."""

from __future__ import annotations

import pytest

from tests.train.conftest import tomi_style_samples
from tomflywheel.asking import shuffle_options
from tomflywheel.config import EvalSettings, GrpoSettings, TrainSettings
from tomflywheel.datasets import task_for_sample
from tomflywheel.schema import Sample
from tomflywheel.train._reward import answer_reward
from tomflywheel.world import generate

GRPO = GrpoSettings(reward_correct=1.0, reward_format=0.1, penalty_several=0.5)


def _reward(sample: Sample, reply: str, settings: EvalSettings | None = None) -> float:
    task = task_for_sample(sample)
    return answer_reward(sample, reply, task=task, settings=settings or EvalSettings(), grpo=GRPO)


@pytest.fixture(scope="module")
def false_belief() -> Sample:
    """An engine ToMi sample: gold and the story's other container as its candidates."""
    samples = list(generate("tomi", n=4, seed=0))
    return next(s for s in samples if s.meta["question_type"] == "first_order_1_tom")


def test_the_right_candidate_earns_correct_plus_format(false_belief):
    gold = false_belief.answer.correct_answers[0]
    assert _reward(false_belief, gold) == pytest.approx(1.1)
    assert _reward(false_belief, f"The {gold.replace('_', ' ')}.") == pytest.approx(1.1)


def test_a_wrong_candidate_earns_the_format_reward_only(false_belief):
    wrong = next(
        c for c in false_belief.meta["candidates"] if c not in false_belief.answer.correct_answers
    )
    assert _reward(false_belief, wrong) == pytest.approx(0.1)


def test_naming_several_candidates_is_penalized(false_belief):
    both = " or ".join(false_belief.meta["candidates"])
    assert _reward(false_belief, both) == pytest.approx(-0.5)


def test_an_off_format_reply_earns_nothing(false_belief):
    assert _reward(false_belief, "I cannot tell from the story.") == 0.0
    assert _reward(false_belief, "") == 0.0


def test_the_evaluations_answer_policy_is_the_rewards():
    # lenient: a reply naming several takes its last, as the evaluation would judge it.
    sample = next(s for s in generate("tomi", n=4, seed=0) if s.meta.get("candidates"))
    gold = sample.answer.correct_answers[0]
    wrong = next(c for c in sample.meta["candidates"] if c != gold)
    lenient = EvalSettings(answer_policy="lenient")
    assert _reward(sample, f"{wrong}, no, {gold}", lenient) == pytest.approx(1.1)
    assert _reward(sample, f"{gold}, no, {wrong}", lenient) == pytest.approx(0.1)


def test_a_choice_sample_is_judged_on_the_letters_the_prompt_showed():
    sample = next(s for s in tomi_style_samples(4) if s.answer.wrong_answers)
    shown = shuffle_options(sample)
    right = shown.gold_letters[0]
    wrong = next(letter for letter in shown.letters if letter != right)
    assert _reward(sample, right) == pytest.approx(1.1)
    assert _reward(sample, wrong) == pytest.approx(0.1)
    assert _reward(sample, " or ".join(shown.options)) == pytest.approx(-0.5)


def test_grpo_steps_take_whole_groups():
    with pytest.raises(ValueError, match="multiple of grpo"):
        TrainSettings(method="grpo", batch_size=6, grpo={"generations": 4})
    assert TrainSettings(method="grpo", batch_size=2, gradient_accumulation=2).method == "grpo"
