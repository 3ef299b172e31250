"""One definition of target and control: plan, rubric, lift and audit agree on every sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from tomflywheel.audit import sample_role
from tomflywheel.config import RubricSettings
from tomflywheel.datasets import load_benchmark
from tomflywheel.feedback import sample_role as plan_role
from tomflywheel.feedback._roles import diagnosis_role
from tomflywheel.filter.llm import is_control as rubric_is_control
from tomflywheel.flywheel._lift import is_control as lift_is_control
from tomflywheel.schema import Diagnosis, ErrorCategory, Sample
from tomflywheel.world import generate


def _roles(samples: list[Sample]) -> list[str]:
    """Each sample's role, after checking that every call site gives it the same one."""
    rubric = RubricSettings(control_question_types=[])  # the shared rule alone
    roles = []
    for sample in samples:
        role = sample_role(sample)
        seen = {
            "plan": plan_role(sample),
            "rubric": "control" if rubric_is_control(sample, rubric) else "target",
            "lift": "control" if lift_is_control(sample) else "target",
        }
        assert set(seen.values()) == {role}, (sample.id, role, seen)
        roles.append(role)
    return roles


def test_tomi_world_and_no_tom_questions_are_controls(benchmarks: Path):
    samples = load_benchmark("tomi", benchmarks / "tomi" / "tomi_balanced_story_types")[:240]
    for sample, role in zip(samples, _roles(samples), strict=True):
        qtype = sample.meta["question_type"]
        expected = "target" if qtype.endswith("_tom") and "_no_tom" not in qtype else "control"
        assert role == expected, (sample.id, qtype)


def test_hitom_order_zero_is_a_control_and_false_beliefs_are_targets(benchmarks: Path):
    samples = load_benchmark("hitom", benchmarks / "hitom" / "Hi-ToM_data.json")[:150]
    roles = _roles(samples)
    by_order: dict[int, set[str]] = {}
    for sample, role in zip(samples, roles, strict=True):
        by_order.setdefault(sample.meta["order"], set()).add(role)
    assert by_order[0] == {"control"}
    # higher orders hold both: the engine tells a false belief from a true one
    assert all(by_order[k] == {"target", "control"} for k in (1, 2, 3, 4)), by_order


def test_bigtom_true_beliefs_and_control_conditions_are_controls(benchmarks: Path):
    samples = [
        s
        for s in load_benchmark("bigtom", benchmarks / "bigtom")
        if s.meta["story_id"] < 3 and s.meta["variable"] == "belief"
    ]
    for sample, role in zip(samples, _roles(samples), strict=True):
        meta = sample.meta
        expected = "target" if meta["belief"] == "false" and not meta["control"] else "control"
        assert role == expected, meta["condition"]


@pytest.mark.parametrize("generator", ["tomi", "hitom", "kosinski", "tgtom"])
def test_generated_samples_get_one_role_everywhere(generator: str):
    samples = list(generate(generator, seed=5, n=6))
    roles = _roles(samples)
    assert set(roles) == {"target", "control"}
    for sample, role in zip(samples, roles, strict=True):
        # the trace says what the question asks: a world question is never a target
        kind = sample.meta["trace"]["question"]["kind"]
        if kind in ("memory", "reality"):
            assert role == "control", sample.id


def test_a_diagnosis_alone_reads_the_same_markers():
    def role(question_type: str, order: int | None, category=ErrorCategory.STALE_MEMORY) -> str:
        return diagnosis_role(
            Diagnosis(
                dataset="d",
                sample_id="s",
                reason="wrong",
                method="symbolic",
                category=category,
                question_type=question_type,
                order=order,
            )
        )

    assert role("memory", None) == role("first_order_0_no_tom", 1) == "control"
    assert role("Q0", None) == role("second_order", 0) == "control"
    assert role("first_order_1_tom", 1) == "target"
    # reality bias is only possible where the gold differs from reality
    assert role("memory", None, ErrorCategory.REALITY_BIAS) == "target"
