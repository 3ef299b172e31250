"""Requests in words: cached work is named as cached, never left out of "0 requests"."""

from __future__ import annotations

from tomflywheel.report import usage_text


def test_a_fully_cached_run_says_where_its_answers_came_from():
    usage = {"requests_sent": 0, "cache_hits": 402, "prompt_tokens": 0, "completion_tokens": 0}
    assert usage_text(usage) == "0 requests sent, 402 answers from the request cache"


def test_sent_requests_carry_their_tokens_and_no_cache_line_without_hits():
    usage = {"requests_sent": 1, "prompt_tokens": 1200, "completion_tokens": 30}
    assert usage_text(usage) == "1 request sent, tokens 1,200 in / 30 out"
    assert usage_text(usage, tokens=False) == "1 request sent"
