"""The server a bench measures: the one ``--base-url`` names, or the embedded one started here."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from tomflywheel.config import EmbeddedServerSettings
from tomflywheel.llm import ContentClient, embedded_server
from tomflywheel.llm._content import ApiPath


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """``--base-url``, ``--model`` and the embedded server's ``--block-size``."""
    parser.add_argument("--base-url", help="an existing server; default: start the embedded one")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument(
        "--block-size", type=int, default=EmbeddedServerSettings().block_size,
        help="the embedded server's KV-cache block size (0: vLLM's default)",
    )  # fmt: skip


@contextlib.contextmanager
def served(args: argparse.Namespace) -> Iterator[str]:
    """The base URL of ``--base-url``, or of an embedded server stopped when the block ends."""
    if args.base_url:
        yield args.base_url.rstrip("/")
        return
    settings = EmbeddedServerSettings(
        served_model_name=args.model, block_size=args.block_size or None
    )
    with embedded_server(settings, print) as server:
        yield server.base_url


def measure_on_server(
    args: argparse.Namespace, measure: Callable[[str, str, argparse.Namespace], Awaitable[None]]
) -> None:
    """Run ``measure(base_url, model, args)`` against ``--base-url`` or a fresh embedded server."""
    with served(args) as base_url:
        asyncio.run(measure(base_url, args.model, args))


class SaltedClient(ContentClient):
    """A client whose completions and chats carry ``cache_salt`` (vLLM's prefix-cache salt).

    A fresh salt starts from a cold prefix cache: no arm of a bench reads what another arm, or
    an earlier round, left there.
    """

    salt = "warm-up"

    async def request(
        self, path: ApiPath, body: dict[str, Any]
    ) -> tuple[dict[str, Any], float, bool]:
        if path != "tokenize":
            body = {**body, "cache_salt": self.salt}
        return await super().request(path, body)
