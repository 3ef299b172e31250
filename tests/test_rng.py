from tomflywheel._rng import rng_for, stable_seed


def test_same_purpose_and_key_give_the_same_stream():
    assert [rng_for("shuffle", "tomi-1").random() for _ in range(3)] == [
        rng_for("shuffle", "tomi-1").random() for _ in range(3)
    ]


def test_purposes_and_keys_are_independent():
    assert stable_seed("shuffle", "tomi-1") != stable_seed("names", "tomi-1")
    assert stable_seed("shuffle", "tomi-1") != stable_seed("shuffle", "tomi-2")


def test_seed_is_stable_across_processes():
    # Pinned values: Python's salted hash() or a changed hash scheme would move them, and with
    # them every shuffle and generated story of earlier runs.
    assert stable_seed("shuffle", "tomi-1") == 15049797082903202602
    assert rng_for("shuffle", "tomi-1").randrange(1000) == 601
