"""Error kinds: a user's mistake, bad data, and an unreachable server need different handling."""

from __future__ import annotations

from pathlib import Path


class TomflywheelError(Exception):
    """A known failure: the CLI shows it as one red line, without a traceback."""


class ConfigError(TomflywheelError):
    """A configuration file or option is invalid."""


class DataError(TomflywheelError):
    """A data file is malformed; the message names file, line (or record) and field.

    Args:
        path: The file that holds the bad record.
        line: 1-based line number (or record index when ``unit`` says so).
        field: Dotted path of the offending field, or ``None`` for the whole record.
        reason: What is wrong, in a few words.
        unit: What ``line`` counts: ``"line"`` or ``"record"``.
    """

    def __init__(
        self,
        path: Path | str,
        line: int | None,
        field: str | None,
        reason: str,
        *,
        unit: str = "line",
    ) -> None:
        self.path = Path(path)
        self.line = line
        self.field = field
        self.reason = reason
        self.unit = unit
        where = str(self.path)
        if line is not None:
            where += f":{line}" if unit == "line" else f": record {line}"
        what = f"{field}: {reason}" if field else reason
        super().__init__(f"{where}: {what}")


class UserInputError(ConfigError):
    """A path, key or name the user gave cannot be used: missing, the wrong kind, or unknown.

    The CLI shows it as one line and exits 2, as for a bad flag: the command never started.
    """


class PathError(UserInputError, DataError):
    """A file or folder the user named does not exist or is not the kind expected.

    Args are those of ``DataError`` (path, line, field, reason).
    """


class FetchError(TomflywheelError):
    """A benchmark file could not be downloaded or did not match its pinned checksum."""


class ServerError(TomflywheelError):
    """An LLM server could not be started or reached."""


class LLMRequestError(TomflywheelError):
    """The server refused one request (a non-retryable 4xx); other requests may still work.

    Args:
        status: HTTP status code.
        message: The server's explanation.
    """

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(f"HTTP {status}: {message}")
