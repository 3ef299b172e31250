"""The package's layering, written once as data, checked on every import of every module.

A module may import its own package and packages of lower layers only: stages never import
each other (they talk through artifacts), the toolkits below them never import a stage, and
so no import circle between packages can form. ``docs/architecture.md`` draws the same table.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "tomflywheel"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "_rng", "_lazy_exports", "_gc", "_cpus", "_atomic", "_yaml"}),
    frozenset({"_io", "_registry", "progress", "stats"}),
    frozenset({"schema", "config", "tasks"}),
    frozenset({"llm", "world", "cluster", "tracking"}),
    frozenset({"asking"}),
    frozenset({"datasets"}),
    frozenset({"artifacts", "audit"}),
    frozenset({"evaluation", "feedback", "filter", "train", "report"}),
    frozenset({"flywheel"}),
    frozenset({"cli"}),
    frozenset({"__main__"}),
)
"""Lowest first: a package may import packages of strictly lower layers (and itself)."""

HEAVY_OPTIONAL = frozenset(
    {
        "torch",
        "transformers",
        "peft",
        "trl",
        "accelerate",
        "datasets",
        "vllm",
        "ray",
        "gguf",
        "tensorboardX",
        "wandb",
        "mlflow",
    }
)
"""Third-party packages imported where a run needs them (slow to import, or an extra)."""


def layer_of(name: str) -> int:
    for index, members in enumerate(LAYERS):
        if name in members:
            return index
    raise AssertionError(f"package {name!r} is in no layer: add it to LAYERS")


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _top(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module]
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return []


def test_every_top_level_module_and_package_has_a_layer():
    for path in _modules():
        if path.parent == PACKAGE and path.name == "__init__.py":
            continue
        layer_of(_top(path))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down_the_layers(path: Path):
    if path.parent == PACKAGE and path.name == "__init__.py":
        return
    own = _top(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        for module in _imported(node):
            parts = module.split(".")
            if parts[0] != "tomflywheel" or len(parts) == 1 or parts[1] == own:
                continue
            assert layer_of(parts[1]) < layer_of(own), (
                f"{path.relative_to(PACKAGE)}:{node.lineno}: {own} (layer {layer_of(own)}) "
                f"imports {module} (layer {layer_of(parts[1])})"
            )


def _has_reason(lines: list[str], lineno: int) -> bool:
    """A comment on the import's line or the line above says why it is deferred."""
    here = lines[lineno - 1]
    above = lines[lineno - 2].strip() if lineno > 1 else ""
    return "#" in here or above.startswith("#")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_inside_functions_say_why(path: Path):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for function in ast.walk(ast.parse(text)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            for module in _imported(node):
                if module.split(".")[0] in HEAVY_OPTIONAL:
                    continue
                assert _has_reason(lines, node.lineno), (
                    f"{path.relative_to(PACKAGE)}:{node.lineno}: import of {module} inside a "
                    "function without a comment saying why"
                )


def test_the_layering_rejects_an_upward_import():
    # The check itself must be able to fail: a stage importing another stage is refused.
    assert not layer_of("evaluation") < layer_of("feedback")
    assert not layer_of("report") < layer_of("evaluation")
    assert layer_of("artifacts") < layer_of("report")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Each module's imports of other tomflywheel modules made on import (``TYPE_CHECKING`` too)."""
    paths = {_module_name(path): path for path in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        deferred = {
            id(node)
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            for node in ast.walk(function)
        }
        graph[name] = set()
        for node in ast.walk(tree):
            if id(node) in deferred:
                continue
            targets = _imported(node)
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from tomflywheel.filter.checks import _record`` imports a module, too.
                targets += [f"{node.module}.{alias.name}" for alias in node.names]
            graph[name] |= {t for t in targets if t in paths and t != name}
    return graph


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (its first module repeated at the end), or None."""
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target, path)):
                return found
        path.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node, [])):
            return found
    return None


def test_no_import_circle_between_modules():
    # Inside a package too (the sub-packages of world and filter import only lower ones).
    # Imports inside functions are left out: each says why, and a circle is no reason.
    assert _circle(_import_graph()) is None


def test_the_circle_check_finds_a_circle():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}) == ["a", "b", "c", "a"]


def test_the_architecture_doc_has_a_row_per_package_in_its_layer():
    # docs/architecture.md draws the same table: a package added here, or moved to another
    # layer, is added or moved there too.
    doc = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {}
    for line in doc.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`") and cells[1].isdigit():
            rows[cells[0].strip("`")] = int(cells[1])
    assert rows == {name: layer_of(name) for members in LAYERS for name in members}
