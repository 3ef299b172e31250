"""The endpoint a stage's requests go to.

An external server, or an embedded one: started on first need, shared across a command's stages,
and given another model's weights in place.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Collection, Iterator

from tomflywheel.config import EmbeddedServerSettings, LLMSettings, Settings
from tomflywheel.errors import ConfigError, ServerError
from tomflywheel.llm._lazy import forget_lazy_start, register_lazy_start
from tomflywheel.llm._preflight import Need, preflight
from tomflywheel.llm._reload import can_reload, swap_refusal
from tomflywheel.llm._server import VLLMServer, embedded_server, ensure_default_model

logger = logging.getLogger(__name__)

_shared: dict[str, VLLMServer] | None = None
"""Embedded servers kept running inside ``shared_servers()`` (None outside it)."""


@contextlib.contextmanager
def shared_servers() -> Iterator[None]:
    """Keep embedded servers alive across ``llm_endpoint`` uses until the block ends.

    Stages start the embedded server only when they have LLM work; inside this block the first
    one that does starts it, later ones reuse it, and it stops when the block ends (the
    flywheel runs a whole round this way instead of starting a server per stage).
    """
    global _shared
    if _shared is not None:
        yield
        return
    _shared = {}
    try:
        yield
    finally:
        servers, _shared = _shared, None
        for server in servers.values():
            server.stop()


def _swap_key(settings: EmbeddedServerSettings) -> str:
    """What two servers' settings must share for one to serve the other's model."""
    return settings.model_dump_json(exclude={"model", "served_model_name"})


def _swap_shared(settings: Settings, on_status: Callable[[str], None] | None) -> VLLMServer | None:
    """A shared server, idle and set up alike, made to serve ``settings``' model; or ``None``.

    Its weights are swapped for the wanted model's when the folders fit (``swap_refusal``).
    A failed swap stops that server (it may hold half-loaded weights): the caller starts one.
    """
    if _shared is None or not can_reload(settings.embedded):
        return None
    wanted = settings.embedded.model or ensure_default_model(on_status)
    for key, server in list(_shared.items()):
        if server.users or not server.running or not server.swappable:
            continue
        if _swap_key(server.settings) != _swap_key(settings.embedded):
            continue
        refusal = swap_refusal(server.model_dir, wanted)
        if refusal is not None:
            logger.info("another vLLM server is needed: %s", refusal)
            continue
        if on_status:
            on_status(f"loading {wanted}'s weights into the running vLLM server")
        del _shared[key]
        try:
            server.reload(wanted)
        except ServerError as err:
            logger.warning("%s; stopping that server to start another", err)
            server.stop()
            return None
        server.settings = settings.embedded  # a restart serves this model under this name
        _shared[settings.embedded.model_dump_json()] = server
        return server
    return None


@contextlib.contextmanager
def _using(server: VLLMServer) -> Iterator[None]:
    server.users += 1
    try:
        yield
    finally:
        server.users -= 1


def _served(settings: Settings, server: VLLMServer) -> LLMSettings:
    return settings.llm.model_copy(
        update={"base_urls": [server.base_url], "model": settings.embedded.served_model_name}
    )


def check_endpoint(settings: Settings, needs: Collection[Need] = ("chat",)) -> None:
    """The pre-flight a stage runs before it writes anything.

    An external server must be named (base URL and model), answer, serve the model and accept
    ``needs``. An embedded server is checked when ``llm_endpoint`` starts it: nothing to do here.

    Raises:
        ConfigError: Base URL or model missing, the model is not served, or a kind is refused.
        ServerError: No endpoint answers.
    """
    if settings.server != "external":
        return
    if not settings.llm.base_urls:
        raise ConfigError("server: external needs llm.base_urls (or TOMFLYWHEEL_BASE_URL)")
    if not settings.llm.model:
        raise ConfigError("server: external needs llm.model (or TOMFLYWHEEL_MODEL)")
    preflight(settings.llm, needs)


class _LazyStart:
    """Starts one embedded server once, on the first request; remembers a failed start."""

    def __init__(
        self,
        settings: Settings,
        server: VLLMServer,
        needs: Collection[Need],
        on_status: Callable[[str], None] | None,
    ) -> None:
        self.settings, self.server, self.needs, self.on_status = settings, server, needs, on_status
        self._lock = threading.Lock()
        self._done = False
        self._error: BaseException | None = None

    def __call__(self) -> None:
        with self._lock:
            if self._error is not None:
                raise self._error
            if self._done:
                return
            try:
                _start_embedded(self.settings, self.server, self.needs, self.on_status)
            except BaseException as err:
                self._error = err
                raise
            self._done = True


def _start_embedded(
    settings: Settings,
    server: VLLMServer,
    needs: Collection[Need],
    on_status: Callable[[str], None] | None,
) -> None:
    """Start ``server``, wait until it answers, supervise it, share it, check ``needs``."""
    if on_status:
        on_status(
            f"starting the embedded vLLM server ({server.model_dir.name}); "
            "this takes a minute or so"
        )
    server.start()
    server.wait_ready()
    if on_status:
        on_status(f"vLLM server ready at {server.base_url}")
    if _shared is not None:
        _shared[settings.embedded.model_dump_json()] = server  # shared_servers() stops it
    server.supervise(on_status)
    preflight(_served(settings, server), needs)


@contextlib.contextmanager
def llm_endpoint(
    settings: Settings,
    on_status: Callable[[str], None] | None = None,
    *,
    needs: Collection[Need] = ("chat",),
    lazy: bool = True,
) -> Iterator[LLMSettings]:
    """The LLM settings to use: an embedded server is started (and stopped after) when configured.

    Inside ``shared_servers()`` an embedded server is started once and reused. The endpoint is
    checked (``preflight``): it answers, serves the model, and accepts ``needs``. With ``lazy``
    an embedded server starts on the first request that the request cache cannot answer (in
    this process: pass ``lazy=False`` when other processes send the requests).

    Raises:
        ServerError: The embedded server could not start, or no endpoint answers.
        ConfigError: An external server is configured without base URL or model, does not serve
            the model (the served names are listed), or refuses a needed kind of request.
    """
    if settings.server == "external":
        check_endpoint(settings, needs)
        yield settings.llm
        return
    key = settings.embedded.model_dump_json()
    if _shared is not None and key in _shared and _shared[key].running:
        server = _shared[key]
        served = _served(settings, server)
        preflight(served, needs, listed=not server.reloads)
        with _using(server):
            yield served
        return
    swapped = _swap_shared(settings, on_status)
    if swapped is not None:
        served = _served(settings, swapped)
        preflight(served, needs, listed=False)  # /models lists the name it started with
        with _using(swapped):
            yield served
        return
    server = embedded_server(settings.embedded, on_status, swappable=can_reload(settings.embedded))
    served = _served(settings, server)
    try:
        if lazy:
            register_lazy_start(server.base_url, _LazyStart(settings, server, needs, on_status))
        else:
            _start_embedded(settings, server, needs, on_status)
        with _using(server):
            yield served
    except BaseException:
        server.stop()
        raise
    finally:
        forget_lazy_start(server.base_url)
    if _shared is None or _shared.get(key) is not server:
        server.stop()
