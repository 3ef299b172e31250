"""The run report explains itself: a chance legend, the plan as items, admitted data by role and
question family, and long evidence folded."""

from __future__ import annotations

import json
from pathlib import Path

from tomflywheel.artifacts import RoundSummary
from tomflywheel.report import write_run_report
from tomflywheel.schema import Answer, Sample

TRAINED = {"model_dir": "m", "weights_sha256": "0" * 64, "base": "b", "data": "d.jsonl"}
"""What every trained round records beside the figures a test looks at."""


def _sample(i: int, question_type: str) -> Sample:
    return Sample(
        id=f"a{i}",
        story="(a story the engine does not read)",
        question="Where is the ball?",
        answer=Answer(correct_answers=["box"]),
        meta={
            "dataset": "tomi_synth",
            "question_type": question_type,
            "lineage": {"weakness": "tomi · order 1 · reality_bias", "generator": "tomi"},
        },
    )


def _round(exp_dir: Path, evidence: str) -> dict:
    return {
        "round": 1,
        "model": "m",
        "exp_dir": str(exp_dir),
        "accuracy": {
            "tomi_synth": {
                "task": "tomi_synth",
                "overall": {"accuracy": 0.4375, "ci95": [0.2, 0.7], "n": 16, "chance": 0.5},
                "groups": {},
            }
        },
        "bad_cases": {
            "order_confusion": [
                {
                    "dataset": "tomi_synth",
                    "sample_id": "s1",
                    "question": "Where does Ann think Bob looks?",
                    "gold": ["box"],
                    "output": "bag",
                    "evidence": evidence,
                }
            ]
        },
        "error_profile": {},
        "candidates": {"total": 3},
        "filter": {"admitted": 3},
        "requests": 0,
        "seconds": {},
    }


