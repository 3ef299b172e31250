"""The run manifest: which stage of which round is done, how long it took, what it spent."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from tomflywheel._io import atomic_write_json
from tomflywheel.artifacts import (
    EvaluateOutputs,
    FeedbackOutputs,
    FilterOutputs,
    FreshOutputs,
    HeldoutOutputs,
    Record,
    RunFolder,
    TrainOutputs,
    Usage,
)

StageName = Literal[
    "evaluate",
    "feedback",
    "filter",
    "fresh",
    "heldout_before",
    "train",
    "heldout_sft",
    "heldout_after",
]
STAGES: tuple[StageName, ...] = get_args(StageName)
"""Every stage, in the order a round runs them."""

Out = TypeVar("Out", bound=Record)


class StageRecord(BaseModel, Generic[Out]):
    """One finished stage: its wall time, what it spent, and its outputs."""

    model_config = ConfigDict(extra="forbid")

    seconds: float
    """Wall time of the invocation that finished it."""
    usage: Usage = Field(default_factory=Usage)
    """LLM requests and tokens of that invocation."""
    finished: str
    """ISO timestamp."""
    outputs: Out
    """Paths and figures later stages and the report read."""


class RoundStages(BaseModel):
    """A round's finished stages, each with its own outputs; unfinished ones are ``None``.

    Written as ``{stage: record}`` for the finished ones only, in the order the stages run,
    as the manifest always had them.
    """

    model_config = ConfigDict(extra="forbid")

    evaluate: StageRecord[EvaluateOutputs] | None = None
    feedback: StageRecord[FeedbackOutputs] | None = None
    filter: StageRecord[FilterOutputs] | None = None
    fresh: StageRecord[FreshOutputs] | None = None
    heldout_before: StageRecord[HeldoutOutputs] | None = None
    train: StageRecord[TrainOutputs] | None = None
    heldout_sft: StageRecord[HeldoutOutputs] | None = None
    heldout_after: StageRecord[HeldoutOutputs] | None = None

    @model_serializer(mode="wrap")
    def _finished_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {name: value for name, value in handler(self).items() if value is not None}

    def items(self) -> list[tuple[StageName, StageRecord[Any]]]:
        """The finished stages, in the order they run."""
        return [(name, record) for name in STAGES if (record := getattr(self, name)) is not None]

    def names(self) -> list[StageName]:
        """The finished stages' names, in the order they run."""
        return [name for name, _ in self.items()]

    def record(self, name: StageName, record: StageRecord[Any]) -> None:
        """Record ``name`` as finished."""
        setattr(self, name, record)


class RoundRecord(BaseModel):
    """One round's stages."""

    model_config = ConfigDict(extra="forbid")

    round: int
    stages: RoundStages = Field(default_factory=RoundStages)


class RunManifest(BaseModel):
    """``runs/<run_id>/manifest.json``; rewritten atomically after every stage."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    created: str
    rounds_planned: int
    train_name: str
    rounds: list[RoundRecord] = Field(default_factory=list)

    def round(self, k: int) -> RoundRecord:
        """The record of round ``k`` (created empty)."""
        for record in self.rounds:
            if record.round == k:
                return record
        record = RoundRecord(round=k)
        self.rounds.append(record)
        self.rounds.sort(key=lambda r: r.round)
        return record

    def stages(self, k: int) -> RoundStages:
        """Round ``k``'s finished stages."""
        return self.round(k).stages


def resume_lines(manifest: RunManifest) -> list[str]:
    """What a resumed run finds already done, round by round, in words."""
    done = [r for r in manifest.rounds if r.stages.names()]
    if not done:
        return [f"resuming run {manifest.run_id}: nothing finished yet"]
    return [f"resuming run {manifest.run_id}; already done:"] + [
        f"  round {r.round}: {', '.join(r.stages.names())}" for r in done
    ]


def now() -> str:
    """The current time, ISO 8601, seconds."""
    return _dt.datetime.now().isoformat(timespec="seconds")


def load_manifest(run_dir: Path) -> RunManifest | None:
    """The manifest of a run folder, or ``None`` for a new run."""
    path = RunFolder(Path(run_dir)).manifest
    if not path.exists():
        return None
    return RunManifest.model_validate(json.loads(path.read_text(encoding="utf-8")))


def save_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Replace the manifest atomically."""
    atomic_write_json(RunFolder(Path(run_dir)).manifest, manifest.model_dump(mode="json"))
