"""Naturalization's symbolic half: agents renamed consistently everywhere, seeded."""

from __future__ import annotations

from tests.feedback.conftest import reality_bias_samples
from tomflywheel.errors import LLMRequestError
from tomflywheel.feedback import rename_agents
from tomflywheel.feedback._naturalize import CUT_SHORT, EMPTY_REPLY, _failure_reason
from tomflywheel.world.samples import verify_sample


def test_renaming_touches_story_question_answers_and_events_and_keeps_the_gold():
    samples = reality_bias_samples()
    assert samples
    for sample in samples:
        renamed, mapping = rename_agents(sample, 0)
        agents = sample.meta["trace"]["story"]["agents"]
        assert set(mapping) == set(agents)
        assert not set(mapping) & set(mapping.values())
        assert renamed.story != sample.story
        assert not any(agent in renamed.story.split() for agent in agents)
        assert renamed.meta["trace"]["story"]["agents"] == [mapping[a] for a in agents]
        assert verify_sample(renamed).ok
        assert rename_agents(sample, 0) == (renamed, mapping)  # seeded: same names again


def test_every_failed_rewrite_is_explained():
    assert _failure_reason(None) == CUT_SHORT
    assert _failure_reason("") == EMPTY_REPLY
    assert _failure_reason(LLMRequestError(400, "too long")) == "refused: HTTP 400"
