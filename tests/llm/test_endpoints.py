from tomflywheel.llm._endpoints import EndpointPool


def _pool() -> EndpointPool:
    return EndpointPool(["http://a/v1", "http://b/v1"], api_key="k", timeout_s=5, cooldown_s=60)


def test_load_is_spread_over_idle_endpoints():
    pool = _pool()
    first, second = pool.acquire(), pool.acquire()
    assert {first.base_url, second.base_url} == {"http://a/v1", "http://b/v1"}


def test_the_least_busy_endpoint_is_chosen():
    pool = _pool()
    busy = pool.acquire()
    pool.acquire()
    pool.release(busy, ok=True)
    assert pool.acquire() is busy


def test_a_failing_endpoint_rests_and_traffic_fails_over():
    pool = _pool()
    dead = next(e for e in pool.endpoints if e.base_url == "http://a/v1")
    dead.in_flight += 1
    pool.release(dead, ok=False)
    chosen = {pool.acquire().base_url for _ in range(5)}
    assert chosen == {"http://b/v1"}


def test_when_all_rest_the_one_back_soonest_is_tried():
    pool = _pool()
    a, b = pool.endpoints
    for endpoint in (a, b, b):
        endpoint.in_flight += 1
        pool.release(endpoint, ok=False)
    assert pool.acquire() is a  # b failed twice: its rest is longer


def test_success_clears_the_failure_streak():
    pool = _pool()
    a = pool.endpoints[0]
    a.in_flight += 1
    pool.release(a, ok=False)
    a.in_flight += 1
    pool.release(a, ok=True)
    assert a.failures_in_a_row == 0 and a.down_until == 0.0
