"""tgtom, all 100 stories, 12 question types (perturbations applied): 100%."""

from tomflywheel.world import (
    TGTOM_QUESTION_TYPES,
    check_benchmark,
    load_tgtom,
    parse_question,
    question_text,
)


def test_tgtom_profile_reproduces_all_12_question_types(benchmarks):
    report = check_benchmark("tgtom", benchmarks / "tgtom")
    totals = {row.qtype: (row.agree, row.total) for row in report.rows}
    assert list(totals) == list(TGTOM_QUESTION_TYPES)
    assert totals == {q: ((712, 712) if q == "Q1" else (100, 100)) for q in TGTOM_QUESTION_TYPES}
    assert report.mismatches == ()
    assert report.verifier_disagreements == ()


def test_the_default_differs_only_where_a_mover_left_before_its_own_move(benchmarks):
    report = check_benchmark("tgtom", benchmarks / "tgtom", profile="default", verify_both=False)
    assert report.agree == 1810
    assert [(m.story_id, m.qtype) for m in report.mismatches] == [("22", "Q10"), ("82", "Q10")]


def test_question_texts_are_rebuilt_from_specs_and_parse_back(benchmarks):
    for item in load_tgtom(benchmarks / "tgtom"):
        assert question_text(item.spec, "tgtom") == item.question
        parsed = parse_question(item.question, "tgtom", item.story)
        # Q3's text does not say which of the actor's moves it means.
        assert parsed.kind == item.spec.kind
        assert parsed.chain == item.spec.chain and parsed.group == item.spec.group
        assert parsed.edit == item.spec.edit
