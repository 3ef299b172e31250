from tomflywheel.schema import Answer, Sample
from tomflywheel.world.generators import generate
from tomflywheel.world.samples import dataset_stats


def test_stats_of_generated_samples_count_stories_events_and_targeting():
    samples = list(generate("tgtom", n=3, seed=1))
    stats = dataset_stats(samples)
    assert stats.samples == len(samples) == stats.traced
    assert stats.stories == 3
    assert sum(stats.event_types.values()) == sum(stats.events)
    assert stats.event_types["place"] == 3
    assert set(stats.targeted) == {"Q3", "Q5", "Q6", "Q7", "Q10", "Q11", "Q13"}
    assert all(total == 3 for _, total in stats.targeted.values())
    assert stats.meta["dataset"] == {"tgtom_synth": len(samples)}


def test_stats_work_on_imported_samples_without_traces():
    samples = [
        Sample(
            id=f"x{i}",
            story="s",
            question="q",
            answer=Answer(correct_answers=["a"], wrong_answers=["b"] if i % 2 else []),
            meta={"dataset": "tomi", "split": "test", "order": i % 3},
        )
        for i in range(5)
    ]
    stats = dataset_stats(samples)
    assert stats.kinds == {"open": 3, "single_choice": 2}
    assert stats.meta["order"] == {"0": 2, "1": 2, "2": 1}
    assert stats.traced == 0 and stats.stories == 0
