"""Reading a generation reply's per-step token log-probs (pure logic; the server form is tested
against vLLM in ``test_scoring_vllm.py``)."""

from __future__ import annotations

import pytest

from tomflywheel.llm._token_scoring import Unsupported, _steps


def _reply(tokens: list[str], top: list[dict[str, float]]) -> dict:
    return {"choices": [{"logprobs": {"tokens": tokens, "top_logprobs": top}}]}


def test_steps_are_read_as_token_ids():
    reply = _reply(
        ["token_id:79", "token_id:2"],
        [{"token_id:79": -0.03, "token_id:4461": -8.5}, {"token_id:2": -0.1}],
    )
    assert _steps(reply) == ([79, 2], [{79: -0.03, 4461: -8.5}, {2: -0.1}])


@pytest.mark.parametrize(
    "reply",
    [
        {"choices": [{"text": "blue"}]},  # no log-probs at all
        _reply(["blue"], [{"blue": -0.1}]),  # tokens as text: the ids were not honoured
        _reply(["token_id:1", "token_id:2"], [{"token_id:1": -0.1}]),  # a step missing
    ],
)
def test_a_reply_without_per_step_ids_is_unsupported(reply):
    with pytest.raises(Unsupported):
        _steps(reply)
