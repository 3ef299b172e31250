"""``datasets list`` on an 80-column terminal: whole headers, no cell cut to an ellipsis."""

from __future__ import annotations

from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.datasets import list_datasets


def test_datasets_list_fits_80_columns_without_cutting(tmp_path):
    result = CliRunner().invoke(
        app, ["datasets", "list", "--to", str(tmp_path)], env={"COLUMNS": "80"}, terminal_width=80
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "…" not in result.output
    header = next(line for line in lines if "dataset" in line and "judge" in line)
    assert header.split() == ["┃", "dataset", "┃", "kind", "┃", "judge", "┃", "data", "┃"]
    # Nothing is lost: every dataset's description is printed below the table.
    for row in list_datasets(fetch_dir=tmp_path):
        assert f"{row.name}: {row.description.split()[0]}" in result.output


def test_a_wide_terminal_keeps_one_table():
    result = CliRunner().invoke(
        app, ["datasets", "list"], env={"COLUMNS": "250"}, terminal_width=250
    )
    assert result.exit_code == 0
    assert "import options" in result.output and "groupings:" not in result.output
