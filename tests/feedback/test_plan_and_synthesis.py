"""Synthesis plans and symbolic synthesis: controls, budgets, lineage, determinism, verification."""

from __future__ import annotations

import json

import pytest

from tomflywheel.config import EvalSettings, FeedbackSettings
from tomflywheel.datasets import task_for_sample
from tomflywheel.errors import ConfigError
from tomflywheel.feedback import (
    build_plan,
    export_chat_jsonl,
    export_sharegpt,
    fresh_samples,
    synthesize,
)
from tomflywheel.schema import Diagnosis
from tomflywheel.schema import ErrorCategory as C
from tomflywheel.world.samples import verify_sample


def _diagnoses() -> list[Diagnosis]:
    def d(i, dataset, category, order, qtype=None):
        return Diagnosis(
            dataset=dataset,
            sample_id=f"s{i}",
            reason="wrong",
            method="symbolic",
            category=category,
            order=order,
            question_type=qtype,
        )

    return [
        *(d(i, "tomi_test", C.REALITY_BIAS, 2, "second_order_0_tom") for i in range(6)),
        *(d(10 + i, "tomi_test", C.REALITY_BIAS, 2, "second_order_1_tom") for i in range(2)),
        *(d(20 + i, "hitom", C.ORDER_CONFUSION, 3) for i in range(3)),
        d(30, "hitom", C.PERSPECTIVE_CONFUSION, 1),
        d(31, "tgtom", C.UNSUPPORTED, 5, "Q6"),
        d(32, "bigtom", C.KNOWLEDGE_ACCESS, None),
        Diagnosis(dataset="hitom", sample_id="s40", reason="wrong", method="llm", category=None),
    ]


TASKS = {"tomi_test": "tomi", "hitom": "hitom", "tgtom": "tgtom", "bigtom": "bigtom"}


def test_plan_targets_each_weakness_with_controls_and_the_right_knobs():
    settings = FeedbackSettings(budget=40, min_per_weakness=4, complete_families=False)
    plan = build_plan(_diagnoses(), TASKS, settings)
    items = {item.weakness: item for item in plan.items}
    # ToMi's question-type variants of one order collapse into one weakness.
    assert set(items) == {
        "tomi_test · order 2 · reality_bias",
        "hitom · order 3 · order_confusion",
        "hitom · order 1 · perspective_confusion",
        "tgtom · Q6 · order 5 · unsupported",
        "bigtom · knowledge_access",
    }
    assert sum(item.count for item in plan.items) == 40
    assert all(item.params["controls"] is True for item in plan.items)
    reality = items["tomi_test · order 2 · reality_bias"]
    assert reality.generator == "tomi" and reality.n_diagnoses == 8
    assert reality.params["story_types"] == ("false_belief", "second_order_false_belief")
    assert items["hitom · order 3 · order_confusion"].params["orders"] == (2, 3, 4)
    assert items["hitom · order 1 · perspective_confusion"].params["n_agents"] == 7
    assert items["tgtom · Q6 · order 5 · unsupported"].params["question_types"] == ("Q6",)
    bigtom = items["bigtom · knowledge_access"]
    assert (bigtom.generator, bigtom.params["deception"]) == ("hitom", True)
    # The biggest weakness gets the biggest share.
    assert reality.count == max(item.count for item in plan.items)


def test_a_profile_dominated_by_control_failures_still_spends_mostly_on_targets():
    def d(i, qtype, category, order):
        return Diagnosis(
            dataset="tomi_test",
            sample_id=f"c{i}",
            reason="wrong",
            method="symbolic",
            category=category,
            order=order,
            question_type=qtype,
        )

    diagnoses = [
        *(d(i, "memory", C.STALE_MEMORY, 0) for i in range(20)),
        *(d(20 + i, "first_order_0_no_tom", C.UNSUPPORTED, 1) for i in range(10)),
        *(d(40 + i, "first_order_1_tom", C.REALITY_BIAS, 1) for i in range(3)),
    ]
    plan = build_plan(diagnoses, TASKS, FeedbackSettings(budget=40, min_per_weakness=4))
    by_role = {"target": 0, "control": 0}
    for item in plan.items:
        by_role[item.role] += item.count
    assert by_role["target"] >= by_role["control"] > 0
    assert sum(by_role.values()) == 40
    assert "tomi_test · order 0 · stale_memory · control" in {i.weakness for i in plan.items}
    # Without a cap, the raw failure counts would have given the controls most of the budget.
    uncapped = FeedbackSettings(budget=40, target_weight=1.0, max_controls_per_target=100)
    counts = {"target": 0, "control": 0}
    for item in build_plan(diagnoses, TASKS, uncapped).items:
        counts[item.role] += item.count
    assert counts["control"] > counts["target"]


