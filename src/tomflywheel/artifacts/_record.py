"""The base of every record a stage writes for another to read: typed, and faithful on rewrite."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from tomflywheel._io import atomic_write_json

R = TypeVar("R", bound="Record")


class Record(BaseModel):
    """A JSON record read by attribute.

    Fields a reader uses are typed; any other key a writer added is kept as it came, so a file
    read and written again keeps what this version does not know (a newer writer's key), and
    it is written without the fields it was never given: a summary written before a field
    existed reads with the field's default and is written back as it was.
    """

    model_config = ConfigDict(extra="allow", protected_namespaces=())

    @model_serializer(mode="wrap")
    def _given_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        given = self.model_fields_set | set(self.model_extra or ())
        return {key: value for key, value in handler(self).items() if key in given}

    def as_json(self) -> dict[str, Any]:
        """JSON-able data: the fields given (and extra keys kept), in declaration order."""
        return self.model_dump(mode="json")

    @classmethod
    def read(cls: type[R], path: Path) -> R:
        """The record in a JSON file."""
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))

    def write(self, path: Path) -> None:
        """Replace ``path`` atomically with this record."""
        atomic_write_json(Path(path), self.as_json())
