"""Scores no shortcut passes: generated ToMi-style stories and hand-made BigToM-like twins."""

from __future__ import annotations

import json
import re

import pytest

from tomflywheel.audit import (
    HEURISTICS,
    AuditItem,
    audit_item,
    belief_side,
    fit_set,
    question_part,
    score_lines,
    shortcut_scores,
    story_key,
    twin_key,
)
from tomflywheel.audit._scores import BY_QUESTION_TYPE, _with_reality
from tomflywheel.flywheel import story_key as flywheel_story_key
from tomflywheel.schema import Answer, Sample
from tomflywheel.world import generate

OAT = "Noor believes the pitcher contains oat milk."
ALMOND = "Noor believes the pitcher contains almond milk."


def _tomi(n: int = 40) -> list[Sample]:
    return list(generate("tomi", seed=7, n=n, controls=True))


def _items(samples: list[Sample]) -> dict[str, AuditItem]:
    return {s.id: audit_item(s) for s in samples}


def _heuristic_right(name: str, items: dict[str, AuditItem]) -> dict[str, bool]:
    fit = fit_set(list(items.values()))
    guess = HEURISTICS.get(name).guess
    return {i: item.is_gold(guess(item, fit)) for i, item in items.items()}


def _bigtom(story_id: int, belief: str, *, control: bool = False) -> Sample:
    """A BigToM-like 2-way item: oat milk swapped for almond milk, seen or not."""
    event = "wipes the counter" if control else "swaps the oat milk for almond milk"
    seen = "sees" if belief == "true" else "does not see"
    if control:
        correct, wrong = OAT, ALMOND
    else:
        correct, wrong = (ALMOND, OAT) if belief == "true" else (OAT, ALMOND)
    condition = f"0_forward_belief_{belief}_{'control' if control else 'belief'}"
    return Sample(
        id=f"bigtom-{condition}-{story_id:03d}",
        story=(
            f"Noor is a barista at cafe {story_id}. Noor fills a pitcher with oat milk. "
            f"A coworker {event}. Noor {seen} it."
        ),
        question="Does Noor believe the pitcher contains oat milk or almond milk?",
        answer=Answer(correct_answers=[correct], wrong_answers=[wrong]),
        meta={
            "dataset": "bigtom",
            "condition": condition,
            "init_belief": 0,
            "direction": "forward",
            "variable": "belief",
            "belief": belief,
            "control": control,
            "story_id": story_id,
        },
    )


def _bigtom_beliefs(stories: int = 6) -> list[Sample]:
    return [_bigtom(i, belief) for i in range(stories) for belief in ("true", "false")]


def _unread(**meta) -> AuditItem:
    """An item whose story the engine cannot read, with only these markers."""
    sample = Sample(
        id="x",
        story="Once upon a time.",
        question="What now?",
        answer=Answer(correct_answers=["a"], wrong_answers=["b"]),
        meta=meta,
    )
    item = audit_item(sample)
    assert item.asks is None
    return item


# -- stories, parts, sides, twins ---------------------------------------------------------------


def test_story_key_moved_to_the_audit_and_still_exported_by_the_flywheel():
    sample = _bigtom(7, "true")
    assert story_key(sample) == flywheel_story_key(sample) == "bigtom:7"
    assert question_part(sample) == "forward belief, true belief"


def test_belief_side_agrees_with_the_generators_tom_on_stories_without_line_numbers():
    checked = 0
    for sample in _tomi(20):
        world = sample.meta["question_type"] in ("memory", "reality")
        # no line numbers, no trace, no markers: the engine parses the text alone
        story = "\n".join(re.sub(r"^\d+ ", "", line) for line in sample.story.splitlines())
        bare = sample.model_copy(update={"story": story, "meta": {"dataset": "tomi_synth"}})
        item = audit_item(bare)
        assert item.asks is not None and not item.sample.story[0].isdigit()
        expected = None if world else ("false" if sample.meta["tom"] else "true")
        assert belief_side(item) == expected, sample.id
        checked += not world
    assert checked > 50


