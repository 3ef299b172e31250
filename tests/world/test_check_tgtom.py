"""tgtom, all 100 stories, 12 question types (perturbations applied): 100%."""

import pytest

from tomflywheel.datasets import load_benchmark
from tomflywheel.world.checks import check_samples, tgtom_items
from tomflywheel.world.generators import TGTOM_QUESTION_TYPES
from tomflywheel.world.language import parse_question, question_text


@pytest.fixture(scope="module")
def samples(benchmarks):
    return load_benchmark("tgtom", benchmarks / "tgtom")


def test_tgtom_profile_reproduces_all_12_question_types(samples):
    report = check_samples("tgtom", samples)
    totals = {row.qtype: (row.agree, row.total) for row in report.rows}
    assert list(totals) == list(TGTOM_QUESTION_TYPES)
    assert totals == {q: ((712, 712) if q == "Q1" else (100, 100)) for q in TGTOM_QUESTION_TYPES}
    assert report.mismatches == ()
    assert report.verifier_disagreements == ()


def test_the_default_differs_only_where_a_mover_left_before_its_own_move(samples):
    report = check_samples("tgtom", samples, profile="default", verify_both=False)
    assert report.agree == 1810
    assert [(m.story_id, m.qtype) for m in report.mismatches] == [("22", "Q10"), ("82", "Q10")]


def test_question_texts_are_rebuilt_from_specs_and_parse_back(samples):
    for item in tgtom_items(samples):
        assert question_text(item.spec, "tgtom") == item.question
        parsed = parse_question(item.question, "tgtom", item.story)
        # Q3's text does not say which of the actor's moves it means.
        assert parsed.kind == item.spec.kind
        assert parsed.chain == item.spec.chain and parsed.group == item.spec.group
        assert parsed.edit == item.spec.edit


def test_a_story_with_an_unknown_sentence_is_counted_unparsed_and_the_rest_checked(
    benchmarks, tmp_path
):
    for source in (benchmarks / "tgtom").glob("*_v10.jsonl"):
        text = source.read_text(encoding="utf-8")
        if source.name == "stories_v10.jsonl":
            old = "\\n9 Scarlett cleared their throat.\\n"
            assert text.count(old) == 1
            text = text.replace(old, "\\n9 Scarlett juggled three torches.\\n")
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    report = check_samples("tgtom", load_benchmark("tgtom", tmp_path), verify_both=False)
    # Story 0's 18 questions (Q1 once per agent) are unparsed; the other 99 stories agree.
    assert len(report.unparsed) == 18
    assert {(r.story_id, r.line, r.reason) for r in report.unparsed} == {
        ("0", 9, "tgtom: cannot parse 'Scarlett juggled three torches.'")
    }
    assert (report.questions, report.total, report.agree) == (1812, 1794, 1794)
