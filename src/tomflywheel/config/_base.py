"""What every settings module shares: strict models, environment names, the cache folder."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict

ENV_BASE_URL = "TOMFLYWHEEL_BASE_URL"
ENV_API_KEY = "TOMFLYWHEEL_API_KEY"
ENV_JUDGE_API_KEY = "TOMFLYWHEEL_JUDGE_API_KEY"
ENV_MODEL = "TOMFLYWHEEL_MODEL"
ENV_CACHE_DIR = "TOMFLYWHEEL_CACHE_DIR"

DEFAULT_CONFIG = Path("configs/default.yaml")
"""The config a command reads when given none, relative to the working folder."""

BUILTIN_CONFIG = Path(__file__).with_name("default.yaml")
"""The same file as shipped in the package (``configs/default.yaml`` links to it): read when
the working folder has no ``configs/default.yaml``, e.g. after ``pip install`` elsewhere."""


def cache_root() -> Path:
    """Where converted models and the request cache live (``$TOMFLYWHEEL_CACHE_DIR`` overrides)."""
    if os.environ.get(ENV_CACHE_DIR):
        return Path(os.environ[ENV_CACHE_DIR]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tomflywheel"


class Strict(BaseModel):
    """A settings model whose misspelt keys are errors."""

    model_config = ConfigDict(extra="forbid")
