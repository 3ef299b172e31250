"""Append results in input order although they finish out of order (same inputs, same bytes)."""

from __future__ import annotations

from pydantic import BaseModel

from tomflywheel._io import JsonlAppender


class OrderedAppender:
    """Buffers results by index and appends each as soon as all earlier ones are written.

    A kill loses only results still buffered; their requests are in the request cache, so a
    resume gets them back for free.

    Args:
        appender: The line-atomic JSONL writer.
    """

    def __init__(self, appender: JsonlAppender) -> None:
        self._appender = appender
        self._pending: dict[int, BaseModel] = {}
        self._next = 0
        self.written = 0

    def put(self, index: int, record: BaseModel) -> None:
        """Hand over result ``index``; writes every result that is now in order."""
        self._pending[index] = record
        while self._next in self._pending:
            self._appender.append(self._pending.pop(self._next))
            self._next += 1
            self.written += 1
