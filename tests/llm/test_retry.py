import random

import httpx2
import openai
import pytest

from tomflywheel.llm._retry import RetryDelay, is_overload, is_retryable, retry_after_s


def _status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    request = httpx2.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    response = httpx2.Response(status, headers=headers or {}, request=request)
    classes = {400: openai.BadRequestError, 429: openai.RateLimitError}
    cls = classes.get(
        status, openai.InternalServerError if status >= 500 else openai.APIStatusError
    )
    return cls("boom", response=response, body=None)


@pytest.mark.parametrize(
    ("status", "retry"),
    [(400, False), (401, False), (404, False), (422, False), (429, True), (500, True), (503, True)],
)
def test_only_429_and_5xx_are_retried(status, retry):
    assert is_retryable(_status_error(status)) is retry


def test_connection_errors_and_timeouts_are_retried():
    request = httpx2.Request("POST", "http://127.0.0.1:1/v1/completions")
    assert is_retryable(openai.APIConnectionError(request=request))
    assert is_retryable(openai.APITimeoutError(request=request))
    assert not is_retryable(ValueError("not transport"))


@pytest.mark.parametrize(
    ("status", "overload"), [(429, True), (503, True), (504, True), (500, False)]
)
def test_only_rate_limits_unavailable_and_timeouts_mean_overload(status, overload):
    assert is_overload(_status_error(status)) is overload


def test_a_timeout_means_overload_but_a_refused_connection_does_not():
    # Refused: nobody is there to be overloaded; the client checks reachability instead.
    request = httpx2.Request("POST", "http://127.0.0.1:1/v1/completions")
    assert is_overload(openai.APITimeoutError(request=request))
    assert not is_overload(openai.APIConnectionError(request=request))


def test_retry_after_headers_are_read():
    assert retry_after_s(_status_error(429, {"retry-after": "3"})) == 3.0
    assert retry_after_s(_status_error(429, {"retry-after-ms": "250"})) == 0.25
    assert retry_after_s(_status_error(429)) is None
    assert retry_after_s(_status_error(429, {"retry-after": "soon"})) is None


def test_wait_honours_retry_after():
    wait = RetryDelay(0.5, 20.0, rng=random.Random(0))
    assert wait(_status_error(429, {"retry-after": "7"}), 1) == 7.0


def test_an_absurd_retry_after_is_capped():
    wait = RetryDelay(0.5, 2.0, rng=random.Random(0))
    assert wait(_status_error(429, {"retry-after": "86400"}), 1) == 10.0


def test_backoff_doubles_with_jitter_and_is_capped():
    wait = RetryDelay(1.0, 4.0, rng=random.Random(0))
    error = _status_error(503)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (6, 4.0)]:
        delays = {wait(error, attempt) for _ in range(20)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1  # jittered, not a fixed schedule
