"""The world's sub-packages import one another in one direction only (``world/_layers.py``)."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tomflywheel.world
from tomflywheel.world._layers import LAYERS, OUTSIDE

ROOT = Path(tomflywheel.world.__file__).parent
MODULES = sorted(ROOT.glob("*/*.py"))


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, imported module, inside a function) of every import of a tomflywheel module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nested = {
        id(node)
        for func in ast.walk(tree)
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(func)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
            # ``from tomflywheel.world.generators import _tomi`` imports a module, too.
            names += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("tomflywheel"):
                found.append((node.lineno, name, id(node) in nested))
    return found


def _problems(path: Path, root: Path = ROOT) -> list[str]:
    layer, own_init = path.parent.name, path.name == "__init__.py"
    problems = []
    for line, name, _ in _imports(path):
        where = f"{path.relative_to(root)}:{line} imports {name}"
        parts = name.split(".")
        if parts[:2] != ["tomflywheel", "world"]:
            if not any(name == ok or name.startswith(ok + ".") for ok in OUTSIDE):
                problems.append(f"{where}: only {', '.join(OUTSIDE)} may be imported")
            continue
        target = parts[2] if len(parts) > 2 else ""
        private = len(parts) > 3
        if target not in LAYERS:
            problems.append(f"{where}: import a sub-package, not the world package itself")
        elif LAYERS.index(target) > LAYERS.index(layer):
            problems.append(f"{where}: {layer} comes before {target} in the layer order")
        elif target == layer and not private and not own_init:
            problems.append(f"{where}: import a sibling module, not the own package")
        elif target != layer and private:
            problems.append(f"{where}: import {target}'s public names, not its private modules")
    return problems


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down_the_layer_order(path):
    assert _problems(path) == []


def test_every_sub_package_is_a_layer_and_every_layer_a_sub_package():
    assert sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()) == sorted(LAYERS)


@pytest.mark.parametrize("layer", LAYERS)
def test_each_sub_package_docstring_says_what_it_may_import(layer):
    doc = ast.get_docstring(ast.parse((ROOT / layer / "__init__.py").read_text(encoding="utf-8")))
    match = re.search(r"^May import: (.*)$", doc or "", re.M)
    assert match, f"{layer}/__init__.py: no 'May import:' line"
    listed = re.findall(r"``(\w+)``", match.group(1).split("(")[0])
    assert listed == list(LAYERS[: LAYERS.index(layer)])


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_import_inside_a_function_says_why(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    for line, name, nested in _imports(path):
        if nested:
            above = lines[line - 2].strip() if line > 1 else ""
            assert "#" in lines[line - 1] or above.startswith("#"), f"{path}:{line} {name}"


def test_the_rule_catches_a_forbidden_direction(tmp_path):
    # A model module importing a verifier is the kind of cycle the order forbids.
    bad = tmp_path / "model" / "_bad.py"
    bad.parent.mkdir()
    bad.write_text("from tomflywheel.world.verifiers import track\n", encoding="utf-8")
    assert _problems(bad, tmp_path) == [
        "model/_bad.py:1 imports tomflywheel.world.verifiers: "
        "model comes before verifiers in the layer order"
    ]


@pytest.mark.parametrize("package", ["tomflywheel.world", "tomflywheel.world.language"])
def test_lazy_exports_are_the_listed_names_and_load_only_their_module(package: str):
    # A fresh interpreter: importing the package loads no sub-module; one export loads its own.
    probe = (
        f"import importlib, sys; p = importlib.import_module({package!r}); "
        "before = sorted(m for m in sys.modules if m.startswith(p.__name__ + '.')); "
        "assert all(getattr(p, name) is not None for name in p.__all__); "
        "assert sorted(set(dir(p)) & set(p.__all__)) == sorted(p.__all__); "
        "print(before)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ast.literal_eval(done.stdout.strip()) == []


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = tomflywheel.world.nothing
