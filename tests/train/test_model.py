"""Output folder checks, the optional peft dependency and what precision `auto` picks."""

from __future__ import annotations

import importlib.util

import pytest

from tomflywheel.config import TrainSettings
from tomflywheel.errors import ConfigError
from tomflywheel.train import LoraSettings, _model, weights_sha256
from tomflywheel.train._model import (
    EAGER_MAX_TOKENS,
    check_output_folder,
    load_model,
    lora_config,
    resolve_attention,
    resolve_placement,
)


def test_a_non_empty_output_folder_is_not_overwritten_by_default(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="exists and is not empty"):
        check_output_folder(tmp_path / "model", overwrite=False)
    check_output_folder(tmp_path / "model", overwrite=True)
    check_output_folder(tmp_path / "absent", overwrite=False)


def test_lora_without_peft_is_a_clear_config_error(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        _model.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "peft" else real(name, *a),
    )
    with pytest.raises(ConfigError, match=r"LoRA needs the optional `peft` package"):
        lora_config(LoraSettings(enabled=True))


def test_the_weights_fingerprint_changes_with_any_weight_byte(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(b"\x00" * 64)
        (folder / "config.json").write_text("{}", encoding="utf-8")
    assert weights_sha256(first) == weights_sha256(second)
    (second / "config.json").write_text('{"other": 1}', encoding="utf-8")  # not a weight
    assert weights_sha256(first) == weights_sha256(second)
    (second / "model.safetensors").write_bytes(b"\x00" * 63 + b"\x01")
    assert weights_sha256(first) != weights_sha256(second)


@pytest.mark.parametrize(
    ("precision", "method", "native", "autocast"),
    [
        ("auto", "sft", True, True),  # SFT on a CPU with native bf16: measured, and faster
        ("auto", "sft", False, False),  # emulated bf16 is slower than fp32
        ("auto", "grpo", True, False),  # GRPO's lift was never measured under bf16 on a CPU
        ("fp32", "sft", True, False),
        ("bf16-mixed", "sft", False, True),  # asked for: given, even where it is slow
    ],
)
def test_auto_precision_on_a_cpu_is_bf16_for_sft_where_the_cpu_has_it(
    precision, method, native, autocast
):
    pytest.importorskip("torch")
    settings = TrainSettings(device="cpu", precision=precision, method=method)
    placement = resolve_placement(settings, cpu_bf16=native)
    assert (placement.device, placement.autocast_bf16) == ("cpu", autocast)


@pytest.mark.parametrize(
    ("attention", "method", "device", "longest", "resolved"),
    [
        ("auto", "sft", "cpu", EAGER_MAX_TOKENS, "eager"),  # short stories: measured faster
        ("auto", "sft", "cpu", EAGER_MAX_TOKENS + 1, "sdpa"),  # long ones: fused is faster
        ("auto", "sft", "cuda", 100, "sdpa"),  # flash attention on a GPU
        ("auto", "grpo", "cpu", 100, "sdpa"),  # GRPO generates: never measured with eager
        ("sdpa", "sft", "cpu", 100, "sdpa"),  # asked for: given
        ("eager", "sft", "cuda", 5000, "eager"),
    ],
)
def test_auto_attention_is_eager_only_for_short_sft_examples_on_a_cpu(
    attention, method, device, longest, resolved
):
    settings = TrainSettings(attention=attention, method=method)
    assert resolve_attention(settings, device=device, longest=longest) == resolved


def test_eager_and_fused_attention_compute_the_same_logits(tiny_model):
    torch = pytest.importorskip("torch")
    ids = torch.tensor([[5, 17, 99, 3, 42, 8], [7, 7, 12, 64, 1, 2]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]])  # a left-padded row too
    logits = {}
    for attention in ("sdpa", "eager"):
        model = load_model(tiny_model, attention=attention).eval()
        assert model.config._attn_implementation == attention
        with torch.no_grad():
            logits[attention] = model(input_ids=ids, attention_mask=mask).logits
    keep = mask.bool()  # padded positions attend to nothing: their values are arbitrary
    torch.testing.assert_close(logits["eager"][keep], logits["sdpa"][keep], atol=1e-4, rtol=1e-4)
