"""The whole configuration file, loaded from YAML with errors naming file, line and key."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError

from tomflywheel._io import read_text
from tomflywheel._yaml import load_yaml
from tomflywheel.config._base import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_JUDGE_API_KEY,
    ENV_MODEL,
    Strict,
)
from tomflywheel.config._eval import EvalSettings, JudgeSettings
from tomflywheel.config._executor import Executor, RaySettings
from tomflywheel.config._filter import FilterSettings
from tomflywheel.config._llm import EmbeddedServerSettings, LLMSettings
from tomflywheel.config._loop import FeedbackSettings, FlywheelSettings
from tomflywheel.config._tracking import TrackingSettings
from tomflywheel.config._train import TrainSettings
from tomflywheel.errors import ConfigError, UserInputError


class Settings(Strict):
    """A whole configuration file."""

    server: Literal["embedded", "external"] = "embedded"
    """``embedded``: commands start and stop a local vLLM server; ``external``: use base_urls."""
    embedded: EmbeddedServerSettings = Field(default_factory=EmbeddedServerSettings)
    """Settings of the embedded server."""
    llm: LLMSettings = Field(default_factory=LLMSettings)
    """How requests are sent."""
    eval: EvalSettings = Field(default_factory=EvalSettings)
    """The evaluation."""
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    """The LLM judge."""
    feedback: FeedbackSettings = Field(default_factory=FeedbackSettings)
    """Diagnosis and synthesis."""
    filter: FilterSettings = Field(default_factory=FilterSettings)
    """Verification, scoring, deduplication, repair and admission of training data."""
    train: TrainSettings = Field(default_factory=TrainSettings)
    """Supervised fine-tuning on admitted data."""
    flywheel: FlywheelSettings = Field(default_factory=FlywheelSettings)
    """The loop."""
    executor: Executor = "local"
    """Where synthesis and the filter's per-sample work run: ``local`` or ``ray``."""
    ray: RaySettings = Field(default_factory=RaySettings)
    """The Ray cluster of the ``ray`` executor."""
    tracking: TrackingSettings = Field(default_factory=TrackingSettings)
    """Also log metrics to TensorBoard, W&B or MLflow (offline; off by default)."""

    def snapshot(self) -> dict[str, Any]:
        """The settings as plain data for ``results/<exp>/config.yaml``; secrets are left out."""
        return self.model_dump(mode="json")


def _node_line(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """1-based line of the YAML node at ``loc``, or of its closest existing parent."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == key), None)
            if match is None:
                return line
            key_node = next(k for k, v in node.value if k.value == key)
            line = key_node.start_mark.line + 1
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _apply_env(data: dict[str, Any]) -> dict[str, Any]:
    llm = dict(data.get("llm") or {})
    if os.environ.get(ENV_BASE_URL):
        llm["base_urls"] = [u.strip() for u in os.environ[ENV_BASE_URL].split(",") if u.strip()]
        data["server"] = "external"
    if os.environ.get(ENV_MODEL):
        llm["model"] = os.environ[ENV_MODEL]
    data["llm"] = llm
    return data


def parse_settings(text: str, source: Path | str = "<config>") -> Settings:
    """Validate a YAML document into ``Settings``, applying environment overrides.

    Raises:
        ConfigError: Invalid YAML or an invalid key; names file, line, key and reason.
    """
    try:
        node = yaml.compose(text)
        data = load_yaml(text) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else str(source)
        raise ConfigError(f"{where}: invalid YAML: {getattr(err, 'problem', err)}") from err
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of settings at the top level")
    _refuse_keys(data, node, source)
    judge = data.get("judge")
    if isinstance(judge, dict) and isinstance(judge.get("llm"), dict):
        # The judge's endpoint may belong to someone else: it never gets the model's key.
        judge["llm"].setdefault("api_key_env", ENV_JUDGE_API_KEY)
    try:
        settings = Settings.model_validate(_apply_env(data))
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(first["loc"])
        key = ".".join(str(part) for part in loc)
        raise ConfigError(f"{source}:{_node_line(node, loc)}: {key}: {first['msg']}") from err
    settings.llm = settings.llm.with_environment_key(ENV_API_KEY)
    if settings.judge.llm is not None:
        settings.judge.llm = settings.judge.llm.with_environment_key()
    return settings


def _refuse_keys(
    data: Any, node: yaml.Node | None, source: Path | str, loc: tuple[int | str, ...] = ()
) -> None:
    """Refuse an API key anywhere in a file: ``api_key`` in any section, ``--api-key`` in args.

    Raises:
        ConfigError: Names file, line and key, and the environment variable to use instead.
    """
    if isinstance(data, dict):
        for key, value in data.items():
            here = (*loc, key)
            if key == "api_key":
                judge = loc[:1] == ("judge",)
                variable = "judge.llm.api_key_env" if judge else "llm.api_key_env"
                default = ENV_JUDGE_API_KEY if judge else ENV_API_KEY
                raise ConfigError(
                    f"{source}:{_node_line(node, here)}: {'.'.join(map(str, here))}: keys are "
                    f"never read from files; set the variable named by {variable} instead "
                    f"(default {default})"
                )
            _refuse_keys(value, node, source, here)
    elif isinstance(data, list):
        for index, item in enumerate(data):
            if isinstance(item, str) and item.split("=", 1)[0] == "--api-key":
                raise ConfigError(
                    f"{source}:{_node_line(node, (*loc, index))}: {'.'.join(map(str, loc))}: "
                    "keys are never read from files; vLLM reads VLLM_API_KEY from the environment"
                )
            _refuse_keys(item, node, source, (*loc, index))


def load_settings(path: Path) -> Settings:
    """Load and validate a YAML config file.

    Raises:
        ConfigError: Missing file, invalid YAML or invalid keys (file, line, key and reason).
        DataError: The file is not UTF-8 (file, line and byte offset).
    """
    path = Path(path)
    try:
        text = read_text(path)
    except OSError as err:
        raise UserInputError(f"{path}: cannot read config ({err.strerror})") from err
    return parse_settings(text, path)
