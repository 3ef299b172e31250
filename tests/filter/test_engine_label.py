"""``engine_label``: labels of samples without a trace, verified and repaired by the engine."""

from __future__ import annotations

import json

import pytest
from tests.datasets.opentom_files import write_opentom
from tests.filter.conftest import candidate, context, sample, tomi_samples, write_jsonl

from tomflywheel.config import Settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.errors import ConfigError, DataError
from tomflywheel.filter import CHECKS, FilterRun, FilterSettings, label_rows, run_filter
from tomflywheel.filter.checks import read_engine_labels, relabelled
from tomflywheel.schema import CheckStatus
from tomflywheel.world import read_labels
from tomflywheel.world.checks._item import with_stories
from tomflywheel.world.samples import grammar_of

# A ToMi-shaped story: a third agent (Noah) entered the den, so ToMi's oracle has Mia think Leo
# saw the final move although Leo left first; the principled default says Leo missed it.
STORY = (
    "Noah entered the den.\nMia entered the den.\nLeo entered the den.\n"
    "The pear is in the red_box.\nLeo exited the den.\nMia moved the pear to the blue_crate."
)
SECOND_ORDER = "Where does Mia think that Leo searches for the pear?"
REALITY = "Where is the pear really?"


def tomi_item(question: str, gold: str, qtype: str, sample_id: str = "t1"):
    return sample(
        story=STORY,
        question=question,
        correct=[gold, gold.replace("_", " ")],
        sample_id=sample_id,
        dataset="tomi",
        question_type=qtype,
    )


def settings(**label) -> FilterSettings:
    profile = label.pop("answer_profile", "auto")
    return FilterSettings(answer_profile=profile, label=label)


def check(item, fs: FilterSettings | None = None):
    fs = fs or FilterSettings()
    read = read_engine_labels([candidate(item)], fs)[0]
    return CHECKS.get("engine_label")(read, context(fs)), read


def test_a_benchmark_label_the_engine_derives_is_verified():
    result, _ = check(tomi_item(REALITY, "blue_crate", "reality"))
    assert result.status is CheckStatus.PASSED
    assert result.detail == "both verifiers derive 'blue_crate' under tomi"


def test_a_convention_is_named_as_such_and_an_explicit_profile_may_drop_it():
    item = tomi_item(SECOND_ORDER, "blue_crate", "second_order_0_no_tom")
    result, _ = check(item, settings(answer_profile="tomi"))
    assert (result.status, result.reason) == (CheckStatus.PASSED, None)
    assert result.detail.startswith("convention: the gold 'blue_crate' follows the rules of tomi")
    result, _ = check(item, settings(answer_profile="default", contradicted="drop"))
    assert (result.status, result.reason) == (CheckStatus.FAILED, "label_convention")
    assert (
        "default derives 'red_box', tomi derives 'blue_crate' (third-party entry" in result.detail
    )
    assert result.detail.endswith("; --profile default does not give it")


def test_a_wrong_gold_is_an_error_and_dropped_by_setting():
    result, _ = check(tomi_item(REALITY, "red_box", "reality"), settings(contradicted="drop"))
    assert (result.reason, result.repairable) == ("label_contradicted", False)
    assert result.detail.startswith("error: no profile's rules give the gold; gold 'red_box'")


def test_a_wrong_gold_is_repaired_from_the_engine_and_the_repair_recorded():
    item = tomi_item(REALITY, "red_box", "reality")
    result, read = check(item)
    assert result.status is CheckStatus.PASSED
    assert result.detail.startswith(
        "repaired: ['red_box', 'red box'] -> ['blue_crate', 'blue crate']"
    )
    fixed = read.sample
    assert fixed.answer.correct_answers == ["blue_crate", "blue crate"]
    assert fixed.meta["label_repair"]["profile"] == "tomi"
    assert fixed.meta["label_repair"]["old"] == ["red_box", "red box"]
    assert (fixed.story, fixed.question) == (item.story, item.question)  # never touched
    assert read.input_hash == candidate(item).input_hash  # resumes key on the input as given


def test_a_choice_label_is_repaired_by_swapping_with_the_option_the_engine_names():
    item = sample(
        story=STORY, question=REALITY, correct=["red_box"], wrong=["blue_crate", "green_tub"]
    )
    reading = next(read_labels([item]))
    assert reading.status == "contradicted"
    fixed = relabelled(item, reading)
    assert fixed is not None
    assert fixed.answer.correct_answers == ["blue_crate"]
    assert fixed.answer.wrong_answers == ["red_box", "green_tub"]


