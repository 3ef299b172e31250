from tomflywheel.config import LogprobSettings
from tomflywheel.datasets import TaskSpec
from tomflywheel.evaluation import compute_metrics
from tomflywheel.schema import Answer, Judgment, MethodRef, Prediction, Sample, Verdict
from tomflywheel.stats import wilson_interval
from tomflywheel.world.generators import generate

RULES = MethodRef(name="rules")
TASK = TaskSpec(
    name="t",
    description="",
    prompt_kind="open",
    judge="rules",
    groupings=(("order",), ("order", "deception")),
    all_correct_by="item_id",
    trial_fields=("targeted",),
)


def _sample(i, order, item, targeted=None):
    meta = {"order": order, "deception": order == 1, "item_id": item}
    if targeted is not None:
        meta["targeted"] = targeted
    return Sample(
        id=f"s{i}", story="", question="", answer=Answer(correct_answers=["x"]), meta=meta
    )


def _judgment(i, verdict, trial=0, rules=None, match="exact"):
    return Judgment(
        sample_id=f"s{i}",
        trial=trial,
        verdict=verdict,
        method=RULES,
        match_type=match,
        rules_verdict=rules,
    )


C, W, U, E = Verdict.CORRECT, Verdict.INCORRECT, Verdict.UNJUDGED, Verdict.ERROR


def _metrics(samples, judgments, predictions=()):
    return compute_metrics(
        label="t",
        task=TASK,
        samples=samples,
        predictions=list(predictions),
        judgments=judgments,
        logprob=LogprobSettings(),
    )


def test_wilson_interval_matches_the_textbook_value():
    # 8/10: Wilson 95% interval (0.4902, 0.9433).
    assert wilson_interval(8, 10) == (0.4902, 0.9433)
    assert wilson_interval(0, 0) is None
    assert wilson_interval(0, 5)[0] == 0.0


def test_unjudged_and_errors_are_counted_but_never_scored():
    samples = [_sample(i, 0, f"u{i}") for i in range(5)]
    m = _metrics(
        samples,
        [_judgment(0, C), _judgment(1, C), _judgment(2, W), _judgment(3, U), _judgment(4, E)],
    )
    assert m["overall"]["n"] == 3 and m["overall"]["correct"] == 2
    # Issue 18 added the ambiguous verdict: counted apart (here none).
    assert m["counts"] == {
        "correct": 2,
        "incorrect": 1,
        "ambiguous": 0,
        "unjudged": 1,
        "error": 1,
    }


def test_ambiguous_replies_are_counted_apart_and_scored_as_wrong():
    samples = [_sample(i, 0, f"u{i}") for i in range(3)]
    m = _metrics(samples, [_judgment(0, C), _judgment(1, Verdict.AMBIGUOUS), _judgment(2, W)])
    assert (m["overall"]["n"], m["overall"]["correct"]) == (3, 1)
    assert m["counts"]["ambiguous"] == 1
    assert m["groups"]["order"]["0"]["n"] == 3


def test_chance_level_comes_from_the_options_or_the_story_candidates():
    three = Sample(
        id="s0",
        story="",
        question="",
        answer=Answer(correct_answers=["a"]),
        meta={"order": 0, "candidates": ["a", "b", "c"]},
    )
    two = Sample(
        id="s1",
        story="",
        question="",
        answer=Answer(correct_answers=["a"], wrong_answers=["b"]),
        meta={"order": 1},
    )
    shown = Prediction(
        sample_id="s1",
        mode="generate",
        endpoint="chat",
        options=["b", "a"],
        option_map=[1, 0],
        gold_letters=["B"],
    )
    m = _metrics([three, two], [_judgment(0, C), _judgment(1, W)], [shown])
    assert m["overall"]["chance"] == round((1 / 3 + 1 / 2) / 2, 4)
    assert m["groups"]["order"]["0"]["chance"] == 0.3333
    assert m["groups"]["order"]["1"]["chance"] == 0.5
    # Open answers with no closed set have no chance level.
    open_only = _metrics([_sample(2, 0, "x")], [_judgment(2, C)])
    assert "chance" not in open_only["overall"]


