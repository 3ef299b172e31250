import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tomflywheel._rng import Draws, rng_for, stable_seed


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


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("choice"), st.integers(1, 40)),
        st.tuples(st.just("sample"), st.integers(0, 40), st.integers(0, 40)),
        st.tuples(st.just("randint"), st.integers(-5, 5), st.integers(0, 300)),
        st.tuples(st.just("random"), st.just(0)),
    ),
    max_size=40,
)


@settings(max_examples=300)
@given(st.integers(0, 2**64), _OPS)
def test_draws_give_what_random_gives_from_the_same_state(seed, ops):
    plain, mirrored = random.Random(seed), random.Random(seed)
    draws = Draws(mirrored)
    for op, *args in ops:
        if op == "choice":
            items = [f"x{i}" for i in range(args[0])]
            assert draws.choice(items) == plain.choice(items)
        elif op == "sample":
            items, k = list(range(args[0])), min(args[1], args[0])
            assert draws.sample(items, k) == plain.sample(items, k)
            assert draws.sample(tuple(items), k) == plain.sample(tuple(items), k)
        elif op == "randint":
            low, width = args
            assert draws.randint(low, low + width) == plain.randint(low, low + width)
        else:  # the stream is shared: plain draws between fast ones stay in step
            assert mirrored.random() == plain.random()
    assert mirrored.getstate() == plain.getstate()


def test_draws_raise_what_random_raises():
    draws = Draws(random.Random(1))
    with pytest.raises(IndexError):
        draws.choice([])
    with pytest.raises(ValueError):
        draws.sample([1, 2], 3)
    with pytest.raises(ValueError):
        draws.randint(3, 2)
