"""A fault server: a real HTTP server on 127.0.0.1 that lists a model but never completes.

It answers ``GET /v1/models`` like vLLM, and every POST either with a 503 (``Retry-After``) or
not at all (the request hangs until the client gives up). It stands in for a stuck server, not
for the LLM: no test reads an answer from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Literal

from aiohttp import web

from tomflywheel.llm import free_port

Mode = Literal["503", "429", "hang"]


@contextlib.contextmanager
def stuck_server(mode: Mode, *, model: str = "stub-model") -> Iterator[tuple[str, Counter[str]]]:
    """Yield (base URL, counts of what it did) of a server stuck in ``mode``, on its own thread."""
    counts: Counter[str] = Counter()
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    box: dict[str, object] = {}

    async def models(_: web.Request) -> web.Response:
        counts["models"] += 1
        return web.json_response({"object": "list", "data": [{"id": model, "object": "model"}]})

    async def work(_: web.Request) -> web.StreamResponse:
        counts[mode] += 1
        if mode == "hang":
            await box["stop"].wait()  # type: ignore[attr-defined]  # until the server stops
        status = 503 if mode == "hang" else int(mode)  # a hung request ends as the server stops
        return web.json_response(
            {"error": {"message": f"stub {status}"}}, status=status, headers={"Retry-After": "0.1"}
        )

    async def serve() -> None:
        stop = asyncio.Event()
        box["stop"] = stop
        app = web.Application()
        app.router.add_get("/v1/models", models)
        app.router.add_post("/{tail:.*}", work)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        await runner.setup()
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        box["url"] = f"http://127.0.0.1:{port}/v1"
        ready.set()
        await stop.wait()
        await runner.cleanup()

    thread = threading.Thread(target=lambda: loop.run_until_complete(serve()), daemon=True)
    thread.start()
    ready.wait()
    try:
        yield str(box["url"]), counts
    finally:
        loop.call_soon_threadsafe(box["stop"].set)  # type: ignore[attr-defined]
        thread.join(timeout=10)
        loop.close()
