"""The embedded server's command: float32 where a CPU build has no native bf16; the block size."""

from __future__ import annotations

from pathlib import Path

from tomflywheel.config import EmbeddedServerSettings
from tomflywheel.llm._server import VLLMServer, cpu_flags, server_dtype


def test_auto_serves_float32_on_a_cpu_build_without_native_bf16():
    assert server_dtype("auto", cpu_build=True, flags={"avx2", "avx512f"}) == "float32"


def test_auto_keeps_the_models_dtype_with_native_bf16_or_on_a_gpu_build():
    assert server_dtype("auto", cpu_build=True, flags={"avx512f", "avx512_bf16"}) is None
    assert server_dtype("auto", cpu_build=True, flags={"amx_bf16"}) is None
    assert server_dtype("auto", cpu_build=False, flags={"avx2"}) is None


def test_a_chosen_dtype_is_passed_on_whatever_the_machine():
    assert server_dtype("bfloat16", cpu_build=True, flags={"avx2"}) == "bfloat16"


def test_cpu_flags_are_read_from_the_flags_line(tmp_path: Path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 avx512_bf16\nbugs\t: none\n")
    assert cpu_flags(cpuinfo) == {"fpu", "sse", "avx2", "avx512_bf16"}
    assert cpu_flags(tmp_path / "absent") == set()


def test_the_server_command_carries_the_chosen_dtype_once(tmp_path: Path):
    server = VLLMServer(EmbeddedServerSettings(dtype="float16", port=8000), model_dir=tmp_path)
    command = server.command()
    assert command.count("--dtype") == 1
    assert command[command.index("--dtype") + 1] == "float16"


def test_the_server_command_carries_the_block_size_unless_left_to_vllm(tmp_path: Path):
    command = VLLMServer(EmbeddedServerSettings(port=8000), model_dir=tmp_path).command()
    assert command[command.index("--block-size") + 1] == "32"
    unset = EmbeddedServerSettings(port=8000, block_size=None)
    assert "--block-size" not in VLLMServer(unset, model_dir=tmp_path).command()
