import asyncio

from tomflywheel.llm._limit import AdaptiveLimit, LatencyDeadline


class Clock:
    """Time that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_overload_halves_the_limit_once_per_round_trip():
    clock = Clock()
    limit = AdaptiveLimit(16, clock=clock)
    assert limit.overloaded(round_trip_s=5.0)
    # Requests sent before the decrease fail too; they must not halve it again.
    assert not limit.overloaded(round_trip_s=5.0)
    assert limit.current == 8
    clock.now += 5.0
    assert limit.overloaded(round_trip_s=5.0)
    assert (limit.current, limit.lowest, limit.slow_downs) == (4, 4, 2)


def test_the_limit_never_drops_below_the_floor():
    clock = Clock()
    limit = AdaptiveLimit(4, clock=clock)
    for _ in range(5):
        limit.overloaded(round_trip_s=1.0)
        clock.now += 1.0
    assert (limit.current, limit.lowest, limit.slow_downs) == (1, 1, 2)


def test_successes_grow_the_limit_back_by_about_one_per_round_of_requests():
    clock = Clock()
    limit = AdaptiveLimit(16, clock=clock)
    limit.overloaded(round_trip_s=1.0)
    for _ in range(9):  # a little over one window at limit 8 (the step shrinks as it grows)
        limit.succeeded()
    assert limit.current == 9
    for _ in range(1000):
        limit.succeeded()
    assert limit.current == 16 and limit.lowest == 8  # capped at the configured concurrency


def test_acquire_waits_for_a_slot_under_the_lowered_limit():
    async def go() -> list[str]:
        limit = AdaptiveLimit(2)
        limit.overloaded(round_trip_s=1.0)  # now 1
        events: list[str] = []
        await limit.acquire()

        async def second() -> None:
            await limit.acquire()
            events.append("second in")

        task = asyncio.create_task(second())
        await asyncio.sleep(0)
        events.append("first out")
        await limit.release()
        await task
        return events

    assert asyncio.run(go()) == ["first out", "second in"]


def test_deadlines_follow_the_slowest_recent_latency_and_double_per_timeout():
    deadline = LatencyDeadline(base_s=10.0, max_s=100.0, factor=3.0)
    assert deadline.for_attempt(0) == 10.0
    deadline.observe(2.0)
    assert deadline.for_attempt(0) == 10.0  # fast answers never shorten the base
    deadline.observe(6.0)
    assert deadline.for_attempt(0) == 18.0
    assert deadline.for_attempt(1) == 36.0
    assert deadline.for_attempt(5) == 100.0


def test_a_timeout_lengthens_later_first_attempts():
    deadline = LatencyDeadline(base_s=1.0, max_s=60.0)
    deadline.timed_out(1.0)
    assert deadline.for_attempt(0) == 2.0
