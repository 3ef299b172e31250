"""A real HTTP proxy in front of the real vLLM server that injects transport failures.

It answers the first requests with the given statuses (429 with Retry-After, 503, ...) and
forwards every later one untouched: the LLM answers are always the real server's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from aiohttp import ClientSession, web

from tomflywheel.llm import free_port


@contextlib.asynccontextmanager
async def failing_proxy(
    upstream: str, failures: list[tuple[int, dict[str, str]]]
) -> AsyncIterator[tuple[str, list[int]]]:
    """Yield (base URL, statuses sent) of a proxy that fails the first ``len(failures)`` calls."""
    pending = list(failures)
    sent: list[int] = []
    session = ClientSession()

    async def handle(request: web.Request) -> web.StreamResponse:
        if pending:
            status, headers = pending.pop(0)
            sent.append(status)
            return web.json_response(
                {"error": {"message": f"injected {status}"}}, status=status, headers=headers
            )
        body = await request.read()
        target = upstream.removesuffix("/v1") + request.path
        async with session.post(
            target, data=body, headers={"content-type": "application/json"}
        ) as up:
            sent.append(up.status)
            return web.Response(
                body=await up.read(), status=up.status, content_type="application/json"
            )

    app = web.Application()
    app.router.add_route("POST", "/{tail:.*}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}/v1", sent
    finally:
        await runner.cleanup()
        await session.close()
        await asyncio.sleep(0)
