"""ToMi importers against the release files: counts, fields, and corrupted copies."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tests.world.tomi_generator import QUESTIONS, TEMPLATES, question_line
from tomflywheel.datasets import load_benchmark
from tomflywheel.schema import QAKind

# Question-type counts per split, from SOURCE.md (memory, reality, fo_0_tom, fo_0_no_tom,
# fo_1_tom, fo_1_no_tom, so_0_tom, so_0_no_tom, so_1_tom, so_1_no_tom).
COUNTS = {
    "train": (999, 999, 0, 999, 404, 595, 246, 753, 246, 753),
    "val": (999, 999, 0, 999, 396, 603, 253, 746, 253, 746),
    "test": (999, 999, 0, 999, 404, 595, 275, 724, 275, 724),
}
T = TEMPLATES
TYPES = (
    "memory",
    "reality",
    "first_order_0_tom",
    "first_order_0_no_tom",
    "first_order_1_tom",
    "first_order_1_no_tom",
    "second_order_0_tom",
    "second_order_0_no_tom",
    "second_order_1_tom",
    "second_order_1_no_tom",
)


@pytest.fixture(scope="module")
def release(benchmarks: Path) -> Path:
    return benchmarks / "tomi" / "tomi_balanced_story_types"


@pytest.mark.parametrize("split", ["train", "val", "test"])
def test_each_split_has_the_documented_question_and_story_type_counts(release, split):
    samples = load_benchmark("tomi", release, split=split)
    assert len(samples) == 5994
    types = Counter(s.meta["question_type"] for s in samples)
    assert tuple(types[t] for t in TYPES) == COUNTS[split]
    assert Counter(s.meta["story_type"] for s in samples) == {
        "true_belief": 1998,
        "false_belief": 1998,
        "second_order_false_belief": 1998,
    }
    assert {s.meta["split"] for s in samples} == {split}
    assert samples[-1].id == f"tomi-{split}-005993"


def test_first_test_example_field_by_field(release):
    first, second = load_benchmark("tomi", release)[:2]
    assert first.id == "tomi-test-000000"
    assert first.story == (
        "Aria entered the front_yard.\nAiden entered the front_yard.\n"
        "The grapefruit is in the green_bucket.\n"
        "Aria moved the grapefruit to the blue_container.\n"
        "Aiden exited the front_yard.\nNoah entered the playroom."
    )
    assert first.question == "Where was the grapefruit at the beginning?"
    # The source form first, the spaced form also accepted; still open QA.
    assert first.answer.correct_answers == ["green_bucket", "green bucket"]
    assert first.kind is QAKind.OPEN
    assert first.meta["question_type"] == "memory"
    assert first.meta["story_type"] == "true_belief"
    assert first.meta["tomi_trace"] == [
        "enter_agent_0",
        "enter_agent_1",
        "agent_0_moves_obj",
        "agent_1_exits",
        "agent_2_enters",
    ]
    assert first.meta["candidates"] == ["green_bucket", "blue_container"]
    assert first.meta["source_line"] == 7
    assert second.question == "Where will Aria look for the grapefruit?"
    assert second.answer.correct_answers == ["blue_container", "blue container"]
    assert second.meta["question_type"] == "first_order_0_no_tom"
    assert second.meta["tom"] is False
    assert second.meta["question_family"] == "first_order"


def test_generator_naming_and_a_single_file_work_too(release, tmp_path):
    for name in ("test.txt", "test.trace"):
        source = release / f"fb_all_{name}"
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        keep = 21 if name.endswith(".txt") else 3  # the first three examples
        (tmp_path / name).write_text("".join(lines[:keep]), encoding="utf-8")
    from_folder = load_benchmark("tomi", tmp_path, split="test")
    assert [s.id for s in from_folder] == [
        "tomi-test-000000",
        "tomi-test-000001",
        "tomi-test-000002",
    ]
    train_file = copy_tree(release / "fb_all_train.txt", tmp_path / "t" / "fb_all_train.txt")
    copy_tree(release / "fb_all_train.trace", tmp_path / "t" / "fb_all_train.trace")
    # A file names its own split.
    assert load_benchmark("tomi", train_file)[0].meta["split"] == "train"


def test_a_truncated_story_file_names_the_last_line(release, tmp_path, fails_cleanly):
    txt = copy_tree(release / "fb_all_test.txt", tmp_path / "src" / "fb_all_test.txt")
    copy_tree(release / "fb_all_test.trace", tmp_path / "src" / "fb_all_test.trace")
    edit_lines(txt, lambda lines: lines[:12])  # cut inside the second example
    error = fails_cleanly("tomi", tmp_path / "src")
    assert str(error) == f"{txt}:12: question: example ends without a question line"


def test_a_question_line_without_answer_is_named(release, tmp_path, fails_cleanly):
    txt = copy_tree(release / "fb_all_test.txt", tmp_path / "src" / "fb_all_test.txt")
    copy_tree(release / "fb_all_test.trace", tmp_path / "src" / "fb_all_test.trace")
    edit_lines(
        txt,
        lambda lines: [
            *lines[:13],
            "7 Where will Aria look for the grapefruit?\t\t1\n",
            *lines[14:],
        ],
    )
    error = fails_cleanly("tomi", tmp_path / "src")
    assert str(error) == f"{txt}:14: answer: empty"


def test_a_bad_question_type_in_the_trace_is_named(release, tmp_path, fails_cleanly):
    copy_tree(release / "fb_all_val.txt", tmp_path / "src" / "fb_all_val.txt")
    trace = copy_tree(release / "fb_all_val.trace", tmp_path / "src" / "fb_all_val.trace")
    assert ",memory," in trace.read_text(encoding="utf-8").splitlines()[6]
    edit_lines(
        trace, lambda lines: [*lines[:6], lines[6].replace(",memory,", ",memry,"), *lines[7:]]
    )
    error = fails_cleanly("tomi", tmp_path / "src", split="val")
    assert str(error).startswith(f"{trace}:7: question_type: 'memry' is not one of 'memory'")


def test_a_short_trace_file_is_named(release, tmp_path, fails_cleanly):
    txt = copy_tree(release / "fb_all_test.txt", tmp_path / "src" / "fb_all_test.txt")
    trace = copy_tree(release / "fb_all_test.trace", tmp_path / "src" / "fb_all_test.trace")
    edit_lines(trace, lambda lines: lines[:-1])
    error = fails_cleanly("tomi", tmp_path / "src")
    assert str(error) == f"{trace}:5994: no trace line for the question at {txt.name}:53082"


@pytest.fixture(scope="module")
def csv_samples(benchmarks: Path):
    return load_benchmark("tomi_2cand", benchmarks / "tomi")


def test_the_2_candidate_csv_has_1861_two_way_questions(csv_samples):
    assert len(csv_samples) == 1861
    assert {s.kind for s in csv_samples} == {QAKind.SINGLE_CHOICE}
    assert {len(s.options) for s in csv_samples} == {2}
    # The CSV holds first_order_0_tom questions, which the release set lacks.
    assert Counter(s.meta["question_type"] for s in csv_samples)["first_order_0_tom"] > 0


def test_first_csv_row_field_by_field(csv_samples):
    first = csv_samples[0]
    assert first.id == "tomi_2cand-0000"
    assert first.story.startswith("James entered the living room. Hunter entered the living room.")
    assert first.question == "Where is the pajamas really?"
    assert first.answer.correct_answers == ["drawer"]
    assert first.answer.wrong_answers == ["bucket"]
    assert first.meta["question_type"] == "reality"
    assert first.meta["story_type"] == "true_belief"
    assert first.meta["options"] == ["bucket", "drawer"]
    assert first.meta["dataset"] == "tomi_2cand"


def test_a_csv_gold_index_out_of_range_is_named(benchmarks, tmp_path, fails_cleanly):
    csv = copy_tree(benchmarks / "tomi" / "ToMi-finalNeuralTOM.csv", tmp_path / "x.csv")
    # Line 6 ends with `..."[""pantry"", ""drawer""]",1,false,mind`: make the gold index 7.
    edit_lines(
        csv, lambda lines: [*lines[:5], lines[5].replace('"]",1,false', '"]",7,false'), *lines[6:]]
    )
    assert str(fails_cleanly("tomi_2cand", csv)) == f"{csv}:6: correct: '7' is not one of '0', '1'"


def test_a_generator_file_with_every_sentence_form_imports(tmp_path):
    # Sentences built from the generator's templates (tests/world/tomi_generator.py, each
    # with its source in facebookresearch/ToMi tomi/actions.py): all of them in one story.
    story = [
        T["located"] % ("Oliver", "TV_room"),
        T["located_pair"] % ("Emma", "Mia", "TV_room"),
        T["object"] % ("t-shirt", "treasure_chest"),
        T["noise_hates"] % ("Mia", "sweet_potato"),
        T["exit_1"] % ("Emma", "TV_room"),
        T["move"] % ("Oliver", "t-shirt", "pantry"),
        T["peek"] % ("Emma", "pantry"),
        T["tell"] % ("Oliver", "Emma", "t-shirt"),
        T["exit_2"] % ("Mia", "TV_room"),
        T["exited"] % ("Oliver", "TV_room"),
        T["enter"] % ("Noah", "garage"),
    ]
    questions = [
        (QUESTIONS["memory"][1] % "t-shirt", "treasure_chest", "memory"),
        (QUESTIONS["first_order"][1] % ("Emma", "t-shirt"), "pantry", "first_order_1_no_tom"),
        (
            QUESTIONS["second_order"][1] % ("Oliver", "Emma", "t-shirt"),
            "treasure_chest",
            "second_order_0_tom",
        ),
        (QUESTIONS["reality"][1] % "t-shirt", "pantry", "reality"),
    ]
    lines, traces = [], []
    for question, answer, qtype in questions:
        lines += [f"{n} {sentence}" for n, sentence in enumerate(story, start=1)]
        lines.append(question_line(len(story) + 1, question, answer))
        traces.append(f"enter_agent_0,agent_0_moves_obj,{qtype},false_belief")
    (tmp_path / "val.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "val.trace").write_text("\n".join(traces) + "\n", encoding="utf-8")
    samples = load_benchmark("tomi", tmp_path, split="val")
    assert [s.id for s in samples] == [f"tomi-val-{i:06d}" for i in range(4)]
    assert samples[0].story == "\n".join(story)
    assert [s.question for s in samples] == [q for q, _, _ in questions]
    assert samples[1].answer.correct_answers == ["pantry"]
    assert samples[2].meta["question_type"] == "second_order_0_tom"
    assert samples[3].meta["source_line"] == 48
    # The containers named in placements and moves, hyphenated object or not.
    assert samples[0].meta["candidates"] == ["treasure_chest", "pantry"]