@pytest.mark.parametrize(
    ("meta", "side"),
    [
        ({"question_type": "first_order_1_tom"}, "false"),
        ({"question_type": "second_order_0_no_tom", "tom": True}, "true"),  # the type wins
        ({"question_type": "reality", "tom": True}, None),  # a world question has no side
        ({"question_type": "Q0"}, None),
        ({"belief": "false", "control": False}, "false"),
        ({"belief": "false", "control": True}, "true"),  # BigToM's false control: true state
        ({"belief": "true", "control": False}, "true"),
        ({"tom": True}, "false"),
        ({"tom": False}, "true"),
        ({"dataset": "bigtom"}, None),
    ],
)
def test_belief_side_falls_back_on_the_markers_where_the_engine_cannot_read(meta, side):
    assert belief_side(_unread(**meta)) == side


def test_bigtom_twins_share_a_key_without_the_belief_and_controls_pair_apart():
    true, false = _bigtom(3, "true"), _bigtom(3, "false")
    assert twin_key(true) == twin_key(false) == "bigtom:3:0:forward:belief:False"
    controls = {twin_key(_bigtom(3, b, control=True)) for b in ("true", "false")}
    assert controls == {"bigtom:3:0:forward:belief:True"}
    assert twin_key(_bigtom(4, "true")) != twin_key(true)
    assert twin_key(_unread(twin="s1:Ella").sample) == "s1:Ella"
    assert twin_key(_unread(question_type="first_order_1_tom").sample) is None


def test_two_way_items_get_the_real_and_first_values_their_side_implies():
    true, false = (audit_item(s) for s in (_bigtom(1, "true"), _bigtom(1, "false")))
    # the milk really is almond in both; it was oat at first
    assert (_with_reality(true, "true").reality, _with_reality(true, "true").first_value) == (
        ALMOND,
        OAT,
    )
    assert (_with_reality(false, "false").reality, _with_reality(false, "false").first_value) == (
        ALMOND,
        OAT,
    )
    assert _with_reality(false, None) is false


# -- shortcut_scores ----------------------------------------------------------------------------


def test_a_model_answering_the_true_location_scores_half_belief_balanced_and_no_margin():
    samples = _tomi()
    items = _items(samples)
    right = _heuristic_right("true_location", items)
    scores = shortcut_scores(samples, right, items=items)
    balanced = scores["belief_balanced"]
    assert balanced["value"] == 0.5
    assert (balanced["false_belief"]["accuracy"], balanced["true_belief"]["accuracy"]) == (0, 1)
    assert balanced["unknown_side"] == 0
    assert scores["belief_balanced_margin"]["value"] == 0.0
    assert scores["heuristics"]["true_location"]["accuracy"] == scores["accuracy"]["accuracy"]
    assert scores["paired"]["accuracy"] == 0.0  # every twin pair has one false belief


def test_a_perfect_model_scores_one_everywhere_and_beats_every_heuristic():
    samples = _tomi()
    scores = shortcut_scores(samples, {s.id: True for s in samples})
    assert scores["belief_balanced"]["value"] == 1.0
    assert scores["story_level"]["accuracy"] == 1.0
    assert scores["paired"]["accuracy"] == 1.0
    best = scores["heuristics"][scores["best_heuristic"]]["accuracy"]
    assert scores["margin"]["lift"] == pytest.approx(1 - best, abs=1e-4)
    assert scores["margin"]["low"] > 0
    assert scores["belief_balanced_margin"]["value"] == 0.5
    assert scores["belief_balanced_margin"]["ci95"][0] > 0
    json.dumps(scores)  # JSON-able as it is


def test_by_question_type_is_at_least_as_accurate_as_every_single_heuristic():
    samples = _tomi() + _bigtom_beliefs()
    scores = shortcut_scores(samples, {s.id: True for s in samples})
    rows = scores["heuristics"]
    combined = rows[BY_QUESTION_TYPE]
    assert set(rows) == {*HEURISTICS.names(), BY_QUESTION_TYPE}
    assert all(combined["accuracy"] >= row["accuracy"] for row in rows.values())
    # memory and reality questions pick different rules, so it beats every single one
    assert combined["picks"]["memory"] == "first_location"
    assert combined["picks"]["reality"] in ("last_named", "true_location")
    assert combined["accuracy"] > max(
        r["accuracy"] for n, r in rows.items() if n != BY_QUESTION_TYPE
    )
    assert scores["best_heuristic"] == BY_QUESTION_TYPE


def test_by_question_type_groups_by_family_so_it_cannot_read_the_side_off_the_type():
    # grouped by ToMi's question_type (first_order_1_tom vs _no_tom) it would pick the first
    # location on false beliefs and the real one on true beliefs: 100% belief-balanced
    samples = _tomi()
    scores = shortcut_scores(samples, {s.id: False for s in samples})
    assert scores["heuristics"][BY_QUESTION_TYPE]["belief_balanced"] == 0.5
    assert set(scores["heuristics"][BY_QUESTION_TYPE]["picks"]) == {
        "first_order",
        "second_order",
        "memory",
        "reality",
    }