def test_every_synthesized_story_yields_its_complete_question_family():
    plan = build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=40, min_per_weakness=4))
    tomi = next(item for item in plan.items if item.generator == "tomi")
    assert "orders" not in tomi.params and "complete question family" in tomi.why
    samples = [s for s in synthesize(plan) if s.meta["lineage"]["generator"] == "tomi"]
    stories: dict[object, set[str]] = {}
    for sample in samples:
        if not sample.meta["control"]:
            key = sample.meta["trace"]["story_index"]
            stories.setdefault(key, set()).add(sample.meta["question_type"].rsplit("_", 1)[0])
    assert abs(len(samples) - tomi.count) < len(samples) / len(stories)
    families = {frozenset(t.replace("_no", "") for t in types) for types in stories.values()}
    # memory, reality, and first- and second-order beliefs of both agents on every story.
    assert families == {
        frozenset(
            {"memory", "reality", "first_order_0", "first_order_1"}
            | {"second_order_0", "second_order_1"}
        )
    }


def test_a_small_budget_goes_to_the_biggest_weaknesses_first():
    plan = build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=8, min_per_weakness=4))
    assert [(i.weakness, i.count) for i in plan.items] == [
        ("hitom · order 3 · order_confusion", 4),
        ("tomi_test · order 2 · reality_bias", 4),
    ]


def test_the_same_diagnoses_give_the_same_plan_and_the_same_bytes(tmp_path):
    settings = FeedbackSettings(budget=30)
    first, second = (build_plan(_diagnoses(), TASKS, settings) for _ in range(2))
    assert first == second
    a, b = synthesize(first), synthesize(second)
    paths = []
    for name, samples in (("a", a), ("b", b)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    other = build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=30, seed=1))
    assert other.plan_id != first.plan_id
    assert [s.id for s in synthesize(other)] != [s.id for s in a]


def test_every_candidate_has_lineage_rationale_and_a_label_both_verifiers_confirm():
    plan = build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=40))
    samples = synthesize(plan)
    assert len({s.id for s in samples}) == len(samples)
    for item in plan.items:
        mine = [s for s in samples if s.meta["lineage"]["weakness"] == item.weakness]
        stories = {s.meta["trace"]["story_index"] for s in mine}
        # Whole stories, as near the item's count as they allow (a family is never cut).
        assert mine and abs(len(mine) - item.count) <= len(mine) / len(stories), item.weakness
    for sample in samples:
        lineage = sample.meta["lineage"]
        assert lineage["plan_id"] == plan.plan_id and lineage["bad_case_ids"]
        assert lineage["generator"] in {"tomi", "hitom", "tgtom"} and lineage["version"]
        assert sample.meta["origin"] == "symbolic" and sample.meta["rationale"]
        verification = verify_sample(sample)
        assert verification.ok, (sample.id, verification)
    controls = [s for s in samples if s.meta.get("control")]
    assert controls, "false-belief stories come with their true-belief twins"


def test_fresh_samples_are_new_stories_of_the_plans_generators_verified_and_seeded():
    plan = build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=40))
    synthesized = synthesize(plan)
    fresh = fresh_samples(plan, 60)
    assert fresh == fresh_samples(plan, 60)

    def stories(samples):
        return {(s.meta["lineage"]["weakness"], s.meta["trace"]["story_index"]) for s in samples}

    assert not stories(fresh) & stories(synthesized)
    assert not {s.id for s in fresh} & {s.id for s in synthesized}
    assert {s.meta["lineage"]["weakness"] for s in fresh} == {i.weakness for i in plan.items}
    assert abs(len(fresh) - 60) < 60 / 2  # whole stories, per item: near the count asked
    for sample in fresh:
        assert sample.meta["lineage"]["plan_id"] == plan.plan_id
        assert verify_sample(sample).ok, sample.id
    assert fresh_samples(plan, 0) == []


