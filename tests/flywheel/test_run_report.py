"""The run report links each round's evaluation and shows bad cases with the model's output."""

from tomflywheel.report import write_run_report


def _round(exp_dir):
    return {
        "round": 1,
        "exp_dir": str(exp_dir),
        "accuracy": {
            "hitom": {
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


def test_run_report_links_rounds_and_shows_bad_cases_and_chance(tmp_path):
    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    exp_dir = run_dir / "round-1" / "eval"
    html = write_run_report(run_dir, [_round(exp_dir)], "train", tmp_path).read_text()
    assert '<a href="round-1/eval/report.html">round 1: evaluation report</a>' in html
    assert "Bad cases by error category" in html
    assert "The grapes is in the yellow_trunk." in html and "reality_bias" in html
    assert "<title>chance 6.7%</title>" in html