def test_a_choice_label_without_the_engine_answer_among_its_options_is_not_repaired():
    item = sample(story=STORY, question=REALITY, correct=["red_box"], wrong=["green_tub"])
    result, read = check(item)
    assert read.label_repair is None
    assert result.reason == "label_contradicted"
    assert result.detail.endswith("not repaired: no option names the engine's answer")


def test_free_text_the_parser_reads_is_verified_without_a_benchmark():
    result, read = check(sample(story=STORY, question=REALITY, correct=["blue_crate"]))
    assert result.status is CheckStatus.PASSED
    assert read.reading is not None and read.reading.reader == "text"


def test_an_unreadable_story_is_skipped_with_why_and_left_to_the_llm_checks():
    item = sample(story="Ava juggled three balls.", question=REALITY)
    result, read = check(item)
    assert (result.status, result.reason) == (CheckStatus.SKIPPED, "unreadable")
    assert "cannot parse" in result.detail and "Ava juggled three balls." in result.detail
    solve = CHECKS.get("solve_agreement")(read, context(use_llm=False))
    assert solve.reason == "label_unverified"


def test_the_engine_label_makes_the_judge_unnecessary():
    _, read = check(tomi_item(REALITY, "blue_crate", "reality"))
    solve = CHECKS.get("solve_agreement")
    assert not solve.applies(read, context())
    assert solve(read, context(use_llm=False)).reason == "not_applicable"


def test_an_unknown_answer_profile_is_refused_before_anything_runs(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [tomi_item(REALITY, "blue_crate", "reality")])
    fs = settings(answer_profile="principled")
    with pytest.raises(ConfigError, match=r"filter\.answer_profile: unknown profile 'principled'"):
        run_filter(
            FilterRun(
                settings=Settings(filter=fs),
                input_path=source,
                use_llm=False,
                train_dir=tmp_path / "t",
                eval_dir=tmp_path / "none",
            )
        )


def test_the_run_tables_labels_per_dataset_and_attributes_each_reject(tmp_path):
    rows = [
        tomi_item(REALITY, "blue_crate", "reality", "ok"),
        tomi_item("Where was the pear at the beginning?", "blue_crate", "memory", "fixed"),
        sample(story="Ava juggled three balls.", question=REALITY, sample_id="prose"),
    ]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    fs = FilterSettings(audit={"enforce": False}, disabled_checks=["near_duplicate"])
    summary = run_filter(
        FilterRun(
            settings=Settings(filter=fs),
            input_path=source,
            use_llm=False,
            train_dir=tmp_path / "t",
            eval_dir=tmp_path / "none",
        )
    )
    unknown, tomi = summary.labels
    assert (tomi.dataset, tomi.counts["verified"], tomi.counts["repaired"]) == ("tomi", 1, 1)
    assert (unknown.dataset, unknown.counts["unverified"]) == ("?", 1)
    assert summary.reasons_by_check == {"solve_agreement": {"label_unverified": 1}}
    admitted = [json.loads(line) for line in summary.admitted_path.read_text().splitlines()]
    assert [(s["id"], s["answer"]["correct_answers"][0]) for s in admitted] == [
        ("ok", "blue_crate"),
        ("fixed", "red_box"),
    ]
    manifest = json.loads(summary.manifest_path.read_text())["datasets"]["in"]
    assert manifest["labels"]["tomi"]["repaired"] == 1
    assert manifest["reasons_by_check"] == {"solve_agreement": {"label_unverified": 1}}
    assert label_rows(summary.verdicts)[1].why == {
        "repaired": {"error: no profile's rules give the gold": 1}
    }


def test_an_empty_input_is_refused(tmp_path):
    source = tmp_path / "empty.jsonl"
    source.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="no records to filter"):
        run_filter(
            FilterRun(
                settings=Settings(),
                input_path=source,
                use_llm=False,
                train_dir=tmp_path / "t",
                eval_dir=tmp_path / "none",
            )
        )
    assert not (tmp_path / "t" / "manifest.json").exists()