def _write(tmp_path: Path, evidence: str) -> str:
    run_dir = tmp_path / "runs" / "r1"
    exp_dir = run_dir / "round_1" / "eval"
    (exp_dir / "feedback").mkdir(parents=True)
    plan = {
        "plan_id": "0123abcd4567",
        "seed": 0,
        "budget": 40,
        "controls": True,
        "self_diagnoses_left_out": 5,
        "items": [
            {
                "weakness": "tomi · order 1 · reality_bias",
                "role": "target",
                "generator": "tomi",
                "why": "first-order false beliefs",
                "n_diagnoses": 7,
                "count": 40,
            }
        ],
    }
    (exp_dir / "feedback" / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    train_dir = tmp_path / "train"
    train_dir.mkdir()
    samples = [_sample(0, "first_order_0_tom"), _sample(1, "reality"), _sample(2, "memory")]
    (train_dir / "train.jsonl").write_text(
        "".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8"
    )
    summary = RoundSummary.model_validate(_round(exp_dir, evidence))
    return write_run_report(run_dir, [summary], "train", train_dir).read_text()


def test_the_report_has_a_chance_legend_and_the_plan_as_items(tmp_path):
    html = _write(tmp_path, "where the ball really is")
    assert 'class="note legend"' in html and "chance level: the accuracy of a random pick" in html
    assert "Round 1: synthesis plan 0123abcd4567, budget 40" in html
    assert "5 diagnoses by the evaluated model itself left out" in html
    assert "<td>tomi · order 1 · reality_bias</td><td>target</td><td>tomi</td>" in html
    # The lineage names the plan item, not only the plan's hash.
    assert "Admitted by plan item" in html and "Admitted by plan_id" not in html


def test_admitted_data_is_split_into_targets_and_controls_by_family(tmp_path):
    html = _write(tmp_path, "where the ball really is")
    assert "Admitted by question family: 1 targets, 2 controls" in html
    assert "<td>tomi_synth</td><td>first_order</td><td>1</td><td>0</td>" in html
    assert "<td>tomi_synth</td><td>reality</td><td>0</td><td>1</td>" in html


def test_long_evidence_is_folded_and_short_evidence_is_not(tmp_path):
    chains = "; ".join(f"Ann thinks Bob thinks the ball is in place_{i}" for i in range(60))
    html = _write(tmp_path, chains)
    assert f"<details><summary>{chains[:160].rstrip()} …</summary>{chains}</details>" in html
    assert "<td>where the ball really is</td>" in _write(tmp_path / "b", "where the ball really is")


def test_a_cut_last_admitted_line_is_skipped_not_fatal(tmp_path):
    """A report drawn after a kill mid-write counts the whole samples and skips the cut one."""
    train_dir = tmp_path / "train"
    train_dir.mkdir()
    whole = _sample(1, "first_order").model_dump_json() + "\n"
    cut = _sample(2, "first_order").model_dump_json()[:40]
    (train_dir / "train.jsonl").write_text(whole + cut, encoding="utf-8")
    html = write_run_report(tmp_path, [], "train", train_dir).read_text(encoding="utf-8")
    assert "(1 admitted samples in" in html


def _trained_round(number: int, trained: dict, exp_dir: Path) -> RoundSummary:
    part = {"accuracy": 0.5, "n": 4, "ci95": [0.2, 0.8]}
    lift = {
        "before": {"all": part, "targets": part, "controls": part},
        "after": {"all": part, "targets": part, "controls": part},
        "lift": {"all": 0.0, "targets": 0.0, "controls": 0.0},
        "shortcut_warning": None,
    }
    summary = _round(exp_dir, "where the ball really is")
    return RoundSummary.model_validate(
        {
            **summary,
            "round": number,
            "trained": {**TRAINED, **trained},
            "lift": {"tomi_heldout": lift},
        }
    )


def test_the_trained_table_names_the_method_and_a_grpo_rounds_rewards(tmp_path):
    common = {"samples": 8, "steps": 2, "first_loss": 1.5, "last_loss": 1.25, "seconds": 3.0}
    rounds = [
        # a round recorded before GRPO existed: no method, no rewards
        _trained_round(1, {"served_name": "m-r1", **common}, tmp_path / "e1"),
        _trained_round(
            2,
            {
                "served_name": "m-r2",
                "method": "grpo",
                "first_reward": 0.125,
                "last_reward": 0.6,
                **common,
            },
            tmp_path / "e2",
        ),
    ]
    html = write_run_report(tmp_path, rounds, "train", tmp_path / "none")
    text = html.read_text(encoding="utf-8")
    assert "<th>first reward</th><th>last reward</th>" in text
    assert "<td>1</td><td>m-r1</td><td>sft</td><td>8</td><td>2</td>" in text
    assert "<td>1.25</td><td>–</td><td>–</td>" in text
    assert "<td>m-r2</td><td>grpo</td>" in text and "<td>0.125</td><td>0.600</td>" in text


def test_the_trained_table_gives_the_lowest_validation_loss_and_where_the_weights_are_from(
    tmp_path,
):
    common = {"samples": 8, "steps": 6, "first_loss": 1.5, "last_loss": 1.25, "seconds": 3.0}
    stopped = {"samples": 4, "losses": [[2, 0.75], [4, 0.5], [6, 0.625]], "weights_from_step": 4}
    kept_last = {"samples": 4, "losses": [[3, 0.75], [6, 0.5]], "weights_from_step": 7}
    rounds = [
        _trained_round(1, {"served_name": "m-r1", **common}, tmp_path / "e1"),
        _trained_round(
            2,
            {"served_name": "m-r2", "validation": {**stopped, "stopped_early": True}, **common},
            tmp_path / "e2",
        ),
        _trained_round(
            3,
            {"served_name": "m-r3", "validation": {**kept_last, "stopped_early": False}, **common},
            tmp_path / "e3",
        ),
    ]
    text = write_run_report(tmp_path, rounds, "train", tmp_path / "none").read_text("utf-8")
    assert "<th>last reward</th><th>validation loss</th><th>seconds</th>" in text
    assert "<td>–</td><td>–</td><td>–</td><td>3.0</td>" in text  # no validation share
    assert "<td>lowest 0.5000 at step 4, stopped early</td>" in text
    assert "<td>lowest 0.5000 at step 6; weights of step 7</td>" in text
