"""Ray start-up and shutdown for the ``ray`` executor: the one place that connects to Ray."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from types import ModuleType

from tomflywheel.config import RaySettings
from tomflywheel.errors import ConfigError

INSTALL_HINT = "pip install tomflywheel[ray]"


def import_ray() -> ModuleType:
    """The ``ray`` module, or a clear error naming the extra that installs it.

    Raises:
        ConfigError: Ray (with Ray Data) is not installed.
    """
    try:
        # Imported here, not at the top: Ray is an optional heavy dependency (the ``ray`` extra),
        # and the local executor must work, and start fast, without it.
        import ray
        import ray.data
    except ImportError as err:
        raise ConfigError(
            f"executor 'ray' needs Ray with Ray Data, which is not installed ({err.name}): "
            f"{INSTALL_HINT}"
        ) from err
    return ray


@contextlib.contextmanager
def ray_session(settings: RaySettings) -> Iterator[ModuleType]:
    """Connected to Ray for the duration of a stage; yields the ``ray`` module.

    With ``settings.address`` it joins that cluster; without, it starts a local Ray (with
    ``settings.num_cpus``). Ray that is already initialized (a test session, a notebook, a
    flywheel round within one process) is used as it is and left running; Ray this call
    started is shut down at the end.

    Raises:
        ConfigError: Ray is not installed, or the cluster at ``address`` cannot be reached.
    """
    ray = import_ray()
    _quiet_data(ray)
    if ray.is_initialized():
        yield ray
        return
    try:
        ray.init(
            address=settings.address,
            num_cpus=None if settings.address else settings.num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    except (ConnectionError, RuntimeError) as err:
        where = settings.address or "a local Ray"
        raise ConfigError(f"ray.address: cannot start or join {where}: {err}") from err
    try:
        yield ray
    finally:
        ray.shutdown()


def _quiet_data(ray: ModuleType) -> None:
    """No progress bars or per-dataset banners: stages report their own progress."""
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
