"""Which model folders may swap weights in a running server, and which servers may swap."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tomflywheel.config import EmbeddedServerSettings
from tomflywheel.errors import ConfigError, ServerError
from tomflywheel.llm import VLLMServer
from tomflywheel.llm._reload import can_reload, swap_refusal

CONFIG = {"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "dtype": "bfloat16"}


def _folder(path: Path, **config: object) -> Path:
    path.mkdir()
    (path / "config.json").write_text(json.dumps({**CONFIG, **config}), encoding="utf-8")
    (path / "tokenizer.json").write_text('{"vocab": 1}', encoding="utf-8")
    (path / "model.safetensors").write_bytes(b"weights")
    return path


def test_a_copy_trained_in_another_dtype_can_swap_in(tmp_path):
    base = _folder(tmp_path / "base")
    trained = _folder(
        tmp_path / "trained", dtype="float32", _name_or_path="x", transformers_version="9"
    )
    assert swap_refusal(base, trained) is None


def test_another_network_another_tokenizer_or_no_weights_cannot(tmp_path):
    base = _folder(tmp_path / "base")
    wider = _folder(tmp_path / "wider", hidden_size=128)
    assert "another network" in swap_refusal(base, wider)

    retokenized = tmp_path / "retokenized"
    shutil.copytree(base, retokenized)
    (retokenized / "tokenizer.json").write_text('{"vocab": 2}', encoding="utf-8")
    assert "tokenizer.json differs" in swap_refusal(base, retokenized)

    templated = tmp_path / "templated"
    shutil.copytree(base, templated)
    (templated / "chat_template.jinja").write_text("{{ messages }}", encoding="utf-8")
    assert "chat_template.jinja differs" in swap_refusal(base, templated)

    bare = tmp_path / "bare"
    shutil.copytree(base, bare)
    (bare / "model.safetensors").unlink()
    assert "no .safetensors" in swap_refusal(base, bare)


@pytest.mark.parametrize(
    ("host", "enabled", "expected"),
    [
        ("127.0.0.1", True, True),
        ("localhost", True, True),
        ("::1", True, True),
        ("0.0.0.0", True, False),  # dev mode would be open to the network
        ("10.1.2.3", True, False),
        ("my-host", True, False),
        ("127.0.0.1", False, False),
    ],
)
def test_only_loopback_servers_swap_weights(host, enabled, expected):
    settings = EmbeddedServerSettings(host=host, reload_weights=enabled)
    assert can_reload(settings) is expected


def test_a_server_off_loopback_cannot_be_made_swappable(tmp_path):
    settings = EmbeddedServerSettings(host="0.0.0.0")
    with pytest.raises(ConfigError, match="loopback"):
        VLLMServer(settings, model_dir=tmp_path, swappable=True)


def test_a_server_started_without_dev_mode_refuses_to_swap(tmp_path):
    server = VLLMServer(EmbeddedServerSettings(), model_dir=tmp_path)  # as `tomflywheel serve`
    with pytest.raises(ServerError, match="not started able to swap"):
        server.reload(tmp_path)
