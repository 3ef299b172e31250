"""The judge's calibration: it also solves engine-verified samples, and a judge that fails them
has its confirmations counted as unverified."""

from __future__ import annotations

from tests.filter.conftest import candidate, context, sample

from tomflywheel.filter import (
    CHECKS,
    Evidence,
    FilterSettings,
    SolveTrial,
    judge_calibration,
    label_status,
)
from tomflywheel.filter.checks import calibration_choice, read_engine_labels
from tomflywheel.schema import CheckResult, CheckStatus, QualityAttempt, QualityDecision
from tomflywheel.schema import QualityVerdict as Verdict

STORY = (
    "Mia entered the den.\nLeo entered the den.\nThe pear is in the red_box.\n"
    "Leo exited the den.\nMia moved the pear to the blue_crate."
)
REALITY = "Where is the pear really?"


def readable(i: int):
    return sample(story=STORY, question=REALITY, correct=["blue_crate"], sample_id=f"t{i}")


def unreadable():
    return sample(story="Ava juggled three balls.", question=REALITY, sample_id="prose")


def read(items):
    cands = [candidate(item, index) for index, item in enumerate(items)]
    return read_engine_labels(cands, FilterSettings())


def trials(agree: int, disagree: int, errors: int = 0) -> tuple[SolveTrial, ...]:
    out = [SolveTrial(i, "blue_crate", True) for i in range(agree)]
    out += [SolveTrial(agree + i, "red_box", False) for i in range(disagree)]
    out += [SolveTrial(agree + disagree + i, None, False, "HTTP 500") for i in range(errors)]
    return tuple(out)


def verdict(sample_id: str, *results: CheckResult) -> Verdict:
    return Verdict(
        sample_id=sample_id,
        input_hash="h",
        input_file="in.jsonl",
        line=1,
        origin="free_form",
        decision=QualityDecision.ACCEPTED,
        attempts=[QualityAttempt(attempt=0, checks=list(results))],
        config_hash="c",
        sample=readable(0).model_copy(update={"id": sample_id}),
    )


def calibrated(agree: bool, index: int) -> Verdict:
    cand = read([readable(index)])[0]
    ids = frozenset({cand.id})
    evidence = Evidence(solves=trials(4, 1) if agree else trials(1, 4))
    ctx = context(use_llm=True, evidence=evidence, calibration_ids=ids)
    return verdict(cand.id, CHECKS.get("judge_calibration")(cand, ctx))


def test_calibration_samples_are_engine_verified_chosen_by_id_whatever_the_order():
    items = [readable(i) for i in range(10)] + [unreadable()]
    chosen = calibration_choice(read(items), 3)
    assert len(chosen) == 3 and chosen <= {f"t{i}" for i in range(10)}
    assert calibration_choice(read(list(reversed(items))), 3) == chosen
    assert calibration_choice(read(items), 20) == {f"t{i}" for i in range(10)}


def test_no_calibration_when_the_judge_decides_no_label_or_none_is_asked():
    assert calibration_choice(read([readable(i) for i in range(5)]), 3) == frozenset()
    assert calibration_choice(read([readable(0), unreadable()]), 0) == frozenset()


def test_the_check_asks_only_about_chosen_samples_and_never_rejects():
    cand = read([readable(0)])[0]
    check = CHECKS.get("judge_calibration")
    assert check.applies(cand, context(calibration_ids=frozenset({cand.id})))
    assert not check.applies(cand, context())
    for evidence, start in ((trials(3, 2), "judge agrees"), (trials(2, 3), "judge disagrees")):
        ctx = context(use_llm=True, evidence=Evidence(solves=evidence), calibration_ids={cand.id})
        result = check(cand, ctx)
        assert result.status is CheckStatus.PASSED and result.detail.startswith(start)
    unanswered = context(
        use_llm=True, evidence=Evidence(solves=trials(0, 0, 3)), calibration_ids={cand.id}
    )
    assert check(cand, unanswered).detail == "judge unanswered: HTTP 500"


def test_a_judge_below_the_bar_fails_and_its_confirmations_become_unverified():
    verdicts = [calibrated(i < 3, i) for i in range(6)]  # 3 of 6 agree: 50% < 80%
    calibration = judge_calibration(verdicts)
    assert calibration is not None
    assert (calibration.n, calibration.agree, calibration.status) == (6, 3, "failed")
    assert calibration.untrusted.startswith("the judge failed its calibration (3/6")
    confirmed = verdict(
        "free",
        CheckResult(check="solve_agreement", status=CheckStatus.PASSED, detail="judge m: 4/5"),
    )
    assert label_status(confirmed) == ("llm_confirmed", "judge majority agrees")
    status, why = label_status(confirmed, untrusted_judge=calibration.untrusted)
    assert (status, why) == ("unverified", calibration.untrusted)


def test_a_judge_that_agrees_passes_and_too_few_cross_checks_leave_it_uncalibrated():
    passing = judge_calibration([calibrated(True, i) for i in range(5)])
    assert passing is not None and passing.status == "passed" and passing.untrusted == ""
    few = judge_calibration([calibrated(False, i) for i in range(2)])
    assert few is not None and few.status == "uncalibrated" and few.untrusted == ""
    assert "uncalibrated" in few.words()
    assert judge_calibration([verdict("x")]) is None


def test_the_card_says_how_the_judge_fared():
    from tomflywheel.filter.admit._card import _filter_notes

    calibration = judge_calibration([calibrated(i < 3, i) for i in range(6)])
    assert calibration is not None
    notes = _filter_notes({"judge_calibration": calibration.as_dict()})
    assert notes == [
        "the LLM judge's calibration: failed (3 of 6 engine-verified samples answered as the "
        "engine does)"
    ]
    assert _filter_notes({"judge_calibration": None}) == []
