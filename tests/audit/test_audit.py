"""The shortcut audit on hand-built sets where a heuristic is known to be exact, or none is."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tomflywheel.audit import (
    HEURISTICS,
    PROBE,
    answered,
    audit_item,
    audit_items,
    audit_predictions,
    audit_samples,
    item_chance,
    question_family,
)
from tomflywheel.schema import Answer, Judgment, MethodRef, Prediction, Sample, Verdict
from tomflywheel.world import generate


def _tomi(n: int = 120, **params) -> list[Sample]:
    return list(generate("tomi", seed=7, n=n, controls=True, **params))


def _by_class(samples: list[Sample]) -> dict[tuple[str, bool], list[Sample]]:
    """Belief questions by family and by whether the answer is where the object really is."""
    groups: dict[tuple[str, bool], list[Sample]] = defaultdict(list)
    for item in audit_items(samples):
        if item.asks == "belief":
            groups[(item.family, bool(item.false_belief))].append(item.sample)
    return groups


def test_families_keep_true_and_false_belief_items_together():
    names = {question_family(s) for s in _tomi(12)}
    assert names == {"memory", "reality", "first_order", "second_order"}
    bigtom = Sample(
        id="b",
        story="s",
        question="q",
        answer=Answer(correct_answers=["a"], wrong_answers=["b"]),
        meta={"dataset": "bigtom", "direction": "forward", "variable": "belief", "belief": "true"},
    )
    assert question_family(bigtom) == "forward_belief"


def test_an_all_reality_set_is_answered_by_the_real_location_and_flagged():
    reality_only = [s for (_, fb), group in _by_class(_tomi()).items() if not fb for s in group]
    report = audit_samples(reality_only, min_items=10)
    rows = [r for r in report.rows if r.heuristic == "true_location"]
    assert rows and all(r.accuracy == 1.0 and r.flagged for r in rows if r.n >= 10)
    assert {r.family for r in report.flagged()} == {r.family for r in rows if r.n >= 10}


def test_balanced_twins_keep_every_heuristic_within_the_margin():
    balanced = []
    groups = _by_class(_tomi(240))
    for family in sorted({family for family, _ in groups}):
        true, false = groups[(family, False)], groups[(family, True)]
        k = min(len(true), len(false))
        balanced += true[:k] + false[:k]
    report = audit_samples(balanced, min_items=10)
    assert {r.heuristic for r in report.rows} >= {"true_location", "first_location", PROBE}
    assert report.flagged() == []
    for row in report.rows:
        if row.heuristic == "true_location":
            assert row.accuracy == 0.5


def test_world_questions_are_reported_but_never_flagged():
    memory = [s for s in _tomi(60) if s.meta["question_type"] == "memory"]
    report = audit_samples(memory, min_items=5)
    first = next(r for r in report.rows if r.heuristic == "first_named")
    assert first.accuracy == 1.0 and not first.flagged and not first.asks_mind
    # The real location is the reality answer by definition: it is not counted there at all.
    reality = [s for s in _tomi(60) if s.meta["question_type"] == "reality"]
    assert "true_location" not in {r.heuristic for r in audit_samples(reality).rows}


def _choice(i: int, gold: str, wrong: list[str]) -> Sample:
    return Sample(
        id=f"c{i}",
        story="Ann went to the park.",
        question="Where?",
        answer=Answer(correct_answers=[gold], wrong_answers=wrong),
        meta={"dataset": "custom_choice"},
    )


def test_longest_option_and_yes_no_heuristics():
    longest = [_choice(i, "the very long right answer", ["short", "tiny"]) for i in range(30)]
    report = audit_samples(longest, probe=False)
    row = next(r for r in report.rows if r.heuristic == "longest_option")
    assert (row.accuracy, row.chance, row.flagged) == (1.0, pytest.approx(1 / 3, abs=1e-3), True)
    yes = [_choice(i, "yes", ["no"]) for i in range(30)]
    rows = {r.heuristic: r for r in audit_samples(yes, probe=False).rows}
    assert rows["always_yes"].accuracy == 1.0 and rows["always_yes"].flagged
    assert rows["always_no"].accuracy == 0.0 and not rows["always_no"].flagged


def test_every_heuristic_has_a_description():
    for name in HEURISTICS.names():
        assert HEURISTICS.get(name).description


def test_predictions_audit_finds_a_model_that_names_the_real_location():
    samples = [s for s in _tomi(60) if s.meta["question_type"].startswith("first_order")]
    items = audit_items(samples)
    predictions, judgments = [], []
    for item in items:
        # A model that always answers where the object really is.
        output = f"The {item.sample.meta['trace']['question']['subject']} is in the {item.reality}."
        predictions.append(
            Prediction(
                sample_id=item.sample.id,
                trial=0,
                mode="generate",
                endpoint="chat",
                raw_output=output,
            )
        )
        judgments.append(
            Judgment(
                sample_id=item.sample.id,
                trial=0,
                verdict=Verdict.INCORRECT,
                method=MethodRef(name="rules"),
            )
        )
    result = audit_predictions(items, predictions, judgments)
    assert result["best_explained_by"] in {"true_location", "last_named"}
    assert result["agreement"]["true_location"]["accuracy"] == 1.0
    false_beliefs = sum(bool(item.false_belief) for item in items)
    assert result["reality_bias"] == {
        "n": false_beliefs,
        "correct": false_beliefs,
        "accuracy": 1.0,
        "ci95": result["reality_bias"]["ci95"],
    }
    assert false_beliefs > 0


def test_an_answer_naming_two_candidates_is_unreadable():
    item = audit_item(_tomi(3)[5])
    a, b = item.candidates[:2]
    prediction = Prediction(
        sample_id=item.sample.id,
        trial=0,
        mode="generate",
        endpoint="chat",
        raw_output=f"{a} or {b}",
    )
    assert answered(item, prediction, None) is None


def test_every_heuristic_is_documented():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "audit.md").read_text(encoding="utf-8")
    for name in HEURISTICS.names():
        assert f"- `{name}`" in docs


def test_convention_free_items_are_those_whose_gold_the_engine_derives():
    sample = _tomi(3)[4]
    assert audit_item(sample).convention_free is True
    wrong = sample.model_copy(
        update={"answer": Answer(correct_answers=["nowhere_box"]), "id": "relabelled"}
    )
    assert audit_item(wrong).convention_free is False
    unreadable = Sample(
        id="x",
        story="A poem.",
        question="Why?",
        answer=Answer(correct_answers=["because"]),
        meta={"dataset": "custom"},
    )
    assert audit_item(unreadable).convention_free is None


def test_chance_is_among_the_candidates_the_story_names():
    options = ["red_box", "blue_crate", "green_bag", "pink_drum", "gray_tub", "teal_jar"]
    story = "1 Ann put the ball in the red_box.\n2 Bob moved the ball to the blue_crate."
    sample = Sample(
        id="named",
        story=story,
        question="Where is the ball?",
        answer=Answer(correct_answers=["red_box"], wrong_answers=options[1:]),
        meta={"dataset": "custom_choice"},
    )
    assert item_chance(audit_item(sample)) == pytest.approx(1 / 2)  # two named, not six
    unnamed = sample.model_copy(update={"story": "1 Ann and Bob talked."})
    assert item_chance(audit_item(unnamed)) == pytest.approx(1 / 6)  # none named: all options


def test_a_tomi_story_under_any_name_gets_its_containers_as_candidates():
    story = (
        "Ann entered the den.\nBob entered the den.\nThe ball is in the red_box.\n"
        "Bob exited the den.\nAnn moved the ball to the blue_crate."
    )
    sample = Sample(
        id="mapped-1",
        story=story,
        question="Where will Bob look for the ball?",
        answer=Answer(correct_answers=["red_box"]),
        meta={"dataset": "my_tomi_copy"},  # imported by a mapping: no candidates, no grammar
    )
    item = audit_item(sample)
    assert item.candidates == ("red_box", "blue_crate")
    assert (item.asks, item.reality, item.false_belief) == ("belief", "blue_crate", True)
    elsewhere = sample.model_copy(update={"answer": Answer(correct_answers=["the attic"])})
    assert audit_item(elsewhere).candidates == ()  # the gold is no container: no closed set