def test_judge_calibration_is_its_agreement_with_certain_rules_and_warns_when_low():
    samples = [_sample(i, 0, f"u{i}") for i in range(4)]
    asked = [
        Judgment(
            sample_id=f"s{i}",
            verdict=rules,
            method=RULES,
            match_type="candidate",
            rules_verdict=rules,
            rules_certain=True,
            judge_verdict=said,
        )
        for i, (rules, said) in enumerate([(C, C), (W, C), (W, W), (C, U)])
    ]
    m = compute_metrics(
        label="t",
        task=TASK,
        samples=samples,
        predictions=[],
        judgments=asked,
        logprob=LogprobSettings(),
        min_judge_accuracy=0.8,
    )
    calibration = m["judge_calibration"]
    assert (calibration["n"], calibration["agree"], calibration["inconsistent"]) == (4, 2, 1)
    assert calibration["accuracy"] == 0.5
    assert "2 of 4" in calibration["warning"]
    # Rule-decided items keep their verdicts: overall is the rules' 2/4, not the judge's.
    assert m["overall"]["correct"] == 2
    assert m["judge_agreement"] is None  # the judge decided nothing here


def test_groups_cross_fields_and_units_need_every_member_right():
    samples = [
        _sample(0, 0, "a"),
        _sample(1, 0, "a"),
        _sample(2, 1, "b"),
        _sample(3, 1, "b"),
        _sample(4, 1, "c"),
        _sample(5, 1, "c"),
    ]
    m = _metrics(
        samples,
        [
            _judgment(0, C),
            _judgment(1, C),
            _judgment(2, C),
            _judgment(3, W),
            _judgment(4, C),
            _judgment(5, U),
        ],
    )
    assert m["groups"]["order"]["0"]["accuracy"] == 1.0
    assert m["groups"]["order"]["1"]["n"] == 3 and m["groups"]["order"]["1"]["correct"] == 2
    assert set(m["groups"]["order × deception"]) == {"0 × False", "1 × True"}
    # unit a: both right; b: one wrong; c: has an unjudged member, so it is left out.
    assert (m["all_correct"]["n"], m["all_correct"]["correct"]) == (2, 1)
    assert m["all_correct"]["units_left_out"] == 1


def test_trials_report_each_accuracy_with_mean_and_spread():
    samples = [_sample(i, 0, f"u{i}") for i in range(2)]
    judgments = [
        _judgment(0, C, 0),
        _judgment(1, C, 0),
        _judgment(0, C, 1),
        _judgment(1, W, 1),
        _judgment(0, W, 2),
        _judgment(1, W, 2),
    ]
    trials = _metrics(samples, judgments)["trials"]
    assert [t["accuracy"] for t in trials["per_trial"]] == [1.0, 0.5, 0.0]
    assert (trials["mean"], trials["std"]) == (0.5, 0.5)


def test_trial_fields_and_agreement_and_match_types():
    samples = [_sample(0, 0, "a", True), _sample(1, 0, "b", False), _sample(2, 0, "c", True)]
    judgments = [
        _judgment(0, C, rules=W, match="judge"),
        _judgment(1, W, rules=W, match="judge"),
        _judgment(2, C),
    ]
    m = _metrics(samples, judgments)
    assert m["fields"]["targeted"]["True"]["correct"] == 2
    assert m["judge_agreement"] == {"n": 2, "agree": 1, "rate": 0.5}
    assert m["match_types"] == {"exact": 1, "judge": 2}


