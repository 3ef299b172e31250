"""Hi-ToM CoTP records, orders 0-4: 583 of 600 (97.2%), each residual with its cause."""

import json

import pytest

from tomflywheel.datasets import load_benchmark
from tomflywheel.world.checks import check_samples

# sample_id -> what the cause must say (the full list of residual mismatches).
RESIDUALS = {
    "241": "container of the lemon",
    "261": "container of the lemon",
    "281": "container of the lemon",
    "285": "container of the sweet_potato",
    "857": "container of the spinach",
    "242": "re-entered the staircase",
    "262": "re-entered the staircase",
    "758": "re-entered the pantry",
    "778": "re-entered the pantry",
    "742": "VP says red_bottle (the engine's answer)",
    "762": "VP says red_bottle (the engine's answer)",
    "782": "VP says red_bottle (the engine's answer)",
    "296": "VP says green_pantry",
    "292": "before line 3 (William moved the corn to the green_cupboard)",
    "774": "before line 4 (Chloe moved the potato to the green_bottle)",
    "794": "before line 4 (Chloe moved the potato to the green_bottle)",
    "881": "before line 5 (Ella moved the melon to the blue_bottle)",
}


@pytest.fixture(scope="module")
def samples(benchmarks):
    return load_benchmark("hitom", benchmarks / "hitom")


@pytest.fixture(scope="module")
def report(samples):
    return check_samples("hitom", samples)


def test_hitom_profile_reproduces_97_percent(report):
    assert (report.agree, report.total) == (583, 600)
    assert report.verifier_disagreements == ()
    rows = {row.qtype: row.agree for row in report.rows}
    assert rows == {
        "order_0_deception": 60,
        "order_0_no_deception": 60,
        "order_1_deception": 60,
        "order_1_no_deception": 60,
        "order_2_deception": 57,
        "order_2_no_deception": 58,
        "order_3_deception": 57,
        "order_3_no_deception": 58,
        "order_4_deception": 57,
        "order_4_no_deception": 56,
    }


def test_every_residual_mismatch_is_listed_with_its_cause(report):
    assert {m.story_id for m in report.mismatches} == set(RESIDUALS)
    for mismatch in report.mismatches:
        assert RESIDUALS[mismatch.story_id] in mismatch.cause, mismatch


def test_the_principled_default_misses_hitoms_claim_conventions(samples):
    report = check_samples("hitom", samples, profile="default", verify_both=False)
    assert report.agree == 562
    deception = {row.qtype: row.agree for row in report.rows if row.qtype.endswith("_deception")}
    assert deception["order_2_deception"] == 40


def test_a_story_with_an_unknown_sentence_is_counted_unparsed_and_the_rest_checked(
    benchmarks, tmp_path
):
    document = json.loads((benchmarks / "hitom" / "Hi-ToM_data.json").read_text(encoding="utf-8"))
    story = next(r["story"] for r in document["data"] if r["sample_id"] == 10)
    broken = story.replace("4 Alexander lost his phone.", "4 Alexander juggled three torches.")
    assert broken != story
    for record in document["data"]:
        if record["story"] == story:
            record["story"] = broken
    path = tmp_path / "Hi-ToM_data.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    report = check_samples("hitom", load_benchmark("hitom", path), verify_both=False)
    # The five questions (orders 0-4) of that story, all agreeing before: 583 - 5 now.
    assert [(r.story_id, r.line) for r in report.unparsed] == [
        (str(sample_id), 4) for sample_id in (10, 30, 50, 70, 90)
    ]
    assert {r.reason for r in report.unparsed} == {
        "hitom: cannot parse 'Alexander juggled three torches.'"
    }
    assert (report.questions, report.total, report.agree) == (600, 595, 578)
    assert len(report.mismatches) == 17
