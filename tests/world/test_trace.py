import json

from tomflywheel.world.generators import generate
from tomflywheel.world.samples import make_trace, read_trace, verify_sample, verify_trace


def _sample(kind="tomi", index=4):
    return list(generate(kind, n=2, seed=9))[index]


def test_a_trace_is_plain_json_and_round_trips_exactly():
    sample = _sample()
    trace = sample.meta["trace"]
    assert json.loads(json.dumps(trace)) == trace
    story, spec, profile = read_trace(trace)
    rebuilt = make_trace(
        generator=trace["generator"],
        version=trace["version"],
        seed=trace["seed"],
        story_index=trace["story_index"],
        story=story,
        spec=spec,
        answer=trace["answer"],
        profile=profile,
        render=trace["render"],
    )
    assert rebuilt == trace


def test_a_sample_verifies_with_both_verifiers():
    result = verify_sample(_sample())
    assert result.ok and result.reason is None
    assert result.tracker_answer == result.graph_answer


def test_a_corrupted_label_is_caught():
    sample = _sample()
    wrong = sample.model_copy(
        update={"answer": sample.answer.model_copy(update={"correct_answers": ["red_herring"]})}
    )
    result = verify_sample(wrong)
    assert not result.ok
    assert "red_herring" in result.reason


def test_a_corrupted_trace_is_caught():
    sample = _sample("tgtom", 0)
    assert sample.meta["question_type"] == "Q0"  # where the object really is
    trace = json.loads(json.dumps(sample.meta["trace"]))
    moves = [e for e in trace["story"]["events"] if e["type"] == "move"]
    moves[-1]["container"] = "nowhere_box"
    result = verify_trace(trace, sample.answer.correct_answers)
    assert not result.ok and result.tracker_answer == "nowhere_box"
    trace["question"]["kind"] = "gossip"
    assert verify_trace(trace, sample.answer.correct_answers).reason.startswith("unreadable")


def test_a_sample_without_trace_is_not_ok():
    sample = _sample()
    bare = sample.model_copy(update={"meta": {"dataset": "tomi"}})
    assert verify_sample(bare).reason == "no meta.trace"
