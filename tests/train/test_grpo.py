"""GRPO on the engine's answers: a real TRL run on the tests' tiny model, rewarded by the rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.train.conftest import basket_or_box
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.train import MANIFEST_NAME, TrainResult, train_model

pytest.importorskip("trl")

# A constant learning rate: the first steps of a longer run are a shorter run's steps.
SETTINGS = TrainSettings(
    method="grpo", steps=10, batch_size=8, learning_rate=3e-3, seed=0, threads=2,
    warmup_ratio=0.0, lr_schedule="constant", max_length=128,
    grpo={"generations": 4, "max_completion_tokens": 4},
)  # fmt: skip


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """16 prompts whose gold is always ``basket``, and one prompt too long for ``max_length``."""
    path = tmp_path_factory.mktemp("grpo") / "basket.jsonl"
    samples = basket_or_box(16, "test-grpo", always_basket=True)
    long = samples[0].model_copy(update={"id": "too-long", "story": "The ball is here. " * 40})
    write_jsonl_atomic(path, [*samples, long])
    return path


@pytest.fixture(scope="module")
def run(candidate_model: Path, data_file: Path, tmp_path_factory: pytest.TempPathFactory):
    progress: list[tuple[int, int]] = []
    result = train_model(
        data_file, base=candidate_model, out=tmp_path_factory.mktemp("grpo-out") / "model",
        settings=SETTINGS, eval_settings=EvalSettings(),
        on_progress=lambda done, total, _: progress.append((done, total)),
    )  # fmt: skip
    return result, progress


def test_the_reward_rises_on_a_trivially_learnable_set(run):
    result, _ = run
    first, last = result.rewards[:3], result.rewards[-3:]
    # Naming basket earns 1.1, box 0.1: a model saying either about as often starts near 0.6.
    assert sum(last) / 3 > sum(first) / 3 + 0.2, result.rewards


def test_the_manifest_records_the_method_rewards_and_drops(run, data_file):
    result, progress = run
    manifest = json.loads((result.output_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["method"] == "grpo" and manifest["steps"] == 10
    assert len(manifest["losses"]) == len(manifest["grpo"]["rewards"]) == 10
    assert manifest["grpo"]["rewards"] == result.rewards
    assert all(0 < length <= 4 for length in manifest["grpo"]["reply_tokens"])
    assert manifest["data"]["too_long"] == ["too-long"] and manifest["data"]["samples_used"] == 16
    assert result.target_tokens > 0 and result.tokens_seen > result.target_tokens
    assert progress == [(step, 10) for step in range(1, 11)]
    assert any(result.output_dir.glob("*.safetensors"))
    assert (result.output_dir / "chat_template.jinja").exists() or json.loads(
        (result.output_dir / "tokenizer_config.json").read_text(encoding="utf-8")
    ).get("chat_template")


def test_the_same_seed_samples_and_learns_the_same(run, candidate_model, data_file, tmp_path):
    result, _ = run
    again: TrainResult = train_model(
        data_file, base=candidate_model, out=tmp_path / "again",
        settings=SETTINGS.model_copy(update={"steps": 3}), eval_settings=EvalSettings(),
    )  # fmt: skip
    assert again.rewards == result.rewards[:3]
    assert again.losses == result.losses[:3]


def test_a_step_must_take_whole_groups():
    with pytest.raises(ValueError, match="multiple of grpo"):
        SETTINGS.model_validate({**SETTINGS.model_dump(), "batch_size": 6})


def test_sft_then_grpo_trains_grpo_from_the_sft_model_and_keeps_a_finished_sft(
    tmp_path, tiny_model, data_file
):
    grpo = SETTINGS.grpo.model_copy(update={"learning_rate": 1e-3})
    settings = SETTINGS.model_copy(update={"method": "sft-grpo", "steps": 2, "grpo": grpo})
    out = tmp_path / "model"
    result = train_model(
        data_file, base=tiny_model, out=out, settings=settings, eval_settings=EvalSettings()
    )
    sft = json.loads((tmp_path / "model.sft" / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert sft["method"] == "sft" and sft["steps"] == 2
    assert result.manifest["method"] == "grpo" and len(result.rewards) == 2
    # each stage at its own rate (constant schedule): SFT at train's, GRPO at grpo's
    assert sft["learning_rate"] == 3e-3
    assert result.learning_rates == [pytest.approx(1e-3)] * 2
    assert result.manifest["base_model"] == str((tmp_path / "model.sft").resolve())

    stamp = (tmp_path / "model.sft" / MANIFEST_NAME).stat().st_mtime_ns
    train_model(
        data_file, base=tiny_model, out=out, settings=settings, eval_settings=EvalSettings(),
        overwrite=True,
    )  # fmt: skip
    assert (tmp_path / "model.sft" / MANIFEST_NAME).stat().st_mtime_ns == stamp


def test_grpo_prompts_of_their_own_follow_sft_on_the_admitted_data(tmp_path, tiny_model, data_file):
    prompts = tmp_path / "fresh.jsonl"
    write_jsonl_atomic(prompts, basket_or_box(8, "test-grpo-fresh", always_basket=True))
    settings = SETTINGS.model_copy(update={"method": "sft-grpo", "steps": 1})
    result = train_model(
        data_file, base=tiny_model, out=tmp_path / "model", settings=settings,
        eval_settings=EvalSettings(), grpo_data=prompts,
    )  # fmt: skip
    sft = json.loads((tmp_path / "model.sft" / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert sft["data"]["path"] == str(data_file) and sft["data"]["samples_used"] == 16
    assert result.manifest["data"]["path"] == str(prompts)
    assert result.manifest["data"]["samples_used"] == 8
    from tomflywheel.errors import ConfigError

    with pytest.raises(ConfigError, match="SFT run"):
        train_model(
            data_file, base=tiny_model, out=tmp_path / "sft", settings=SETTINGS.model_copy(
                update={"method": "sft"}), eval_settings=EvalSettings(), grpo_data=prompts,
        )  # fmt: skip
    assert not (tmp_path / "sft").exists()


def test_vllm_generation_is_passed_to_trl_on_a_gpu_and_refused_on_a_cpu(tmp_path, tiny_model):
    from tomflywheel.errors import ConfigError
    from tomflywheel.train._grpo import vllm_arguments
    from tomflywheel.train._model import Placement

    gpu = Placement("cuda", autocast_bf16=True)
    colocate = SETTINGS.model_copy(
        update={"grpo": SETTINGS.grpo.model_copy(update={"vllm": "colocate"})}
    )
    assert vllm_arguments(colocate, gpu) == {
        "use_vllm": True, "vllm_mode": "colocate", "vllm_gpu_memory_utilization": 0.3,
    }  # fmt: skip
    server = TrainSettings(
        method="grpo", batch_size=8,
        grpo={"vllm": "server", "vllm_server": "http://10.0.0.2:8000"},
    )  # fmt: skip
    assert vllm_arguments(server, gpu) == {
        "use_vllm": True, "vllm_mode": "server", "vllm_server_base_url": "http://10.0.0.2:8000",
    }  # fmt: skip
    assert vllm_arguments(SETTINGS, Placement("cpu", autocast_bf16=False)) == {}
    with pytest.raises(ValueError, match="vllm_server"):
        TrainSettings(method="grpo", batch_size=8, grpo={"vllm": "server"})
    # On this CPU the run is refused before any model is loaded, and nothing is written.
    data = tmp_path / "basket.jsonl"
    write_jsonl_atomic(data, basket_or_box(4, "test-grpo-vllm", always_basket=True))
    with pytest.raises(
        ConfigError, match=r"train\.grpo\.vllm: colocate generates on a CUDA device"
    ):
        train_model(
            data, base=tiny_model, out=tmp_path / "model",
            settings=colocate.model_copy(update={"device": "cpu"}), eval_settings=EvalSettings(),
        )  # fmt: skip
    assert not (tmp_path / "model").exists()


def test_grpo_on_targets_prompts_with_the_false_belief_samples_only(tmp_path, tiny_model):
    from tomflywheel.audit import sample_role
    from tomflywheel.errors import DataError
    from tomflywheel.world import generate

    samples = list(generate("tomi", n=2, seed=4, controls=True))
    targets = [s for s in samples if sample_role(s) == "target"]
    assert 0 < len(targets) < len(samples)
    data = tmp_path / "mixed.jsonl"
    write_jsonl_atomic(data, samples)
    settings = SETTINGS.model_copy(
        update={
            "steps": 1, "max_length": 640,
            "grpo": SETTINGS.grpo.model_copy(update={"prompts": "targets"}),
        }
    )  # fmt: skip
    result = train_model(
        data, base=tiny_model, out=tmp_path / "model", settings=settings,
        eval_settings=EvalSettings(),
    )  # fmt: skip
    assert result.manifest["data"]["samples_read"] == len(samples)
    assert result.manifest["data"]["samples_used"] == len(targets)
    controls = tmp_path / "controls.jsonl"
    write_jsonl_atomic(controls, [s for s in samples if s not in targets])
    with pytest.raises(DataError, match="no sample is a target"):
        train_model(
            controls, base=tiny_model, out=tmp_path / "none", settings=settings,
            eval_settings=EvalSettings(),
        )  # fmt: skip