@pytest.mark.parametrize("admit", [True, False])
def test_prose_the_engine_cannot_read_is_counted_unverified_never_dropped_silently(tmp_path, admit):
    samples = load_benchmark("opentom", write_opentom(tmp_path / "opentom_data"))
    source = write_jsonl(tmp_path / "opentom.jsonl", samples)
    fs = FilterSettings(
        audit={"enforce": False},
        label={"admit_unverified": admit},
        disabled_checks=["contamination"],
    )
    summary = run_filter(
        FilterRun(
            settings=Settings(filter=fs),
            input_path=source,
            use_llm=False,
            train_dir=tmp_path / "t",
            eval_dir=tmp_path / "none",
            allow_license_override=True,  # OpenToM's authors forbid training on it
        )
    )
    assert len(summary.verdicts) == len(samples)  # every candidate has its verdict
    (row,) = summary.labels
    assert (row.dataset, row.counts["unverified"]) == ("opentom", len(samples))
    assert row.why == {"unverified": {"unreadable: a story sentence no parser reads": len(samples)}}
    if admit:
        assert (row.admitted, summary.reasons_by_check) == (len(samples), {})
    else:
        assert row.admitted == 0
        assert summary.reasons_by_check == {"solve_agreement": {"label_unverified": len(samples)}}


def test_a_flywheel_round_that_synthesized_nothing_may_filter_an_empty_file(tmp_path):
    source = tmp_path / "candidates.jsonl"
    source.write_text("", encoding="utf-8")
    summary = run_filter(
        FilterRun(
            settings=Settings(),
            input_path=source,
            use_llm=False,
            train_dir=tmp_path / "t",
            eval_dir=tmp_path / "none",
            allow_empty=True,
        )
    )
    assert (summary.candidates, summary.verdicts) == (0, [])


def test_engine_samples_with_a_trace_count_as_verified_by_the_engine(tmp_path):
    made = tomi_samples(2)
    source = write_jsonl(tmp_path / "made.jsonl", made)
    summary = run_filter(
        FilterRun(
            settings=Settings(filter=FilterSettings(audit={"enforce": False})),
            input_path=source,
            use_llm=False,
            train_dir=tmp_path / "t",
            eval_dir=tmp_path / "none",
        )
    )
    (row,) = summary.labels
    assert (row.counts["verified"], row.why) == (len(made), {})


def test_a_storys_questions_apart_in_the_input_share_one_parse_and_read_as_alone():
    # Hi-ToM lists a story's questions far apart (by order): they must still share one parse
    # and one walk, and read exactly as each does alone.
    other = STORY.replace("Noah", "Ella").replace("pear", "plum")
    items = [
        tomi_item(REALITY, "blue_crate", "reality", sample_id="a1"),
        tomi_item(
            REALITY.replace("pear", "plum"), "blue_crate", "reality", sample_id="b1"
        ).model_copy(update={"story": other}),
        tomi_item(SECOND_ORDER, "red_box", "second_order_1_no_tom", sample_id="a2"),
    ]
    together = list(read_labels(items))
    alone = [next(iter(read_labels([item]))) for item in items]
    assert together == alone
    grammar = grammar_of(items[0].meta)
    stories = [story for _, story in with_stories(items, grammar)]
    assert stories[0] is stories[2] and stories[0] is not stories[1]


def run_labels(items, fs: FilterSettings | None = None):
    """``read_engine_labels`` over several items read as one input."""
    candidates = [candidate(item, index) for index, item in enumerate(items)]
    return read_engine_labels(candidates, fs or FilterSettings())


def test_auto_keeps_a_gold_another_profile_gives_and_marks_it_convention_dependent():
    # A corrected copy of ToMi labels this question as the principled rules do: ToMi's own
    # convention would say blue_crate, but auto must never rewrite toward it.
    item = tomi_item(SECOND_ORDER, "red_box", "second_order_0_no_tom")
    result, read = check(item)
    assert (result.status, read.label_repair) == (CheckStatus.PASSED, None)
    assert result.detail.startswith("convention: the gold 'red_box' follows the rules of default")
    assert read.sample.answer.correct_answers == ["red_box", "red box"]
    assert read.sample.meta["convention"] == {
        "follows": ["default", "hitom", "tgtom"],
        "answers": {"default": "red_box", "tomi": "blue_crate"},
        "profile": "tomi",
    }
    assert read.reading.status == "convention"


def test_a_gold_equal_to_a_conventions_answer_is_never_counted_verified():
    item = tomi_item(SECOND_ORDER, "blue_crate", "second_order_0_no_tom")
    fs = FilterSettings(audit={"enforce": False})
    (read,) = run_labels([item], fs)
    assert read.reading.status == "convention"  # auto's own profile gives it, default does not
    result = CHECKS.get("engine_label")(read, context(fs))
    verdict_status = label_rows([verdict_of(read, result)])[0].counts
    assert (verdict_status["verified"], verdict_status["convention"]) == (0, 1)


