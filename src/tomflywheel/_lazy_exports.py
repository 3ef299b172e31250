"""A package's exports, each loaded from its module on first use (PEP 562).

The shape of ``lazy_loader.attach`` (scikit-image, NetworkX): a package keeps its public names
without importing every module behind them, so a command that needs one corner of the world
engine does not pay for the rest.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def attach(
    package: str, homes: dict[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` (whose ``__all__`` lists the same names).

    Args:
        package: The package's ``__name__``.
        homes: Each submodule (relative name) and the names it exports.
    """
    home = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home[name]}"), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *home})

    return __getattr__, __dir__