def test_exports_render_chat_messages_as_evaluation_prompts(tmp_path):
    plan = build_plan(_diagnoses()[:6], TASKS, FeedbackSettings(budget=5))
    samples = synthesize(plan)
    tasked = [(sample, task_for_sample(sample)) for sample in samples]
    n = len(samples)
    assert export_chat_jsonl(tasked, tmp_path / "c.jsonl", EvalSettings(), with_rationale=True) == n
    first = json.loads((tmp_path / "c.jsonl").read_text().splitlines()[0])
    roles = [m["role"] for m in first["messages"]]
    assert roles == ["system", "user", "assistant"]
    assert first["messages"][-1]["content"].endswith(
        "Answer: " + samples[0].answer.correct_answers[0]
    )
    assert export_sharegpt(tasked, tmp_path / "s.json", EvalSettings()) == n
    shared = json.loads((tmp_path / "s.json").read_text())
    assert [t["from"] for t in shared[0]["conversations"]] == ["system", "human", "gpt"]
    assert shared[0]["conversations"][-1]["value"] == samples[0].answer.correct_answers[0]


def test_the_benchmarks_convention_is_a_plan_choice_recorded_and_verified():
    principled = build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=60))
    convention = build_plan(
        _diagnoses(), TASKS, FeedbackSettings(budget=60, answer_profile="benchmark")
    )
    assert all("profile" not in item.params for item in principled.items)  # plans as before
    by_generator = {item.generator: item for item in convention.items}
    assert by_generator["tomi"].params["profile"] == "tomi"
    assert "profile tomi" in by_generator["tomi"].why
    assert all(
        "profile" not in item.params for item in convention.items if item.generator != "tomi"
    )
    assert convention.plan_id != principled.plan_id
    tomi_items = [item for item in convention.items if item.generator == "tomi"]
    plan = convention.model_copy(update={"items": tomi_items})
    samples = synthesize(plan)
    assert samples and all(s.meta["trace"]["profile"] == "tomi" for s in samples)
    assert all(verify_sample(s).ok for s in samples)  # re-derived under the recorded profile
    # Same stories, other labels on some second-order no-ToM items: the convention matters.
    principled_plan = plan.model_copy(
        update={
            "items": [
                item.model_copy(
                    update={"params": {k: v for k, v in item.params.items() if k != "profile"}}
                )
                for item in tomi_items
            ]
        }
    )
    gold = {(s.story, s.question): s.answer.correct_answers[0] for s in synthesize(principled_plan)}
    differing = [
        s
        for s in samples
        if gold.get((s.story, s.question), s.answer.correct_answers[0])
        != s.answer.correct_answers[0]
    ]
    assert differing and all(s.meta["question_type"].startswith("second_order") for s in differing)


def test_configured_generator_params_shape_every_story_the_plan_asks_for():
    settings = FeedbackSettings(
        budget=40, min_per_weakness=4, generator_params={"hitom": {"chapters": [1]}}
    )
    plan = build_plan(_diagnoses(), TASKS, settings)
    hitom = [item for item in plan.items if item.generator == "hitom"]
    assert hitom and all(item.params["chapters"] == [1] for item in hitom)
    assert all("chapters" not in item.params for item in plan.items if item.generator != "hitom")
    assert all("with the configured ['chapters']" in item.why for item in hitom)
    samples = [s for s in synthesize(plan) if s.meta["lineage"]["generator"] == "hitom"]
    assert samples and {s.meta["story_length"] for s in samples} == {1}


def test_unknown_generator_params_are_refused_by_name():
    for overrides, message in [
        ({"hitomm": {}}, "no generator 'hitomm'"),
        ({"hitom": {"chapter": [1]}}, "feedback.generator_params.hitom.chapter"),
    ]:
        with pytest.raises(ConfigError, match=message):
            build_plan(_diagnoses(), TASKS, FeedbackSettings(generator_params=overrides))
