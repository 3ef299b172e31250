"""The executor setting: config keys, the --executor flag, and the error without Ray."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.cli._common import ExecutorChoice, load
from tomflywheel.cluster import ray_session
from tomflywheel.config import RaySettings, parse_settings
from tomflywheel.errors import ConfigError


def test_local_is_the_default_and_a_ray_section_is_read():
    assert parse_settings("").executor == "local"
    settings = parse_settings(
        "executor: ray\nray:\n  address: auto\n  num_cpus: 4\n  synthesis_block: 8\n"
    )
    assert settings.executor == "ray"
    assert (settings.ray.address, settings.ray.num_cpus, settings.ray.synthesis_block) == (
        "auto",
        4,
        8,
    )


def test_a_bad_executor_or_ray_key_names_the_key():
    with pytest.raises(ConfigError, match=r"executor"):
        parse_settings("executor: spark\n")
    with pytest.raises(ConfigError, match=r"ray\.num_cpus"):
        parse_settings("ray:\n  num_cpus: 0\n")
    with pytest.raises(ConfigError, match=r"ray\.adress"):
        parse_settings("ray:\n  adress: auto\n")


def test_the_flag_overrides_the_config(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("executor: local\n")
    assert load(config, ExecutorChoice.ray).executor == "ray"
    assert load(config).executor == "local"


@pytest.mark.parametrize(
    "command", [["eval"], ["feedback"], ["feedback", "synthesize"], ["filter"], ["flywheel"]]
)
def test_stage_commands_take_the_executor_flag(command):
    result = CliRunner().invoke(app, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "--executor" in result.output


def test_without_ray_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    with (
        pytest.raises(ConfigError, match=r"pip install tomflywheel\[ray\]"),
        ray_session(RaySettings()),
    ):
        pass
