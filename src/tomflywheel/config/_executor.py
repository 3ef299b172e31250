"""Where the heavy stages run: in this process (``local``) or on a Ray cluster (``ray``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tomflywheel.config._base import Strict

Executor = Literal["local", "ray"]
"""``local``: this process; ``ray``: synthesis, the filter's per-sample work and the
evaluation's requests on Ray."""


class RaySettings(Strict):
    """The Ray cluster the ``ray`` executor uses."""

    address: str | None = None
    """A running cluster (``auto``, ``ray://head:10001``, ``10.0.0.1:6379``); ``null`` starts a
    local Ray on demand and stops it when the stage ends."""
    num_cpus: int | None = Field(default=None, ge=1)
    """CPUs of the local Ray started on demand (``null``: all of this machine's); ignored when
    ``address`` is set (the cluster's nodes say what they have)."""
    synthesis_block: int = Field(default=32, ge=1)
    """Stories per synthesis block: the unit of work and of resume (one part file each)."""
    filter_block: int = Field(default=256, ge=1)
    """Candidates per filter block."""
    eval_block: int = Field(default=64, ge=1)
    """(sample, trial) pairs per evaluation block: each block's predictions are appended as
    soon as it finishes."""
