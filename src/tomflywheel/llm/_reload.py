"""Serve another model on a running embedded server by loading its weights in place.

A flywheel round measures the base model, trains, then measures the trained one. Loading the
trained weights into the running server (vLLM's ``reload_weights``, served in its dev mode)
takes under a second where a second server takes ~30 s to start, and the trained model is then
served exactly as the base was: same process, same threads, same dtype.
"""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import httpx

from tomflywheel.config import EmbeddedServerSettings
from tomflywheel.errors import ServerError

RELOAD_ENV = {"VLLM_SERVER_DEV_MODE": "1", "VLLM_SKIP_MODEL_NAME_VALIDATION": "1"}
"""What a server that can swap weights runs with: dev mode serves ``/collective_rpc`` and
``/reset_prefix_cache``; the swapped-in model is asked for by its own name, which the server
was not started with."""

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "chat_template.jinja",
    "generation_config.json",
)
"""Files the server read at start and keeps using: a swapped-in model must have the same."""

_CONFIG_NOISE = frozenset(
    {"_name_or_path", "_model_name_or_path", "dtype", "torch_dtype", "transformers_version"}
)
"""config.json keys that do not change the network (the server keeps its dtype)."""


def can_reload(settings: EmbeddedServerSettings) -> bool:
    """Whether servers of ``settings`` start able to swap weights.

    Only on a loopback interface: dev mode lets any client call methods on vLLM's workers.
    """
    if not settings.reload_weights:
        return False
    if settings.host == "localhost":
        return True
    try:
        return ipaddress.ip_address(settings.host).is_loopback
    except ValueError:
        return False


def _config(folder: Path) -> dict[str, Any]:
    data = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return {key: value for key, value in data.items() if key not in _CONFIG_NOISE}


def swap_refusal(serving: Path, other: Path) -> str | None:
    """Why ``other``'s weights cannot replace ``serving``'s in a running server; ``None``: they can.

    They can when both folders describe the same network (config.json, its dtype and names
    aside) with the same tokenizer, chat template and generation defaults, and ``other`` has
    safetensors weights.
    """
    if not any(other.glob("*.safetensors")):
        return f"{other} has no .safetensors weights"
    try:
        if _config(serving) != _config(other):
            return f"{other}/config.json describes another network than {serving}'s"
    except (OSError, ValueError) as err:
        return f"config.json unreadable ({err})"
    for name in TOKENIZER_FILES:
        here, there = serving / name, other / name
        if here.exists() != there.exists() or (
            here.exists() and here.read_bytes() != there.read_bytes()
        ):
            return f"{other}/{name} differs from {serving}'s"
    return None


def _post(root_url: str, route: str, body: dict[str, Any] | None, timeout_s: float) -> Any:
    """POST to one of the server's dev-mode routes; its JSON reply (``None`` when empty)."""
    try:
        response = httpx.post(f"{root_url}/{route}", json=body, timeout=timeout_s)
    except httpx.HTTPError as err:
        raise ServerError(f"{root_url}/{route}: {err.__class__.__name__}: {err}") from err
    if response.status_code != 200:
        raise ServerError(f"{root_url}/{route}: HTTP {response.status_code}: {response.text[:500]}")
    return response.json() if response.content else None


def reset_prefix_cache(root_url: str, *, timeout_s: float = 60.0) -> None:
    """Empty the prefix cache of the dev-mode server at ``root_url`` (no request in flight).

    Raises:
        ServerError: The server refused, or kept its cache.
    """
    if not (_post(root_url, "reset_prefix_cache", None, timeout_s) or {}).get("success"):
        raise ServerError(f"{root_url}/reset_prefix_cache: the server kept its prefix cache")


def reload_weights(root_url: str, model_dir: Path, *, timeout_s: float) -> None:
    """Load ``model_dir``'s weights into the server at ``root_url`` and empty its prefix cache.

    The prefix cache holds keys and values the old weights computed: kept, they would answer
    the new model's prompts. Call it while no request is in flight.

    Raises:
        ServerError: The server refused or failed either step (it may hold half-loaded weights:
            stop it).
    """
    reload = {"method": "reload_weights", "kwargs": {"weights_path": str(model_dir)}}
    _post(root_url, "collective_rpc", reload, timeout_s)
    reset_prefix_cache(root_url, timeout_s=timeout_s)
