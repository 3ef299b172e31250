"""Every registered generator: deterministic bytes, verified answers, the meta later stages use."""

import json
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tomflywheel._io import to_json_line
from tomflywheel.errors import ConfigError
from tomflywheel.world.generators import GENERATORS, generate
from tomflywheel.world.language import parse_story
from tomflywheel.world.samples import grammar_of, read_trace, verify_sample
from tomflywheel.world.verifiers import Answerer

SMALL = {"tomi": 6, "hitom": 4, "kosinski": 2, "tgtom": 3}


def _lines(kind, **params):
    return [to_json_line(sample) for sample in generate(kind, **params)]


@pytest.mark.parametrize("kind", GENERATORS.names())
def test_same_seed_same_bytes_other_seed_other_bytes(kind):
    first = _lines(kind, n=SMALL[kind], seed=11, controls=True, diversity=0.3)
    assert first == _lines(kind, n=SMALL[kind], seed=11, controls=True, diversity=0.3)
    assert first != _lines(kind, n=SMALL[kind], seed=12, controls=True, diversity=0.3)


@pytest.mark.parametrize("kind", GENERATORS.names())
def test_every_sample_verifies_from_its_trace_and_ids_are_unique(kind):
    samples = list(generate(kind, n=SMALL[kind], seed=5, controls=True))
    assert len({s.id for s in samples}) == len(samples)
    for sample in samples:
        result = verify_sample(sample)
        assert result.ok, (sample.id, result.reason)
        meta = sample.meta
        assert meta["dataset"] == GENERATORS.get(kind).dataset
        assert {"question_type", "order", "story_type", "control", "trace"} <= set(meta)
        assert json.loads(json.dumps(meta["trace"])) == meta["trace"]
        assert meta["trace"]["generator"] == kind and meta["trace"]["seed"] == 5


def test_tomi_names_its_question_types_like_tomi():
    samples = list(generate("tomi", n=3, seed=0))
    assert [s.id.split("-", 4)[-1] for s in samples[:6]] == [
        "memory",
        "reality",
        "first_order_0_no_tom",
        "first_order_1_no_tom",
        "second_order_0_no_tom",
        "second_order_1_no_tom",
    ]
    types = Counter(s.meta["story_type"] for s in samples)
    assert types == {"true_belief": 6, "false_belief": 6, "second_order_false_belief": 6}
    false_belief = [s for s in samples if s.meta["story_type"] == "false_belief"]
    assert [s.meta["question_type"] for s in false_belief][3] == "first_order_1_tom"
    assert all(s.kind.value == "open" for s in samples)


def test_tomi_controls_are_true_belief_twins_of_false_beliefs():
    samples = list(generate("tomi", n=3, seed=0, controls=True))
    controls = [s for s in samples if s.meta["control"]]
    assert controls, "the false-belief stories need twins"
    for control in controls:
        assert control.id.endswith("-control")
        assert "_no_tom" in control.meta["question_type"]
        story, spec, _ = read_trace(control.meta["trace"])
        assert Answerer(story).answer(spec) == control.answer.correct_answers[0]


def test_hitom_asks_orders_0_to_4_with_15_options():
    samples = list(generate("hitom", n=2, seed=1))
    assert [s.meta["order"] for s in samples] == [0, 1, 2, 3, 4] * 2
    for sample in samples:
        assert len(sample.options) == 15 and len(set(sample.options)) == 15
        assert sample.kind.value == "single_choice"
    assert [s.meta["deception"] for s in samples[::5]] == [False, True]


def test_kosinski_variants_reversals_and_expected_answers():
    samples = {s.id: s for s in generate("kosinski", n=2, seed=3, controls=True)}
    assert len(samples) == 2 * 2 * (5 + 4)
    by = {
        (s.meta["story_type"], s.meta["variant"], s.meta["reversed"], s.meta["question_type"]): s
        for s in samples.values()
    }
    fb = by[("unexpected_contents", "false_belief", False, "belief")]
    real = by[("unexpected_contents", "false_belief", False, "reality")]
    assert fb.answer.correct_answers != real.answer.correct_answers  # the label misleads
    rev = by[("unexpected_contents", "false_belief", True, "belief")]
    assert rev.answer.correct_answers == real.answer.correct_answers  # objects swapped
    for variant in ("correct_label", "informed", "open_container", "transparent"):
        pair = [by[("unexpected_contents", variant, False, q)] for q in ("belief", "reality")]
        assert pair[0].answer.correct_answers == pair[1].answer.correct_answers
        assert pair[0].meta["control"] is True
    moved = by[("unexpected_transfer", "false_belief", False, "belief")]
    assert (
        moved.answer.correct_answers
        != by[("unexpected_transfer", "false_belief", False, "reality")].answer.correct_answers
    )
    for variant in ("no_transfer", "informed", "present"):
        pair = [by[("unexpected_transfer", variant, False, q)] for q in ("belief", "reality")]
        assert pair[0].answer.correct_answers == pair[1].answer.correct_answers
    assert fb.meta["pair_id"] == real.meta["pair_id"]


def test_tgtom_asks_all_12_types_and_targeted_perturbations_change_the_answer():
    samples = list(generate("tgtom", n=4, seed=2))
    types = Counter(s.meta["question_type"] for s in samples)
    assert set(types) == {"Q0", "Q1", "Q2", "Q3", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q13"}
    for sample in samples:
        story, spec, _ = read_trace(sample.meta["trace"])
        assert 6 <= len(story.agents) <= 8
        if (
            sample.meta["question_type"] in ("Q5", "Q6", "Q10", "Q11", "Q13")
            and sample.meta["targeted"]
        ):
            original = Answerer(story).answer(replace(spec, edit=None))
            assert original != Answerer(story).answer(spec), sample.id
        if sample.meta["question_type"] in ("Q2", "Q6", "Q10"):
            assert sample.meta["chain_depth"] == len(story.agents) - 1


def test_bad_parameters_are_config_errors():
    with pytest.raises(ConfigError, match="tomi generator: bogus"):
        list(generate("tomi", bogus=1))
    with pytest.raises(ConfigError, match="unknown generator"):
        list(generate("nope"))


def test_kosinski_can_be_asked_for_chosen_variants_only():
    samples = list(
        generate("kosinski", n=2, seed=3, variants=("transparent", "present"), reversals=False)
    )
    assert [(s.meta["story_type"], s.meta["variant"]) for s in samples[::2]] == [
        ("unexpected_contents", "transparent"),
        ("unexpected_transfer", "present"),
    ]


@pytest.mark.parametrize("kind", GENERATORS.names())
def test_every_sample_story_parses_back_to_its_trace_events(kind):
    for sample in generate(kind, n=SMALL[kind], seed=8, controls=True, diversity=0.5):
        story, _, _ = read_trace(sample.meta["trace"])
        parsed = parse_story(sample.story, grammar_of(sample.meta) or "tgtom")
        assert parsed.events == story.events, sample.id


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(["tomi", "hitom", "kosinski", "tgtom"]))
def test_any_seed_gives_the_same_bytes_twice(seed, kind):
    assert _lines(kind, n=1, seed=seed, controls=True, diversity=0.5) == _lines(
        kind, n=1, seed=seed, controls=True, diversity=0.5
    )
