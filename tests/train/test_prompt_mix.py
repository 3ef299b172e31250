"""GRPO's prompt mix: which admitted samples it prompts with (pure logic, no model)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tomflywheel.audit import CONTROL_QUESTION_TYPES, sample_role
from tomflywheel.errors import DataError
from tomflywheel.train._prompt_mix import grpo_prompt_samples
from tomflywheel.world import generate

SOURCE = Path("admitted.jsonl")


@pytest.fixture(scope="module")
def samples():
    return list(generate("tomi", n=12, seed=3, orders=(0, 1, 2), controls=True))


def _roles(samples) -> Counter:
    return Counter(sample_role(s) for s in samples)


def test_all_and_targets(samples):
    assert grpo_prompt_samples(samples, "all", seed=0, source=SOURCE) == samples
    targets = grpo_prompt_samples(samples, "targets", seed=0, source=SOURCE)
    assert targets and _roles(targets) == Counter(target=len(targets))


def test_balanced_pairs_each_target_with_a_true_belief_control_in_file_order(samples):
    roles = _roles(samples)
    assert roles["control"] > roles["target"] > 0
    mixed = grpo_prompt_samples(samples, "balanced", seed=0, source=SOURCE)
    assert _roles(mixed) == Counter(target=roles["target"], control=roles["target"])
    positions = [samples.index(s) for s in mixed]
    assert positions == sorted(positions)
    chosen = [s for s in mixed if sample_role(s) == "control"]
    mind_controls = [
        s for s in samples
        if sample_role(s) == "control" and s.meta["question_type"] not in CONTROL_QUESTION_TYPES
    ]  # fmt: skip
    # True beliefs come first: world questions only once they run out.
    world_chosen = [s for s in chosen if s.meta["question_type"] in CONTROL_QUESTION_TYPES]
    assert not world_chosen or len(mind_controls) < roles["target"]
    assert len(chosen) - len(world_chosen) == min(len(mind_controls), roles["target"])


def test_balanced_is_seeded(samples):
    first = grpo_prompt_samples(samples, "balanced", seed=0, source=SOURCE)
    assert grpo_prompt_samples(samples, "balanced", seed=0, source=SOURCE) == first
    others = [grpo_prompt_samples(samples, "balanced", seed=s, source=SOURCE) for s in (1, 2, 3)]
    assert any(other != first for other in others)


@pytest.mark.parametrize("mix", ["targets", "balanced"])
def test_no_target_is_a_clear_error(samples, mix):
    controls = [s for s in samples if sample_role(s) == "control"]
    with pytest.raises(DataError, match=f"admitted.jsonl.*grpo.prompts: {mix}, and no sample"):
        grpo_prompt_samples(controls, mix, seed=0, source=SOURCE)


def test_balanced_fills_with_world_questions_once_true_beliefs_run_out(samples):
    def asks_the_world(sample) -> bool:
        return sample.meta["question_type"] in CONTROL_QUESTION_TYPES

    true_beliefs = [s for s in samples if sample_role(s) == "control" and not asks_the_world(s)]
    kept = [s for s in samples if s not in true_beliefs[2:]]
    targets = _roles(kept)["target"]
    mixed = grpo_prompt_samples(kept, "balanced", seed=0, source=SOURCE)
    chosen = [s for s in mixed if sample_role(s) == "control"]
    assert {s.id for s in true_beliefs[:2]} <= {s.id for s in chosen}
    assert sum(map(asks_the_world, chosen)) == targets - 2
