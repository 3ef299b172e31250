"""A registry of named factories of one kind (judge methods, importers, generators, checks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from tomflywheel.errors import UserInputError

F = TypeVar("F", bound=Callable[..., object])


class Registry(Generic[F]):
    """Named factories of one kind, e.g. judge methods or importers.

    Args:
        kind: What the entries are, used in error messages ("judge method", "importer").
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._factories: dict[str, F] = {}

    def register(self, name: str) -> Callable[[F], F]:
        """Return a decorator that registers a factory under ``name``."""

        def add(factory: F) -> F:
            if name in self._factories:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self._factories[name] = factory
            return factory

        return add

    def get(self, name: str) -> F:
        """Return the factory registered as ``name``.

        Raises:
            ConfigError: No such entry; the message lists the known names.
        """
        if name not in self._factories:
            known = ", ".join(sorted(self._factories))
            raise UserInputError(f"unknown {self.kind} {name!r} (known: {known})")
        return self._factories[name]

    def names(self) -> list[str]:
        """All registered names, sorted."""
        return sorted(self._factories)

    def __contains__(self, name: object) -> bool:
        return name in self._factories
