"""StructureClient: validated pydantic objects from an LLM via instructor; failures are values."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import instructor
from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException
from pydantic import BaseModel

from tomflywheel.errors import LLMRequestError, ServerError
from tomflywheel.llm._content import ContentClient

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

_MODES: dict[str, instructor.Mode] = {
    "json_schema": instructor.Mode.JSON_SCHEMA,  # vLLM enforces the schema by guided decoding
    "tools": instructor.Mode.TOOLS,  # OpenAI; vLLM refuses it without --tool-call-parser
}


@dataclass(frozen=True)
class StructureFailure:
    """A structured call that produced no valid object: callers count it, never score it."""

    reason: str
    """Why: the last validation error, the server's refusal, or a truncated reply."""
    raw_text: str | None
    """The last reply the model gave, if any."""
    attempts: int
    """How many replies were tried."""


class StructureClient:
    """Ask for a pydantic object; re-ask with the validation error fed back (bounded).

    Requests go through the ``ContentClient``, so they share its cache, retries, failover and
    accounting.

    Args:
        content: The client that sends requests.
        mode: ``json_schema`` for vLLM, ``tools`` for OpenAI.
        max_retries: Re-asks after an invalid reply.
    """

    def __init__(
        self,
        content: ContentClient,
        *,
        mode: Literal["json_schema", "tools"] = "json_schema",
        max_retries: int = 2,
    ) -> None:
        self.content = content
        self.mode = mode
        self.max_retries = max_retries
        self._create = instructor.patch(create=content.chat_completion, mode=_MODES[mode])

    async def ask(
        self,
        response_model: type[T],
        messages: list[dict[str, Any]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        **params: Any,
    ) -> T | StructureFailure:
        """One structured call; returns the validated object or a ``StructureFailure``.

        Raises:
            ServerError: The server is unreachable (that stops a stage; it is not a bad reply).
        """
        try:
            result = await self._create(
                response_model=response_model,
                messages=messages,
                max_retries=self.max_retries,
                max_tokens=max_tokens,
                temperature=temperature,
                **params,
            )
        except InstructorRetryException as err:
            cause = err.__cause__
            if isinstance(cause, ServerError):
                raise cause from err
            if isinstance(cause, LLMRequestError):
                return StructureFailure(str(cause), None, err.n_attempts)
            return StructureFailure(
                reason=_short(str(err)),
                raw_text=_reply_text(err.last_completion),
                attempts=err.n_attempts,
            )
        except IncompleteOutputException as err:
            return StructureFailure(
                reason=f"reply cut at max_tokens={max_tokens}",
                raw_text=_reply_text(err.last_completion),
                attempts=1,
            )
        return result

    @classmethod
    def from_settings(cls, content: ContentClient) -> StructureClient:
        """Build with the mode and retry count of ``content``'s settings."""
        return cls(
            content,
            mode=content.settings.structured_mode,
            max_retries=content.settings.structured_retries,
        )


def _reply_text(completion: Any) -> str | None:
    try:
        message = completion.choices[0].message
    except (AttributeError, IndexError, TypeError):
        return None
    if getattr(message, "content", None):
        return str(message.content)
    calls = getattr(message, "tool_calls", None) or []
    return str(calls[0].function.arguments) if calls else None


def _short(text: str, limit: int = 500) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
