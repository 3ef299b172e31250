"""Macro-F1 over answer labels (OpenToM's official score), read from judgments."""

from __future__ import annotations

from tomflywheel.config import LogprobSettings
from tomflywheel.datasets import TaskSpec
from tomflywheel.evaluation import compute_metrics
from tomflywheel.evaluation._f1 import macro_f1, predicted_label
from tomflywheel.schema import Answer, Judgment, MethodRef, Prediction, Sample, Verdict

RULES = MethodRef(name="rules")


def test_macro_f1_matches_the_hand_computed_value():
    # a: P 1/2 R 1/2 F .5; b: P 2/3 R 1 F .8; c: never predicted, F 0 -> (.5 + .8 + 0) / 3.
    pairs = [("a", "a"), ("a", "b"), ("b", "b"), ("b", "b"), ("c", "a"), ("a", None)]
    result = macro_f1(pairs)
    assert result["macro_f1"] == 0.4333
    assert (result["n"], result["left_out"]) == (5, 1)
    assert result["per_label"]["b"] == {"precision": 0.6667, "recall": 1.0, "f1": 0.8, "support": 2}
    assert result["per_label"]["c"]["f1"] == 0.0


def test_a_label_only_ever_predicted_still_counts():
    # sklearn's macro average takes the union of gold and predicted labels.
    assert macro_f1([("yes", "yes"), ("yes", "no")])["macro_f1"] == round((2 / 3 + 0) / 2, 4)
    assert macro_f1([])["macro_f1"] is None


def _choice(i: int, gold: str, wrong: list[str], **meta) -> Sample:
    return Sample(
        id=f"s{i}",
        story="",
        question="",
        answer=Answer(correct_answers=[gold], wrong_answers=wrong),
        meta={"question_type": "q", **meta},
    )


def _open(i: int, gold: str, label: str | None) -> Sample:
    return Sample(
        id=f"o{i}",
        story="",
        question="",
        answer=Answer(correct_answers=[gold]),
        meta={
            "question_type": "fine",
            "label": label,
            "candidates": ["treasure_chest", "the fridge"],
            "candidate_labels": ["original", "new"],
        },
    )


def _judgment(sample_id: str, verdict: Verdict, answer: str | None) -> Judgment:
    return Judgment(sample_id=sample_id, verdict=verdict, method=RULES, answer=answer)


def _prediction(sample_id: str, options: list[str] | None) -> Prediction:
    return Prediction(sample_id=sample_id, mode="generate", endpoint="chat", options=options)


def test_a_wrong_letter_names_the_option_shown_under_it():
    sample = _choice(0, "No", ["Yes"])
    shown = _prediction("s0", ["Yes", "No"])
    assert predicted_label(sample, _judgment("s0", Verdict.INCORRECT, "A"), shown) == "Yes"
    assert predicted_label(sample, _judgment("s0", Verdict.CORRECT, "B"), shown) == "No"
    # The log-prob judge records the option text itself.
    assert predicted_label(sample, _judgment("s0", Verdict.INCORRECT, "Yes"), shown) == "Yes"
    # Nothing readable (an unparsable reply, two letters, no verdict): no label.
    assert predicted_label(sample, _judgment("s0", Verdict.INCORRECT, None), shown) is None
    assert predicted_label(sample, _judgment("s0", Verdict.INCORRECT, "A,B"), shown) is None
    assert predicted_label(sample, _judgment("s0", Verdict.UNJUDGED, None), shown) is None


def test_a_wrong_open_answer_is_mapped_to_a_place_by_word_overlap():
    sample = _open(0, "treasure_chest", "original")
    said = {
        "It is in the fridge.": "new",
        "The treasure chest, I think.": "original",
        # 1/2 of "treasure chest" against 1/1 of "fridge": the fridge wins.
        "the chest by the fridge": "new",
        # Equal shares: the official evaluator's tie class.
        "the kitchen": "none",
    }
    for answer, label in said.items():
        judgment = _judgment("o0", Verdict.INCORRECT, answer)
        assert predicted_label(sample, judgment, None) == label, answer


def test_compute_metrics_reports_macro_f1_per_group_when_the_task_asks():
    task = TaskSpec(
        name="t",
        description="",
        prompt_kind="mixed",
        judge="rules",
        groupings=(("question_type",),),
        macro_f1_by=("question_type",),
    )
    samples = [
        _choice(0, "Yes", ["No"]),
        _choice(1, "No", ["Yes"]),
        _choice(2, "No", ["Yes"]),
        _open(3, "treasure_chest", "original"),
        _open(4, "the fridge", "new"),
        _open(5, "the shed", None),  # gold is neither place: not scored
    ]
    predictions = [_prediction(f"s{i}", ["Yes", "No"]) for i in range(3)]
    judgments = [
        _judgment("s0", Verdict.CORRECT, "A"),
        _judgment("s1", Verdict.INCORRECT, "A"),  # said Yes
        _judgment("s2", Verdict.INCORRECT, None),  # unreadable: left out
        _judgment("o3", Verdict.INCORRECT, "in the fridge"),
        _judgment("o4", Verdict.CORRECT, "the fridge"),
        _judgment("o5", Verdict.CORRECT, "the shed"),
    ]
    metrics = compute_metrics(
        label="t",
        task=task,
        samples=samples,
        predictions=predictions,
        judgments=judgments,
        logprob=LogprobSettings(),
    )
    coarse = metrics["macro_f1"]["question_type"]["q"]
    # Yes: P 1/2 R 1 F 2/3; No: never predicted, F 0.
    assert (coarse["macro_f1"], coarse["n"], coarse["left_out"]) == (0.3333, 2, 1)
    fine = metrics["macro_f1"]["question_type"]["fine"]
    # original: never predicted right (F 0); new: P 1/2 R 1 F 2/3.
    assert (fine["macro_f1"], fine["n"]) == (0.3333, 2)
    assert metrics["overall"]["accuracy"] == 0.5  # 3 of 6 judged right


def test_no_macro_f1_unless_the_task_asks():
    task = TaskSpec(name="t", description="", prompt_kind="mixed", judge="rules")
    sample = _choice(0, "Yes", ["No"])
    metrics = compute_metrics(
        label="t",
        task=task,
        samples=[sample],
        predictions=[],
        judgments=[_judgment("s0", Verdict.CORRECT, "A")],
        logprob=LogprobSettings(),
    )
    assert metrics["macro_f1"] is None
