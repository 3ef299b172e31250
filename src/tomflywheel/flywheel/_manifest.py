"""The run manifest: which stage of which round is done, how long it took, what it spent."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tomflywheel._io import atomic_write_json

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
MANIFEST = "manifest.json"


class StageRecord(BaseModel):
    """One finished stage."""

    model_config = ConfigDict(extra="forbid")

    seconds: float
    """Wall time of the invocation that finished it."""
    usage: dict[str, Any] = Field(default_factory=dict)
    """LLM requests and tokens of that invocation."""
    finished: str
    """ISO timestamp."""
    outputs: dict[str, Any] = Field(default_factory=dict)
    """Paths and figures later stages and the report read."""


class RoundRecord(BaseModel):
    """One round's stages."""

    model_config = ConfigDict(extra="forbid")

    round: int
    stages: dict[str, StageRecord] = Field(default_factory=dict)


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

    def done(self, k: int, stage: StageName) -> StageRecord | None:
        """The stage's record if it finished."""
        return self.round(k).stages.get(stage)


def resume_lines(manifest: RunManifest) -> list[str]:
    """What a resumed run finds already done, round by round, in words."""
    done = [r for r in manifest.rounds if r.stages]
    if not done:
        return [f"resuming run {manifest.run_id}: nothing finished yet"]
    return [f"resuming run {manifest.run_id}; already done:"] + [
        f"  round {r.round}: {', '.join(r.stages)}" for r in done
    ]


def now() -> str:
    """The current time, ISO 8601, seconds."""
    return _dt.datetime.now().isoformat(timespec="seconds")


def load_manifest(run_dir: Path) -> RunManifest | None:
    """The manifest of a run folder, or ``None`` for a new run."""
    path = Path(run_dir) / MANIFEST
    if not path.exists():
        return None
    return RunManifest.model_validate(json.loads(path.read_text(encoding="utf-8")))


def save_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Replace the manifest atomically."""
    atomic_write_json(Path(run_dir) / MANIFEST, manifest.model_dump(mode="json"))
