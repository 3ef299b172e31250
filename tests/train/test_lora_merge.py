"""The saved folder of a LoRA run computes what the adapter model did: merging loses nothing."""

from __future__ import annotations

import pytest

from tomflywheel.config import LoraSettings
from tomflywheel.train._model import load_model, load_tokenizer, lora_config, save_model_folder

torch = pytest.importorskip("torch")
peft = pytest.importorskip("peft")


def test_the_merged_models_logits_equal_the_adapter_models(tmp_path, tiny_model):
    from transformers import AutoModelForCausalLM

    tokenizer = load_tokenizer(tiny_model)
    config = lora_config(LoraSettings(enabled=True, rank=4, alpha=8, dropout=0.0))
    config.init_lora_weights = False  # random B: the adapters change the output from the start
    torch.manual_seed(0)
    adapted = peft.get_peft_model(load_model(tiny_model), config).eval()
    batch = tokenizer(
        ["Sally put the ball in the basket.", "Where will Anne look?"],
        return_tensors="pt", padding=True,
    )  # fmt: skip
    with torch.no_grad():
        with_adapters = adapted(**batch).logits
        base = load_model(tiny_model).eval()(**batch).logits
    save_model_folder(
        adapted, tokenizer, tmp_path / "merged", manifest={}, save_dtype="auto", overwrite=False
    )
    merged = AutoModelForCausalLM.from_pretrained(str(tmp_path / "merged")).eval()
    with torch.no_grad():
        after = merged(**batch).logits
    assert not torch.allclose(with_adapters, base, atol=1e-3)  # the adapters do something
    assert torch.allclose(after, with_adapters, atol=1e-5, rtol=1e-5)