def test_logprob_sweep_tends_to_argmax_at_low_temperature():
    samples = [_sample(0, 0, "a"), _sample(1, 0, "b")]
    predictions = [
        Prediction(
            sample_id="s0",
            mode="logprob",
            endpoint="completions",
            options=["x", "y"],
            option_map=[0, 1],
            gold_letters=["A"],
            option_logprobs=[-1.0, -3.0],
        ),
        Prediction(
            sample_id="s1",
            mode="logprob",
            endpoint="completions",
            options=["y", "x"],
            option_map=[1, 0],
            gold_letters=["B"],
            option_logprobs=[-1.0, -1.5],
        ),
    ]
    sweep = _metrics(samples, [], predictions)["logprob_sweep"]
    assert sweep["argmax_accuracy"] == 0.5
    low = sweep["temperatures"][0]
    assert low["temperature"] == 0.1
    # At T=0.1 sample 0 puts ~1.0 on gold and sample 1 ~0.0067: mean ~0.5034.
    assert abs(low["accuracy"] - 0.5034) < 1e-3
    assert sweep["best"]["accuracy"] == max(t["accuracy"] for t in sweep["temperatures"])
    assert len(sweep["temperatures"]) == 20  # 0.1 .. 2.0 by 0.1


# -- the scores no shortcut passes ----------------------------------------------------------------


def _verdicts(samples, right, trial=0):
    return [
        Judgment(sample_id=s.id, trial=trial, verdict=C if right(s) else W, method=RULES)
        for s in samples
    ]


def test_shortcut_scores_come_from_the_first_trials_scored_verdicts():
    samples = list(generate("tomi", n=12, seed=5, controls=True))
    world = ("memory", "reality")
    false = [s for s in samples if s.meta["tom"] and s.meta["question_type"] not in world]
    true = [s for s in samples if not s.meta["tom"] and s.meta["question_type"] not in world]
    # right on every item without a false belief, and on the first three false beliefs
    got = {s.id for s in false[:3]}
    first = _verdicts(samples, lambda s: not s.meta["tom"] or s.id in got)
    first[samples.index(true[0])] = Judgment(sample_id=true[0].id, verdict=U, method=RULES)
    later = _verdicts(samples, lambda s: False, trial=1)  # trial 1 is not read
    scores = _metrics(samples, first + later)["shortcut"]
    balanced = scores["belief_balanced"]
    assert scores["n"] == len(samples) - 1  # the unjudged item is left out
    assert (balanced["false_belief"]["n"], balanced["false_belief"]["correct"]) == (len(false), 3)
    assert (balanced["true_belief"]["n"], balanced["true_belief"]["correct"]) == (
        len(true) - 1,
        len(true) - 1,
    )
    assert balanced["value"] == round((3 / len(false) + 1) / 2, 4)
    assert scores["story_level"]["stories"] == 12
    assert scores["paired"]["pairs"] > 0
    assert scores["belief_balanced_margin"]["heuristic"] in scores["heuristics"]


def test_a_set_that_asks_no_minds_carries_no_shortcut_scores():
    # Social IQa-like: own contexts, one repeated, no belief markers, no twins
    contexts = ["Ann baked bread.", "Bob ran home.", "Bob ran home.", "Cy sang."]
    samples = [
        Sample(
            id=f"q{i}",
            story=context,
            question="How would others feel?",
            answer=Answer(correct_answers=["happy"], wrong_answers=["sad", "bored"]),
            meta={"dataset": "socialiqa"},
        )
        for i, context in enumerate(contexts)
    ]
    assert _metrics(samples, _verdicts(samples, lambda s: True))["shortcut"] is None
    # nor one without stories at all (every item would be one empty "story")
    bare = [_sample(i, 0, f"u{i}") for i in range(4)]
    assert _metrics(bare, _verdicts(bare, lambda s: True))["shortcut"] is None
    # and nothing scored gives none either
    tomi = list(generate("tomi", n=2, seed=5, controls=True))
    assert _metrics(tomi, [])["shortcut"] is None
