"""Start-up: importing the CLI loads no heavy library; what it spells itself matches the library."""

from __future__ import annotations

import subprocess
import sys
from typing import get_args

import typer
from typer.testing import CliRunner

from tomflywheel.cli import app

HEAVY = ("sklearn", "torch", "transformers", "vllm", "ray", "pandas", "openai", "scipy")


def _loaded_by(statement: str) -> list[str]:
    """Modules of interest in ``sys.modules`` after ``statement`` in a fresh interpreter."""
    watched = (*HEAVY, "tomflywheel.world", "tomflywheel.evaluation", "tomflywheel.report")
    probe = f"import sys; {statement}; print(*[m for m in {watched!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_importing_the_cli_loads_no_heavy_library_and_no_stage():
    # Every command pays for what the CLI imports, --help included: the stages (openai under
    # them), scikit-learn and the world engine load inside the commands that use them.
    assert _loaded_by("import tomflywheel.cli") == []


def test_the_check_can_see_a_heavy_import():
    # The probe above must be able to fail: importing the library's evaluation loads openai.
    assert "openai" in _loaded_by("import tomflywheel.evaluation")


def test_names_the_cli_spells_match_the_library():
    from tomflywheel.cli._datasets import ENV_FETCH_BASE_URL
    from tomflywheel.cli._world import Benchmark
    from tomflywheel.datasets import DEFAULT_DATASETS_DIR
    from tomflywheel.datasets import ENV_FETCH_BASE_URL as LIBRARY_ENV
    from tomflywheel.world import Benchmark as LibraryBenchmark

    assert ENV_FETCH_BASE_URL == LIBRARY_ENV
    assert get_args(Benchmark) == get_args(LibraryBenchmark)
    fetch = typer.main.get_command(app).commands["datasets"].commands["fetch"]
    default = next(p.default for p in fetch.params if p.name == "datasets_dir")
    assert str(default) == str(DEFAULT_DATASETS_DIR)


def test_help_lists_the_registered_generators_and_profiles():
    from tomflywheel.world import GENERATORS, PROFILES

    generate = CliRunner().invoke(app, ["datasets", "generate", "--help"])
    assert generate.exit_code == 0
    assert f"Generators: {', '.join(GENERATORS.names())}." in generate.output
    check = CliRunner().invoke(app, ["world", "check", "--help"])
    assert f"Rule profiles: {', '.join(sorted(PROFILES))}." in check.output
