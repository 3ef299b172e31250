import json

from tomflywheel.schema import Answer, Sample
from tomflywheel.world.generators import generate
from tomflywheel.world.samples import sample_spec
from tomflywheel.world.verifiers import derive_answer


def test_an_engine_sample_is_read_from_its_trace():
    sample = list(generate("tgtom", n=1, seed=4))[5]
    story, spec = sample_spec(sample)
    assert derive_answer(story, spec) == sample.meta["trace"]["answer"]


def test_an_imported_tomi_sample_is_parsed_from_its_text():
    sample = Sample(
        id="tomi-test-000001",
        story="1 Aria entered the den.\n2 Aiden entered the den.\n3 The lime is in the red_box.\n"
        "4 Aiden exited the den.\n5 Aria moved the lime to the blue_box.",
        question="Where will Aiden look for the lime?",
        answer=Answer(correct_answers=["red_box"]),
        meta={"dataset": "tomi", "question_type": "first_order_1_tom"},
    )
    story, spec = sample_spec(sample)
    assert spec.chain == ("Aiden",) and spec.qtype == "first_order_1_tom"
    assert derive_answer(story, spec, "tomi") == "red_box"


def test_a_tgtom_q3_sample_takes_the_move_from_meta(benchmarks):
    row = json.loads((benchmarks / "tgtom/stories_v10.jsonl").open().readline())
    q3 = json.loads((benchmarks / "tgtom/higher_order_beliefs_v10.jsonl").open().readline())["Q3"]
    sample = Sample(
        id="tgtom-0-Q3",
        story=row["story"],
        question=q3["question"],
        answer=Answer(correct_answers=["x"]),
        meta={
            "dataset": "tgtom",
            "question_type": "Q3",
            "target_occurrence": q3["target_occurrence"],
        },
    )
    story, spec = sample_spec(sample)
    assert derive_answer(story, spec, "tgtom") == q3["answer"]


def test_an_instruction_after_the_question_is_ignored(benchmarks):
    row = json.loads((benchmarks / "tgtom/stories_v10.jsonl").open().readline())
    sample = Sample(
        id="tgtom-0-Q0",
        story=row["story"],
        question="Where is the carrot?\nAnswer format: the container's name exactly as written.",
        answer=Answer(correct_answers=["blue_container"]),
        meta={"dataset": "tgtom", "question_type": "Q0"},
    )
    story, spec = sample_spec(sample)
    assert (spec.kind, spec.subject, spec.qtype) == ("reality", "carrot", "Q0")
    assert derive_answer(story, spec) == "blue_container"
