"""What each generator declares for the synthesis plan: tasks served, fallbacks, aims."""

from dataclasses import replace

import pytest

from tomflywheel.schema import ErrorCategory as C
from tomflywheel.world.generators import GENERATORS, generator_for
from tomflywheel.world.generators._registry import register


@pytest.mark.parametrize(
    ("task", "category", "expected"),
    [
        # A generator serving the task wins over the category's fallback.
        ("tomi", C.ORDER_CONFUSION, "tomi"),
        ("tomi_2cand", C.FORMAT, "tomi"),
        ("hitom", C.REALITY_BIAS, "hitom"),
        ("kosinski", C.REALITY_BIAS, "kosinski"),
        ("adv_csfb", C.DISTRACTOR, "kosinski"),
        ("tgtom", C.ORDER_CONFUSION, "tgtom"),
        ("bigtom", C.KNOWLEDGE_ACCESS, "hitom"),
        ("fantom", C.PERSPECTIVE_CONFUSION, "hitom"),
        ("fantom", C.INTENT_OR_EMOTION, "tgtom"),
        ("emobench", C.COMMONSENSE, "tomi"),
    ],
)
def test_a_weakness_goes_to_the_generator_serving_its_task_else_to_a_fallback(
    task, category, expected
):
    assert generator_for(task, category).name == expected


def test_aims_reproduce_the_plan_choices():
    tomi, hitom, tgtom = (GENERATORS.get(name) for name in ("tomi", "hitom", "tgtom"))
    assert tomi.aim(C.REALITY_BIAS, "second_order_0_tom", None) == (
        {"orders": (2,), "story_types": ("false_belief", "second_order_false_belief")},
        "ToMi-style questions of order (2,) on false-belief stories",
    )
    assert tomi.aim(C.STALE_MEMORY, None, None) == (
        {"orders": (0, 1, 2)},
        "ToMi-style questions of order (1, 2) with memory and reality questions beside them",
    )
    assert hitom.aim(C.ORDER_CONFUSION, None, 4) == (
        {"orders": (3, 4)},
        "Hi-ToM-style questions of neighbouring orders (3, 4)",
    )
    assert tgtom.aim(C.UNSUPPORTED, "Q6", 5) == (
        {"question_types": ("Q6",)},
        "tgtom-style Q6 questions",
    )
    assert tgtom.aim(C.INTENT_OR_EMOTION, None, None)[0] == {"question_types": ("Q3", "Q7")}


@pytest.mark.parametrize("name", GENERATORS.names())
def test_every_aim_gives_parameters_the_generator_accepts(name):
    generator = GENERATORS.get(name)
    for category in C:
        for question_type, order in ((None, None), ("second_order_1_tom", None), ("Q6", 5)):
            params, _ = generator.aim(category, question_type, order)
            generator.params.model_validate(params)


def test_a_task_prefix_is_served_by_one_generator_only():
    clash = replace(GENERATORS.get("tomi"), name="tomi_again", default=False)
    with pytest.raises(ValueError, match="task prefix 'tomi' already belongs to 'tomi'"):
        register(clash)
    assert "tomi_again" not in GENERATORS
