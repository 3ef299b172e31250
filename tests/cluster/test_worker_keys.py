"""An API key never travels in a Ray task's payload: workers read it from their environment."""

from __future__ import annotations

import pickle

from pydantic import SecretStr

from tomflywheel.config import LLMSettings
from tomflywheel.evaluation._predict_ray import worker_settings

SECRET = "sk-test-never-in-a-payload"


def test_worker_settings_carry_no_key_and_share_the_limit():
    llm = LLMSettings(base_urls=["http://127.0.0.1:9/v1"], model="m", concurrency=16)
    llm = llm.model_copy(update={"api_key": SecretStr(SECRET)})
    shipped = worker_settings(llm, cpus=3)
    assert SECRET.encode() not in pickle.dumps(shipped)
    assert shipped.api_key is None and shipped.concurrency == 6


def test_a_worker_reads_the_key_from_its_environment(monkeypatch):
    llm = LLMSettings(base_urls=["http://127.0.0.1:9/v1"], model="m", api_key_env="MY_KEY")
    monkeypatch.delenv("TOMFLYWHEEL_API_KEY", raising=False)
    assert llm.with_environment_key("TOMFLYWHEEL_API_KEY").api_key is None
    monkeypatch.setenv("MY_KEY", SECRET)
    assert llm.with_environment_key("TOMFLYWHEEL_API_KEY").api_key.get_secret_value() == SECRET
    monkeypatch.setenv("TOMFLYWHEEL_API_KEY", "preferred")
    assert llm.with_environment_key("TOMFLYWHEEL_API_KEY").api_key.get_secret_value() == "preferred"
