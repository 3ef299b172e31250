"""Every importer has a task spec, a test module, a docs entry, a list row and CLI flags."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.cli._datasets import import_command
from tomflywheel.datasets import IMPORTERS, TASKS, get_task, importer_info, list_datasets

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "importers.md").read_text(encoding="utf-8")
TESTS = "\n".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.glob("test_*.py"))
IMPORTER_NAMES = IMPORTERS.names()


def test_the_benchmarks_and_the_generic_importer_are_registered():
    assert IMPORTER_NAMES == [
        "adv_csfb",
        "bigtom",
        "blimp",
        "emobench_ea",
        "emobench_eu",
        "entity_tracking",
        "ewok",
        "fantom",
        "hitom",
        "kosinski",
        "mapping",
        "opentom",
        "sentences",
        "socialiqa",
        "tgtom",
        "tombench",
        "tomi",
        "tomi_2cand",
    ]


@pytest.mark.parametrize("name", IMPORTER_NAMES)
def test_every_importer_has_a_task_a_test_and_a_docs_entry(name):
    info = importer_info(name)
    if name == "mapping":
        assert info.task is None  # the mapping declares its task
    else:
        assert info.task == get_task(name)
        assert info.task.description
    assert f'load_benchmark("{name}"' in TESTS or f'fails_cleanly("{name}"' in TESTS
    assert f"## {name}" in DOCS or f", {name}\n" in DOCS
    assert f"tomflywheel datasets import {name} " in DOCS
    for option in info.options:
        assert f"--{option.name.replace('_', '-')}" in DOCS, (name, option.name)
        assert option.help, (name, option.name)


def test_every_task_with_groupings_names_real_fields():
    for name in TASKS.names():
        task = get_task(name)
        assert all(
            group and all(isinstance(f, str) and f for f in group) for group in task.groupings
        )


def _cli_choices() -> dict[str, tuple[str, ...] | None]:
    """Each ``datasets import`` parameter's Literal choices (None when it is not a Literal)."""
    hints = typing.get_type_hints(import_command)
    out: dict[str, tuple[str, ...] | None] = {}
    for name, hint in hints.items():
        literals = [a for a in typing.get_args(hint) if typing.get_origin(a) is typing.Literal]
        out[name] = tuple(typing.get_args(literals[0])) if literals else None
    return out


@pytest.mark.parametrize("name", IMPORTER_NAMES)
def test_every_importer_option_has_a_cli_flag_with_the_same_choices(name):
    flags = _cli_choices()
    for option in importer_info(name).options:
        assert option.name in flags, (name, option.name)
        assert flags[option.name] == (option.choices or None), (name, option.name)


def test_datasets_list_shows_every_dataset_with_kind_and_groupings():
    result = CliRunner().invoke(app, ["datasets", "list"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    rows = {row.name: row for row in list_datasets()}
    assert set(IMPORTER_NAMES) <= set(rows)
    for name, row in rows.items():
        line = next(line for line in result.output.splitlines() if line.startswith(f"│ {name} "))
        assert row.prompt_kind in line
        assert row.judge in line
        if row.groupings:
            assert " x ".join(row.groupings[0]) in line
    assert "item_id" in next(
        line for line in result.output.splitlines() if "│ emobench_eu " in line
    )
