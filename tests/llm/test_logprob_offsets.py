import pytest

from tomflywheel.errors import ServerError
from tomflywheel.llm import continuation_logprob


def _logprobs(tokens, values):
    offsets, position = [], 0
    for token in tokens:
        offsets.append(position)
        position += len(token)
    return {"tokens": tokens, "token_logprobs": values, "text_offset": offsets}


def test_only_continuation_tokens_are_summed():
    # Prompt "The capital is Paris" + one generated token ".".
    logprobs = _logprobs(["The", " capital", " is", " Paris", "."], [None, -5.0, -1.0, -0.5, -9.0])
    total, count = continuation_logprob(logprobs, len("The capital is"))
    assert (total, count) == (-0.5, 1)


def test_multi_token_continuation():
    logprobs = _logprobs(["A", " ban", "ana", "!"], [None, -2.0, -0.25, -7.0])
    assert continuation_logprob(logprobs, len("A")) == (-2.25, 2)


def test_a_token_straddling_the_boundary_counts_as_continuation():
    # Context "in the box" + continuation "es": the tokenizer merges "boxes" into one token.
    logprobs = _logprobs(["in", " the", " boxes", "\n"], [None, -1.0, -3.0, -1.0])
    assert continuation_logprob(logprobs, len("in the box")) == (-3.0, 1)


def test_an_empty_context_cannot_be_scored():
    with pytest.raises(ServerError):
        continuation_logprob(_logprobs(["Hi", "!"], [None, -1.0]), 0)