def verdict_of(read, result):
    from tomflywheel.schema import QualityAttempt, QualityDecision, QualityVerdict

    return QualityVerdict(
        sample_id=read.id,
        input_hash=read.input_hash,
        input_file="in.jsonl",
        line=read.line,
        origin=read.origin,
        decision=QualityDecision.ACCEPTED,
        reasons=[],
        attempts=[QualityAttempt(attempt=0, checks=[result])],
        config_hash="x",
        sample=read.sample,
    )


def test_a_profile_named_explicitly_resolves_a_convention_to_its_rules():
    item = tomi_item(SECOND_ORDER, "blue_crate", "second_order_0_no_tom")
    result, read = check(item, settings(answer_profile="default"))
    assert result.detail.startswith(
        "repaired: ['blue_crate', 'blue crate'] -> ['red_box', 'red box'] under default "
        "(convention); convention: the gold 'blue_crate' follows the rules of tomi"
    )
    assert read.label_repair["kind"] == "convention"
    assert read.sample.meta["convention"]["answers"] == {"default": "red_box", "tomi": "blue_crate"}


def test_an_error_where_conventions_differ_takes_the_convention_its_dataset_follows():
    # "den" is no container at all: an error under every profile. Which answer replaces it
    # depends on the convention the rest of the set follows, never on ToMi's by default.
    error = tomi_item(SECOND_ORDER, "den", "second_order_0_no_tom", sample_id="error")
    for follows, answer in (("red_box", "red_box"), ("blue_crate", "blue_crate")):
        peer = tomi_item(SECOND_ORDER, follows, "second_order_0_no_tom", sample_id="peer")
        peer = peer.model_copy(update={"story": STORY.replace("pear", "plum")})
        peer = peer.model_copy(update={"question": SECOND_ORDER.replace("pear", "plum")})
        _, fixed = run_labels([peer, error])
        assert fixed.label_repair is not None, follows
        assert fixed.sample.answer.correct_answers[0] == answer
        assert fixed.label_repair["kind"] == "error"


def test_a_repair_keeps_every_alias_its_dataset_writes():
    # Bug: an old single-word gold ("den") lost the spaced form of the new answer.
    aliased = tomi_item(REALITY, "blue_crate", "reality", sample_id="peer")
    wrong = sample(
        story=STORY, question=REALITY, correct=["den"], sample_id="w", dataset="tomi",
        question_type="reality",
    )  # fmt: skip
    _, fixed = run_labels([aliased, wrong])
    assert fixed.sample.answer.correct_answers == ["blue_crate", "blue crate"]
    (alone,) = run_labels([wrong])  # a set that writes one form keeps one
    assert alone.sample.answer.correct_answers == ["blue_crate"]


def test_a_dropped_alias_is_restored_and_recorded_as_such():
    aliased = tomi_item(REALITY, "blue_crate", "reality", sample_id="peer")
    dropped = sample(
        story=STORY, question=REALITY, correct=["blue_crate"], sample_id="d", dataset="tomi",
        question_type="reality",
    )  # fmt: skip
    _, fixed = run_labels([aliased, dropped])
    assert fixed.sample.answer.correct_answers == ["blue_crate", "blue crate"]
    assert (fixed.label_repair["kind"], fixed.label_repair["old"]) == ("alias", ["blue_crate"])


def test_an_unreadable_sample_of_no_benchmark_does_not_name_a_grammar_as_its_own():
    item = sample(story="Ava juggled three balls.", question=REALITY, dataset="opentom")
    reading = next(read_labels([item]))
    assert reading.detail == "line 1: no grammar reads it: cannot parse 'Ava juggled three balls.'"


def test_a_wrong_gold_of_a_hitom_question_about_the_world_is_an_error_not_a_crash(benchmarks):
    # Hi-ToM explains its errors from the story; a question about where the object really is
    # (order 0) has no chain of agents to explain, and that explanation used to raise.
    real = load_benchmark("hitom", benchmarks / "hitom" / "Hi-ToM_data.json")
    item = next(s for s in real if s.meta["order"] == 0)
    gold = item.answer.correct_answers[0]
    other = next(w for w in item.answer.wrong_answers if w in item.meta["candidates"])
    wrong = [gold if w == other else w for w in item.answer.wrong_answers]
    planted = item.model_copy(
        update={
            "answer": item.answer.model_copy(
                update={"correct_answers": [other], "wrong_answers": wrong}
            )
        }
    )
    reading = next(read_labels([planted]))
    assert (reading.status, reading.answer_text) == ("contradicted", gold)
    fixed = relabelled(planted, reading)
    assert fixed is not None and fixed.answer.correct_answers == [gold]
