"""A tiny real fine-tuning run: the loss goes down, it is reproducible, vLLM serves the result."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from tests.conftest import STARTUP_S
from tests.train.conftest import tomi_style_samples
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.cli import app
from tomflywheel.config import EmbeddedServerSettings, EvalSettings, LLMSettings, Settings
from tomflywheel.train import MANIFEST_NAME, TrainResult, TrainSettings, train_model

# Full fine-tune, constant learning rate: a 1-step run then repeats the first step of the 4.
SETTINGS = TrainSettings(
    steps=4,
    batch_size=2,
    learning_rate=1e-4,
    lr_schedule="constant",
    warmup_ratio=0.0,
    seed=3,
    rationale=True,
    max_length=384,
)


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("train-data") / "train.jsonl"
    write_jsonl_atomic(path, tomi_style_samples(4))
    return path


@pytest.fixture(scope="module")
def trained(
    data_file: Path, base_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[TrainResult, list[tuple[int, int, float]]]:
    calls: list[tuple[int, int, float]] = []
    result = train_model(
        data_file,
        base=base_model,
        out=tmp_path_factory.mktemp("models") / "run",
        settings=SETTINGS,
        eval_settings=EvalSettings(),
        on_progress=lambda done, total, loss: calls.append((done, total, loss)),
    )
    return result, calls


def test_the_loss_goes_down(trained):
    result, _ = trained
    # 4 steps of 2 over 4 samples: two epochs of the same samples, in different orders.
    first_epoch, second_epoch = result.losses[:2], result.losses[2:]
    assert result.steps == 4
    assert sum(second_epoch) < 0.75 * sum(first_epoch)


def test_progress_is_reported_after_every_step(trained):
    result, calls = trained
    assert [(done, total) for done, total, _ in calls] == [(i, 4) for i in range(1, 5)]
    assert [loss for _, _, loss in calls] == result.losses


def test_the_same_seed_gives_the_same_losses(trained, data_file, base_model, tmp_path):
    result, _ = trained
    again = train_model(
        data_file,
        base=base_model,
        out=tmp_path / "again",
        settings=SETTINGS.model_copy(update={"steps": 1}),
        eval_settings=EvalSettings(),
    )
    assert again.losses == result.losses[:1]


def test_the_folder_holds_weights_tokenizer_template_and_manifest(trained, data_file):
    result, _ = trained
    out = result.output_dir
    names = {path.name for path in out.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"} <= names
    assert not any(name.startswith(".") for name in names)
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert "quantization_config" not in config
    assert config["dtype"] == "float32"
    manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["data"]["sha256"] == hashlib.sha256(data_file.read_bytes()).hexdigest()
    assert manifest["data"]["samples_used"] == 4
    assert manifest["data"]["with_rationale"] == 2  # samples 0 and 3
    assert manifest["losses"] == result.losses
    assert manifest["seed"] == 3
    assert manifest["settings"]["batch_size"] == 2
    assert manifest["trainable_parameters"] == manifest["total_parameters"]  # full fine-tune
    # train.attention auto: short SFT examples on a CPU train with eager attention
    assert manifest["attention"] == ("eager" if manifest["device"] == "cpu" else "sdpa")


# Several of the server's 32-token KV blocks long: the prefix cache would reuse them.
STORY = " ".join(
    f"{name} put the ball in the {place} and left the room." * 2
    for name, place in [("Sally", "basket"), ("Anne", "box"), ("Tom", "drawer")]
)


def _greedy_logprobs(llm: LLMSettings) -> list[float]:
    """The served model's greedy continuation of a fixed story, as its tokens' log-probs (one
    request at a time: same weights, same numbers)."""
    reply = httpx.post(
        f"{llm.base_urls[0]}/completions",
        json={
            "model": llm.model,
            "prompt": STORY,
            "max_tokens": 6,
            "temperature": 0,
            "logprobs": 0,
            "ignore_eos": True,
        },
        timeout=120,
    )
    reply.raise_for_status()
    return reply.json()["choices"][0]["logprobs"]["token_logprobs"]


@pytest.mark.vllm
def test_vllm_serves_the_fine_tuned_folder_and_swaps_weights_in_place(trained, base_model):
    from tomflywheel.llm import llm_endpoint, shared_servers

    result, _ = trained

    def serving(model: Path, name: str) -> Settings:
        embedded = EmbeddedServerSettings(
            model=model, served_model_name=name, startup_timeout_s=STARTUP_S
        )
        return Settings(server="embedded", embedded=embedded)

    needs = ("chat", "logprobs")
    with shared_servers():
        with llm_endpoint(serving(result.output_dir, "tuned"), needs=needs, lazy=False) as tuned:
            models = httpx.get(f"{tuned.base_urls[0]}/models", timeout=10).json()
            assert [m["id"] for m in models["data"]] == ["tuned"]
            reply = httpx.post(
                f"{tuned.base_urls[0]}/chat/completions",
                json={
                    "model": "tuned",
                    "messages": [{"role": "user", "content": "Where is the ball? One word."}],
                    "max_tokens": 8,
                    "temperature": 0,
                },
                timeout=60,
            ).json()
            tuned_logprobs = _greedy_logprobs(tuned)
        # The base model on the same server: its weights loaded in place, asked by its own name.
        with llm_endpoint(serving(base_model, "base"), needs=needs) as base:
            assert base.base_urls == tuned.base_urls
            base_logprobs = _greedy_logprobs(base)
        with llm_endpoint(serving(result.output_dir, "tuned"), needs=needs) as again:
            assert again.base_urls == tuned.base_urls
            tuned_again = _greedy_logprobs(again)
    # The server generated from the folder's weights (what the tiny model says is not the test:
    # a first token that ends the answer is an empty reply, and still a generation).
    assert reply["usage"]["completion_tokens"] >= 1, reply
    assert reply["choices"][0]["finish_reason"] in ("stop", "length"), reply
    # Four training steps moved the weights; swapping back serves exactly the tuned ones again
    # (the prefix cache was emptied at each swap, or the story's blocks the base computed
    # would answer).
    assert base_logprobs != tuned_logprobs
    assert tuned_again == tuned_logprobs


def test_the_cli_trains_with_lora_and_saves_merged_plain_weights(tmp_path, tiny_model):
    pytest.importorskip("peft")
    from safetensors import safe_open

    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, tomi_style_samples(4))
    base_model = tiny_model  # the same architecture, small enough to train in seconds
    out = tmp_path / "cli-lora"
    config = tmp_path / "c.yaml"
    config.write_text("server: embedded\n", encoding="utf-8")  # no train section: defaults
    result = CliRunner().invoke(
        app,
        ["train", "--data", str(data), "--base", str(base_model), "--out", str(out),
         "--config", str(config),
         "--steps", "1", "--batch-size", "2", "--max-length", "384", "--lora", "--lora-rank", "4"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"serve it: tomflywheel serve --model {out}" in result.output
    manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["steps"] == 1
    assert manifest["settings"]["lora"]["rank"] == 4
    assert manifest["learning_rate"] == 2e-4  # the LoRA default
    assert manifest["trainable_parameters"] < manifest["total_parameters"] // 20
    with (
        safe_open(str(base_model / "model.safetensors"), "pt") as before,
        safe_open(str(out / "model.safetensors"), "pt") as after,
    ):
        assert set(after.keys()) == set(before.keys())  # no lora_A / lora_B left
        name = "model.layers.0.self_attn.q_proj.weight"
        delta = (after.get_tensor(name) - before.get_tensor(name).float()).abs().max()
    assert float(delta) > 0  # the adapter's update is in the merged weight


def test_the_cli_refuses_a_non_empty_output_folder(tmp_path, base_model):
    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, tomi_style_samples(2))
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("keep me", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "tomflywheel", "train", "--data", str(data),
         "--base", str(base_model), "--out", str(tmp_path / "busy")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "exists and is not empty (pass --overwrite to replace it)" in done.stderr
    assert "Traceback" not in done.stderr
    assert (tmp_path / "busy" / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_the_loss_curve_goes_to_tensorboard_when_asked(tmp_path, tiny_model):
    from tests.test_tracking import read_scalars

    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, tomi_style_samples(4))
    out = tmp_path / "tb-run"
    config = tmp_path / "c.yaml"
    config.write_text("server: embedded\n", encoding="utf-8")
    result = CliRunner().invoke(
        app,
        ["train", "--data", str(data), "--base", str(tiny_model), "--out", str(out),
         "--config", str(config), "--steps", "2", "--batch-size", "2", "--max-length", "384",
         "--report-to", "tensorboard"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    logged = read_scalars(tmp_path)
    manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert [step for step, _ in logged["train/loss"]] == [1, 2]
    assert [v for _, v in logged["train/loss"]] == pytest.approx(manifest["losses"], rel=1e-5)


def test_a_curriculum_run_trains_and_records_it(tmp_path, tiny_model):
    samples = tomi_style_samples(4)
    for order, sample in enumerate(samples):
        sample.meta["order"] = 3 - order  # the file lists the highest order first
    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, samples)
    out = tmp_path / "curriculum"
    config = tmp_path / "c.yaml"
    config.write_text("server: embedded\n", encoding="utf-8")
    result = CliRunner().invoke(
        app,
        ["train", "--data", str(data), "--base", str(tiny_model), "--out", str(out),
         "--config", str(config), "--steps", "2", "--batch-size", "2", "--max-length", "384",
         "--curriculum", "orders"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["settings"]["curriculum"] == "orders"
    assert len(manifest["losses"]) == 2
