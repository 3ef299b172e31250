"""A real HTTP proxy in front of the real vLLM server that injects transport failures.

It can answer the first requests with given statuses (429 with Retry-After, 503, ...), delay
requests while too many are in flight (an overloaded server), drop connections, answer 503 at
random, or refuse everything for a while (an outage); every request it forwards gets the real
server's answer untouched. The bench ``bench/soak.py`` uses it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

from aiohttp import ClientSession, ClientTimeout, web

from tomflywheel.llm import free_port


@dataclass
class Faults:
    """What the proxy does to the traffic it carries."""

    first: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    """Statuses (and headers) answered to the first requests, in order."""
    delay_s: float = 0.0
    """Added before forwarding a request that finds ``busy_above`` or more already in flight."""
    busy_above: int = 0
    """In-flight requests the "server" takes without slowing down."""
    drop: float = 0.0
    """Share of requests whose connection is closed without an answer (after forwarding)."""
    unavailable: float = 0.0
    """Share of requests answered 503 with ``Retry-After``."""
    retry_after_s: float = 0.5
    """The ``Retry-After`` of a random 503."""
    seed: int = 0
    """Seed of the random choices."""
    hold: str | None = None
    """POSTs whose body holds this text wait while ``ProxyLog.holding`` (then are forwarded)."""


@dataclass
class ProxyLog:
    """What the proxy did, for assertions and the soak bench."""

    sent: list[int] = field(default_factory=list)
    """Status of every answered request, in order (0: a dropped connection)."""
    counts: Counter[str] = field(default_factory=Counter)
    """How many requests met each fault (delayed, dropped, unavailable, outage, forwarded)."""
    down: bool = False
    """While true, every request is dropped (the server looks gone)."""
    holding: bool = True
    """While true, requests matching ``Faults.hold`` wait; clear it to let them through."""


@contextlib.asynccontextmanager
async def fault_proxy(upstream: str, faults: Faults) -> AsyncIterator[tuple[str, ProxyLog]]:
    """Yield (base URL, log) of a proxy before ``upstream`` (a ``.../v1`` URL)."""
    rng = random.Random(faults.seed)
    pending = list(faults.first)
    log = ProxyLog()
    in_flight = 0
    session = ClientSession(timeout=ClientTimeout(total=None))
    stopping = asyncio.Event()

    def drop(request: web.Request, reason: str) -> web.StreamResponse:
        log.counts[reason] += 1
        log.sent.append(0)
        if request.transport is not None:
            request.transport.close()
        return web.Response(status=500)  # never reaches the client: the socket is closed

    async def handle(request: web.Request) -> web.StreamResponse:
        nonlocal in_flight
        if log.down:
            return drop(request, "outage")
        if pending and request.method == "POST":
            status, headers = pending.pop(0)
            log.sent.append(status)
            return web.json_response(
                {"error": {"message": f"injected {status}"}}, status=status, headers=headers
            )
        is_work = request.method == "POST"
        if is_work and faults.hold and faults.hold.encode() in await request.read():
            log.counts["held"] += 1
            while log.holding and not stopping.is_set():
                await asyncio.sleep(0.02)
        if is_work and rng.random() < faults.unavailable:
            log.counts["unavailable"] += 1
            log.sent.append(503)
            return web.json_response(
                {"error": {"message": "injected 503"}},
                status=503,
                headers={"Retry-After": str(faults.retry_after_s)},
            )
        dropping = is_work and rng.random() < faults.drop
        in_flight += 1
        try:
            if is_work and faults.delay_s and in_flight > faults.busy_above:
                log.counts["delayed"] += 1
                await asyncio.sleep(faults.delay_s)
            body = await request.read()
            target = upstream.removesuffix("/v1") + request.path
            async with session.request(
                request.method, target, data=body or None, headers=_forwarded(request)
            ) as up:
                payload = await up.read()
        finally:
            in_flight -= 1
        if dropping:
            return drop(request, "dropped")
        log.counts["forwarded"] += 1
        log.sent.append(up.status)
        return web.Response(body=payload, status=up.status, content_type="application/json")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}/v1", log
    finally:
        stopping.set()
        await runner.cleanup()
        await session.close()
        await asyncio.sleep(0)


def _forwarded(request: web.Request) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    if "authorization" in request.headers:
        headers["authorization"] = request.headers["authorization"]
    return headers


@contextlib.asynccontextmanager
async def failing_proxy(
    upstream: str, failures: list[tuple[int, dict[str, str]]]
) -> AsyncIterator[tuple[str, list[int]]]:
    """Yield (base URL, statuses sent) of a proxy that fails the first ``len(failures)`` calls."""
    async with fault_proxy(upstream, Faults(first=failures)) as (url, log):
        yield url, log.sent


@contextlib.contextmanager
def proxy_thread(upstream: str, faults: Faults) -> Iterator[tuple[str, ProxyLog]]:
    """``fault_proxy`` on its own event loop in a thread, for synchronous callers."""
    started = threading.Event()
    box: dict[str, object] = {}
    loop = asyncio.new_event_loop()

    async def serve() -> None:
        stop = asyncio.Event()
        box["stop"] = stop
        async with fault_proxy(upstream, faults) as found:
            box["found"] = found
            started.set()
            await stop.wait()

    thread = threading.Thread(target=lambda: loop.run_until_complete(serve()), daemon=True)
    thread.start()
    started.wait()
    try:
        yield box["found"]  # type: ignore[misc]
    finally:
        stop = box["stop"]
        loop.call_soon_threadsafe(stop.set)  # type: ignore[attr-defined]
        thread.join()
        loop.close()
