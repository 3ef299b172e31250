"""``tomflywheel serve``: run the embedded (or any Hugging Face) model behind vLLM's OpenAI API."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from tomflywheel.cli._common import ConfigOption, load, out, status
from tomflywheel.config import DEFAULT_CONFIG
from tomflywheel.errors import ServerError


def serve(
    config: ConfigOption = DEFAULT_CONFIG,
    model: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            file_okay=False,
            help="Hugging Face model folder to serve (default: the bundled SmolLM2).",
        ),
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port to bind (default: a free one).")] = None,
    served_model_name: Annotated[
        str | None, typer.Option(help="Model name clients send (default: from the config).")
    ] = None,
) -> None:
    """Start a vLLM OpenAI-compatible server, print its base URL, and stop it on Ctrl-C."""
    # The LLM client (openai under it) loads when a command runs, not at start-up (issue 29).
    from tomflywheel.llm import embedded_server

    settings = load(config).embedded
    updates: dict[str, object] = {}
    if model is not None:
        updates["model"] = model
    if port is not None:
        updates["port"] = port
    if served_model_name is not None:
        updates["served_model_name"] = served_model_name
    settings = settings.model_copy(update=updates)
    # SIGTERM (systemd, kill, a job runner) must stop the server as Ctrl-C does.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    server = embedded_server(settings, on_status=status)
    status(f"starting vLLM for {server.model_dir} (log: {server.log_path})")
    with server:
        out.print(f"base URL: [bold]{server.base_url}[/bold]")
        out.print(f"model:    [bold]{settings.served_model_name}[/bold]")
        out.print(
            f"try: TOMFLYWHEEL_BASE_URL={server.base_url} "
            f"TOMFLYWHEEL_MODEL={settings.served_model_name} tomflywheel ...   (Ctrl-C stops)"
        )
        while server.running:
            time.sleep(1)
        raise ServerError(f"the vLLM server stopped by itself; see {server.log_path}")


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """Unwind through ``with server`` (which stops it), exiting 143 as a SIGTERM death would."""
    raise SystemExit(128 + signum)