def test_bigtom_twins_pair_up_and_the_true_state_gets_no_pair():
    samples = _bigtom_beliefs(6)
    scores = shortcut_scores(samples, {s.id: True for s in samples})
    assert scores["paired"] == {"pairs": 6, "correct": 6, "accuracy": 1.0, "ci95": (0.6097, 1.0)}
    rows = scores["heuristics"]
    # the real and first values come from each item's side: each is right on one twin
    for name in ("true_location", "first_location"):
        assert rows[name]["accuracy"] == 0.5
        assert rows[name]["belief_balanced"] == 0.5
        assert rows[name]["paired"] == 0.0
    best = max(r["paired"] for r in rows.values())
    assert 0 < best < 1 and scores["paired_margin"]["value"] == pytest.approx(1 - best)


def test_items_missing_from_right_are_left_out_of_the_heuristics_too():
    samples = _bigtom_beliefs(6)
    right = {s.id: False for s in samples if s.meta["belief"] == "true"}
    scores = shortcut_scores(samples, right)
    assert scores["n"] == 6 and scores["accuracy"]["correct"] == 0
    # on the true-belief items alone the real state is always right (0.5 over all twelve)
    assert scores["heuristics"]["true_location"]["accuracy"] == 1.0
    assert scores["heuristics"]["first_location"]["accuracy"] == 0.0
    assert scores["belief_balanced"] is None and scores["paired"] is None
    assert scores["margin"]["lift"] == -1.0


def test_a_story_counts_only_when_every_question_of_it_is_right():
    samples = _tomi(10)
    right = {s.id: True for s in samples}
    right[samples[0].id] = False
    scores = shortcut_scores(samples, right)
    stories = {story_key(s) for s in samples}
    level = scores["story_level"]
    assert (level["stories"], level["correct"]) == (len(stories), len(stories) - 1)
    assert level["questions_per_story"] == round(len(samples) / len(stories), 2)
    assert shortcut_scores(samples[:1], {samples[0].id: True})["story_level"] is None


def test_score_lines_render_each_figure_that_exists():
    samples = _bigtom_beliefs(6)
    scores = shortcut_scores(samples, {s.id: True for s in samples})
    lines = score_lines(scores)
    assert len(lines) == 4  # accuracy, belief-balanced, story level, paired
    # FB and TB 6/6 each: (7/8 + 7/8) / 2 = 0.875, half-width 1.96 * sqrt(2 * 7/64 / 8) / 2
    assert lines[1].startswith("belief-balanced 100.0% [71.3, 100.0] (FB 100.0%, TB 100.0%) · ")
    best = scores["belief_balanced_margin"]["heuristic"]
    value = scores["heuristics"][best]["belief_balanced"]
    assert (
        f"· best heuristic {100 * value:.1f}% ({best}) · margin {100 - 100 * value:+.1f} ["
        in (lines[1])
    )
    assert lines[3].startswith("paired 100.0% [61.0, 100.0] (6 pairs) · best heuristic ")
    empty = shortcut_scores(samples, {})
    assert empty["n"] == 0 and score_lines(empty) == []


def test_on_real_tomi_the_convention_free_figure_leaves_out_what_the_convention_decides(
    benchmarks,
):
    from tomflywheel.datasets import load_benchmark

    folder = benchmarks / "tomi" / "tomi_balanced_story_types"
    samples = list(load_benchmark("tomi", folder, split="val"))[:240]  # 40 whole stories
    items = {s.id: audit_item(s) for s in samples}
    # A model answering every item by the engine's principled rules.
    principled = {i: item.is_gold(item.engine_answer) for i, item in items.items()}
    scores = shortcut_scores(samples, principled, items=items)
    balanced = scores["belief_balanced"]
    free = balanced["convention_free"]
    assert free is not None and free["left_out"] == sum(not r for r in principled.values()) > 0
    assert free["value"] == 1.0 and balanced["value"] < 1.0
    # Where ToMi's gold and the principled rules agree on every item, there is no such figure.
    agreed = [s for s in samples if principled[s.id]]
    assert (
        shortcut_scores(agreed, principled, items=items)["belief_balanced"]["convention_free"]
        is None
    )
