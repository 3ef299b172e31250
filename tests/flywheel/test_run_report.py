"""The run report links each round's evaluation and shows bad cases with the model's output."""

from tomflywheel.artifacts import RoundSummary
from tomflywheel.report import lift_rows, write_run_report


def _round(exp_dir):
    return RoundSummary.model_validate(
        {
            "round": 1,
            "exp_dir": str(exp_dir),
            "model": "m",
            "accuracy": {
                "hitom": {
                    "task": "hitom",
                    "overall": {"accuracy": 0.05, "ci95": [0.01, 0.2], "n": 20, "chance": 1 / 15},
                    "groups": {},
                }
            },
            "bad_cases": {
                "reality_bias": [
                    {
                        "dataset": "tomi",
                        "sample_id": "tomi-1",
                        "question": "Where will Sophia look for the grapes?",
                        "gold": ["purple_container"],
                        "output": "The grapes is in the yellow_trunk.",
                        "evidence": "where the grapes really are",
                    }
                ]
            },
            "error_profile": {},
            "candidates": {"total": 0},
            "filter": {},
            "requests": 0,
            "seconds": {},
        }
    )


def test_run_report_links_rounds_and_shows_bad_cases_and_chance(tmp_path):
    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    exp_dir = run_dir / "round-1" / "eval"
    html = write_run_report(run_dir, [_round(exp_dir)], "train", tmp_path).read_text()
    assert '<a href="round-1/eval/report.html">round 1: evaluation report</a>' in html
    assert "Bad cases by error category" in html
    assert "The grapes is in the yellow_trunk." in html and "reality_bias" in html
    assert "<title>chance 6.7%</title>" in html


def _lift(before: float, after: float, paired: bool = True) -> dict:
    part = {"n": 10, "accuracy": before}
    later = {"n": 10, "accuracy": after}
    entry = {
        "before": {p: part for p in ("all", "targets", "controls")},
        "after": {p: later for p in ("all", "targets", "controls")},
        "lift": {p: round(after - before, 4) for p in ("all", "targets", "controls")},
        "shortcut_warning": None,
    }
    if paired:
        paired = {
            "n": 10, "clusters": 10, "gained": 1, "lost": 0, "lift": 0.1,
            "low": -0.05, "high": 0.45, "design_effect": 1.0,
        }  # fmt: skip
        entry["paired"] = {p: paired for p in ("all", "targets", "controls")}
    return {"tomi": entry}


def test_lift_rows_give_each_round_against_the_previous_and_the_base():
    rounds = [
        RoundSummary.model_validate(r)
        for r in (
            {"round": 1, "model": "m", "lift": _lift(0.4, 0.5, paired=False)},
            {"round": 2, "model": "m", "lift": _lift(0.5, 0.6), "lift_vs_base": _lift(0.4, 0.6)},
        )
    ]
    rows = lift_rows(rounds)
    assert [(r[0], r[2]) for r in rows if r[1] == "tomi"] == [
        (1, "all"),
        (1, "targets"),
        (1, "controls"),
        (2, "all"),
        (2, "targets"),
        (2, "controls"),
        (2, "all vs base"),
        (2, "targets vs base"),
        (2, "controls vs base"),
    ]
    assert rows[0][6] == "+10.0"  # a summary without paired intervals (older runs)
    assert rows[4][4:7] == ("50.0", "60.0", "+10.0 [-5.0, +45.0]")
    assert rows[7][4:7] == ("40.0", "60.0", "+20.0 [-5.0, +45.0]")
