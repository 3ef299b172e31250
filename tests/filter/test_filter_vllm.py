"""The filter's LLM work through the real vLLM server: extraction, repair, k-solve, rubric.

The session's model is tiny (SmolLM2-135M), a weak judge: these tests assert structure and
bookkeeping (which checks ran on which version, repair accounting, zero requests on re-runs,
same bytes), not its wisdom.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.filter.conftest import sample, tomi_samples, write_jsonl

from tomflywheel.config import LLMSettings, Settings
from tomflywheel.filter import REASONS, FilterRun, FilterSettings, run_filter
from tomflywheel.schema import CheckStatus, QualityDecision, QualityVerdict

pytestmark = pytest.mark.vllm

# Small token budgets: the tiny model rambles until the limit, and the CPU server is slow.
SMALL = {
    "rubric": {"max_tokens": 64},
    "label": {"extraction_max_tokens": 192},
    "repair": {"max_tokens": 256},
    "solve": {"k": 3, "max_tokens": 8},
}


def settings_for(llm_settings: LLMSettings) -> Settings:
    return Settings(server="external", llm=llm_settings)


def by_type(question_type: str):
    return next(s for s in tomi_samples(1, seed=3) if s.meta["question_type"] == question_type)


def result_of(verdict: QualityVerdict, attempt: int, check: str):
    return next(r for r in verdict.attempts[attempt].checks if r.check == check)


def files_of(train_dir: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(train_dir)): p.read_bytes()
        for p in sorted(train_dir.rglob("*"))
        if p.is_file()
    }


def run(llm_settings, source, train_dir, **settings):
    filter_settings = FilterSettings(**{**SMALL, **settings})
    return run_filter(
        FilterRun(
            settings=settings_for(llm_settings).model_copy(update={"filter": filter_settings}),
            input_path=source,
            train_dir=train_dir,
            eval_dir=train_dir / "no-eval-sets",
        )
    )


def test_naturalization_is_extracted_and_repaired_through_the_server(llm_settings, tmp_path):
    item = by_type("first_order_1_no_tom")
    prose = " ".join(line.split(" ", 1)[1] for line in item.story.splitlines())
    natural = item.model_copy(
        update={"id": "nat-1", "story": prose, "meta": {**item.meta, "origin": "naturalized"}}
    )
    source = write_jsonl(tmp_path / "nat.jsonl", [natural])
    summary = run(llm_settings, source, tmp_path / "train", disabled_checks=["rubric"])
    [verdict] = summary.verdicts
    first = result_of(verdict, 0, "naturalization")
    # The structured call ran on the prose; whatever the tiny model said was judged.
    assert first.status is not CheckStatus.SKIPPED
    assert first.reason in (None, "extraction_failed", "naturalization_drift")
    assert result_of(verdict, 0, "symbolic_label").status is CheckStatus.PASSED
    assert result_of(verdict, 0, "rubric").reason == "disabled"
    if first.reason is not None:  # repairable: a rewrite was asked for
        assert summary.repair_attempted == 1
        # Each rewrite that came back is checked again and may fail again, up to
        # filter.repair.attempts (2) rewrites; a rewrite that did not come back ends the repair.
        rewrites = len(verdict.attempts) - 1
        assert rewrites <= FilterSettings().repair.attempts
        if rewrites:
            repair = verdict.sample.meta["repair"]
            assert repair["attempts"] == rewrites and len(repair["history"]) == rewrites
            assert repair["history"][0] == [first.reason]
            again = result_of(verdict, 1, "naturalization")
            assert again.status is not CheckStatus.SKIPPED or again.reason == "earlier_failure"
        else:
            assert verdict.attempts[0].repair_failure.startswith("rewrite failed: ")
    assert (verdict.decision is QualityDecision.ACCEPTED) == (verdict.reasons == [])
    assert summary.usage["requests_sent"] >= 1

    # Same input, same cache, fresh folder: no request is sent and every byte is the same.
    fresh = run(llm_settings, source, tmp_path / "fresh", disabled_checks=["rubric"])
    assert fresh.usage["requests_sent"] == 0
    assert files_of(tmp_path / "fresh") == files_of(tmp_path / "train")
    # Same folder: everything is decided already, so no LLM is even started.
    again = run(llm_settings, source, tmp_path / "train", disabled_checks=["rubric"])
    assert (again.already_decided, again.usage) == (1, {})


def test_a_leaked_answer_is_rewritten_then_checked_again(llm_settings, tmp_path):
    item = by_type("reality")
    gold = item.answer.correct_answers[0]
    leaky = item.model_copy(update={"id": "leak-1", "question": f"Is it in the {gold} really?"})
    source = write_jsonl(tmp_path / "leak.jsonl", [leaky])
    summary = run(llm_settings, source, tmp_path / "train", disabled_checks=["rubric"])
    [verdict] = summary.verdicts
    assert [r.reason for r in verdict.attempts[0].checks if r.failed] == ["answer_leak"]
    assert summary.repair_attempted == 1
    rewrites = len(verdict.attempts) - 1  # a rewrite may fail a check again: up to 2
    if rewrites:
        rewritten = verdict.sample
        assert rewritten.answer == leaky.answer  # a rewrite never changes the answer
        assert rewritten.meta["origin"] == "naturalized"  # its prose is no longer the engine's
        assert rewritten.meta["repair"]["attempts"] == rewrites
        assert rewritten.meta["repair"]["history"][0] == ["answer_leak"]
        assert [a.attempt for a in verdict.attempts] == list(range(rewrites + 1))
        natural = result_of(verdict, 1, "naturalization")
        assert natural.status is not CheckStatus.SKIPPED or natural.reason == "earlier_failure"
    else:
        assert verdict.attempts[0].repair_failure.startswith("rewrite failed: ")
    manifest = json.loads(summary.manifest_path.read_text())["datasets"]["leak"]
    assert manifest["repair"]["attempted"] == 1
    assert manifest["repair"]["succeeded"] == int(verdict.decision is QualityDecision.ACCEPTED)


def test_free_form_labels_are_solved_k_times_and_rubric_scored(llm_settings, tmp_path):
    source = write_jsonl(tmp_path / "free.jsonl", [sample(sample_id="free-1", wrong=["box"])])
    summary = run(llm_settings, source, tmp_path / "train", repair={"attempts": 0})
    [verdict] = summary.verdicts
    solve = result_of(verdict, 0, "solve_agreement")
    assert solve.reason in (None, "label_unconfirmed", "label_unjudged")
    if solve.reason != "label_unjudged":
        assert re.match(r"^judge .+: [0-3]/3 trials agree with the label \(answers: ", solve.detail)
    rubric = result_of(verdict, 0, "rubric")
    assert rubric.status is not CheckStatus.SKIPPED
    assert rubric.reason is None or REASONS[rubric.reason].check == "rubric"
    if rubric.reason != "rubric_unjudged":
        assert set(verdict.attempts[0].rubric) == {"issues", "clarity", "solvability", "needs_tom"}
    # No repair budget: a repairable failure is rejected as it is, with every reason kept.
    assert len(verdict.attempts) == 1
    assert verdict.reasons == [r.reason for r in verdict.attempts[0].checks if r.failed]
    # 3 solving trials and 1 rubric call (the rubric may re-ask after an invalid reply).
    assert 4 <= summary.usage["requests_sent"] <= 4 + 2


def test_a_judge_left_labels_is_calibrated_on_engine_verified_samples(llm_settings, tmp_path):
    def story(thing: str) -> str:
        return (
            f"Mia entered the den.\nLeo entered the den.\nThe {thing} is in the red_box.\n"
            f"Leo exited the den.\nMia moved the {thing} to the blue_crate."
        )

    # Three stories the engine reads (distinct, so no duplicate check rejects one).
    readable = [
        sample(story=story(thing), question=f"Where is the {thing} really?",
               correct=["blue_crate"], wrong=["red_box"], sample_id=f"t{i}")
        for i, thing in enumerate(("pear", "plum", "fig"))
    ]  # fmt: skip
    prose = sample(story="Ava juggled three balls.", question="How many balls?", correct=["3"])
    source = write_jsonl(tmp_path / "mixed.jsonl", [*readable, prose])
    filter_settings = FilterSettings(
        **{**SMALL, "solve": {"k": 3, "max_tokens": 8, "calibration_items": 2,
                              "min_calibration_cases": 1}, "repair": {"attempts": 0}},
        disabled_checks=["rubric"],
    )  # fmt: skip
    summary = run_filter(
        FilterRun(
            settings=Settings(
                server="external",
                llm=llm_settings,
                judge={"llm": llm_settings},
                filter=filter_settings,
            ),
            input_path=source,
            train_dir=tmp_path / "train",
            eval_dir=tmp_path / "no-eval-sets",
        )
    )
    by_id = {v.sample_id: result_of(v, 0, "judge_calibration") for v in summary.verdicts}
    asked = {i for i, r in by_id.items() if r.reason != "not_applicable"}
    assert len(asked) == 2 and asked < {"t0", "t1", "t2"}
    for sample_id in asked:
        assert by_id[sample_id].status is CheckStatus.PASSED
        assert re.match(r"^judge (agrees|disagrees|unanswered)", by_id[sample_id].detail)
    # 3 trials for each cross-check and for the one label only the judge can verify.
    assert summary.usage["requests_sent"] >= 9
    calibration = summary.judge_calibration
    manifest = json.loads(summary.manifest_path.read_text())["datasets"][summary.name]
    if calibration is None:  # every cross-check went unanswered
        assert manifest["judge_calibration"] is None
        return
    assert manifest["judge_calibration"] == calibration.as_dict()
    [row] = [row for row in summary.labels if row.dataset == "?"]
    if calibration.status == "failed":
        assert row.counts["llm_confirmed"] == 0
