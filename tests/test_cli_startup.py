"""Start-up: importing the CLI loads no heavy library; what it spells itself matches the library."""

from __future__ import annotations

import subprocess
import sys
from typing import get_args

from typer.testing import CliRunner

from tests.cli_commands import walk
from tomflywheel.cli import app
from tomflywheel.cli._lazy import COMMANDS, DATASETS_COMMANDS

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


def _help_run(argv: list[str], watched: tuple[str, ...]) -> tuple[str, list[str]]:
    """The help ``main(argv)`` prints in a fresh interpreter, and the loaded modules that start
    with one of ``watched``, sorted."""
    probe = (
        f"import sys\nfrom tomflywheel.cli import main\ntry:\n    main({argv!r})\n"
        "except SystemExit:\n    pass\n"
        f"print(*sorted(m for m in sys.modules if m.startswith({watched!r})), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr.split()


def test_root_help_imports_no_command_and_no_config():
    # ``--help`` lists the commands from their summaries; a command's module (and pydantic's
    # config models under it) loads when that command is used.
    shown, loaded = _help_run(["--help"], ("tomflywheel.cli._", "tomflywheel.config", "pydantic"))
    assert "Commands:" in shown and all(name in shown for name in COMMANDS)
    assert loaded == ["tomflywheel.cli._common", "tomflywheel.cli._lazy"]


def test_each_summary_is_the_first_paragraph_of_its_commands_help():
    commands = dict(walk())
    tables = {(): COMMANDS, ("datasets",): DATASETS_COMMANDS}
    for group, table in tables.items():
        for name, entry in table.items():
            first = " ".join((commands[(*group, name)].help or "").split("\n\n")[0].split())
            assert first == entry.summary, name


def test_datasets_generate_loads_neither_the_config_nor_the_benchmark_checks():
    # ``datasets generate`` needs the generators only: the audit command's config models and
    # the world engine's benchmark checks load when a command uses them.
    watched = ("tomflywheel.config", "tomflywheel.cli._audit", "tomflywheel.world.checks")
    shown, loaded = _help_run(["datasets", "generate", "--help"], watched)
    assert "Generators:" in shown
    assert loaded == []


def test_generating_stories_imports_no_yaml_and_compiles_no_parser_rule(tmp_path):
    # Generation reads no YAML and parses no story: PyYAML and the story parser's ~130
    # compiled templates load in the commands that need them.
    out = tmp_path / "tomi.jsonl"
    argv = ["datasets", "generate", "tomi", "--n", "1", "-o", str(out)]
    probe = (
        f"import sys\nfrom tomflywheel.cli import main\ntry:\n    main({argv!r})\n"
        "except SystemExit:\n    pass\n"
        "from tomflywheel.world.language._story_parser import _rules\n"
        "print('yaml' in sys.modules, _rules.cache_info().currsize, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.is_file() and done.stderr.split()[-2:] == ["False", "0"]


def test_verifying_a_file_builds_no_pydantic_sample(tmp_path):
    # ``datasets verify`` reads lines with msgspec: the pydantic schema is not imported.
    from tomflywheel.world import write_generated

    path = tmp_path / "tomi.jsonl"
    write_generated("tomi", path, n=1)
    _, loaded = _help_run(["datasets", "verify", str(path)], ("tomflywheel.schema",))
    assert loaded == []


def test_a_command_used_is_built_with_its_own_options():
    result = CliRunner().invoke(app, ["eval", "--help"])
    assert result.exit_code == 0 and "--max-samples" in result.output


def test_importing_the_importers_loads_no_llm_code():
    # An importer declares a TaskSpec (tomflywheel.tasks) and the task registry checks judge
    # names against the judge registry: neither needs the predictor or the LLM client.
    probe = (
        "import sys; import tomflywheel.datasets; "
        "print(*sorted(m for m in sys.modules if m.startswith('tomflywheel.llm')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == []


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
    fetch = dict(walk())["datasets", "fetch"]
    default = next(p.default for p in fetch.params if p.name == "datasets_dir")
    assert str(default) == str(DEFAULT_DATASETS_DIR)


def test_help_lists_the_registered_generators_and_profiles():
    from tomflywheel.world import GENERATORS, PROFILES

    generate = CliRunner().invoke(app, ["datasets", "generate", "--help"])
    assert generate.exit_code == 0
    assert f"Generators: {', '.join(GENERATORS.names())}." in generate.output
    check = CliRunner().invoke(app, ["world", "check", "--help"])
    assert f"Rule profiles: {', '.join(sorted(PROFILES))}." in check.output


def test_the_engine_walks_without_building_the_llm_event_records():
    # The pydantic records an LLM fills (world.model._records) cost a tenth of a second to
    # build; answering questions and verifying a file never need them, and they still load
    # when asked for by name.
    probe = (
        "import sys; from tomflywheel.world import Answerer, verify_file; "
        "print('tomflywheel.world.model._records' in sys.modules); "
        "from tomflywheel.world.model import StoryRecord; "
        "print(StoryRecord.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "tomflywheel.world.model._records"]
