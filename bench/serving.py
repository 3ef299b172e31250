"""The server a bench measures: the one ``--base-url`` names, or the embedded one started here."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable

from tomflywheel.config import EmbeddedServerSettings
from tomflywheel.llm import embedded_server


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """``--base-url`` and ``--model``."""
    parser.add_argument("--base-url", help="an existing server; default: start the embedded one")
    parser.add_argument("--model", default="smollm2-135m-instruct")


def measure_on_server(
    args: argparse.Namespace, measure: Callable[[str, str, argparse.Namespace], Awaitable[None]]
) -> None:
    """Run ``measure(base_url, model, args)`` against ``--base-url`` or a fresh embedded server."""
    if args.base_url:
        asyncio.run(measure(args.base_url.rstrip("/"), args.model, args))
        return
    with embedded_server(EmbeddedServerSettings(served_model_name=args.model), print) as server:
        asyncio.run(measure(server.base_url, args.model, args))
