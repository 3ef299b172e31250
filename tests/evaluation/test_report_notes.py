"""What the report says about verdicts: chance marks, whisker-safe labels, judge warnings."""

import re

from tomflywheel.report import Bar, bar_chart, judge_notes


def test_a_bar_with_a_chance_level_draws_a_dashed_mark_at_it():
    svg = bar_chart([Bar("order 1", 0.05, (0.01, 0.2), chance=1 / 15)], title="t")
    assert svg.count('class="chance"') == 1 and "<title>chance 6.7%</title>" in svg


def test_the_value_label_is_placed_past_the_whisker():
    svg = bar_chart([Bar("x", 0.1, (0.05, 0.6))], title="t", width=560)
    # plot width 280 from x=220: the whisker ends at 220 + 0.6 * 280 = 388.
    label_x = float(re.search(r'<text x="([\d.]+)"[^>]*>10\.0</text>', svg).group(1))
    assert label_x > 388


def test_judge_notes_warn_about_self_judging_low_calibration_and_ambiguity():
    metrics = {
        "dataset": "tomi",
        "counts": {"ambiguous": 2, "unjudged": 1},
        "judge_identity": {
            "evaluated_model": "smollm2-135m-instruct",
            "judge_model": "smollm2-135m-instruct",
            "same": True,
            "asked": 6,
        },
        "judge_calibration": {"warning": "agrees on 3 of 6 items"},
    }
    notes = judge_notes(metrics)
    assert notes[0].startswith("tomi: the LLM judge is the evaluated model itself")
    assert notes[1] == "tomi: agrees on 3 of 6 items"
    assert "2 ambiguous" in notes[2] and "1 unjudged" in notes[3]
    assert judge_notes({"dataset": "x", "counts": {}}) == []
