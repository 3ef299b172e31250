"""Helpers for filter tests: engine-made samples, candidates and contexts, files of candidates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tomflywheel.filter import CheckContext, DedupSettings, DuplicateIndex, FilterSettings
from tomflywheel.filter.records import Candidate, parse_candidate
from tomflywheel.schema import Answer, Sample
from tomflywheel.world import generate


def tomi_samples(n: int = 2, seed: int = 3) -> list[Sample]:
    """ToMi-style engine samples (with traces), deterministic."""
    return list(generate("tomi", n=n, seed=seed))


def sample(
    story: str = "Anna put the ball in the basket. Anna left. Max moved the ball to the box.",
    question: str = "Where will Anna look for the ball?",
    correct: list[str] | None = None,
    wrong: list[str] | None = None,
    sample_id: str = "s1",
    **meta: Any,
) -> Sample:
    """A free-form sample built from plain values."""
    return Sample(
        id=sample_id,
        story=story,
        question=question,
        answer=Answer(correct_answers=correct or ["basket"], wrong_answers=wrong or []),
        meta=meta,
    )


def candidate(value: Sample | dict[str, Any] | str, index: int = 0) -> Candidate:
    """A candidate as read from line ``index + 1`` of an input file."""
    if isinstance(value, Sample):
        text = value.model_dump_json()
    elif isinstance(value, dict):
        text = json.dumps(value)
    else:
        text = value
    return parse_candidate(index, index + 1, text)


def context(settings: FilterSettings | None = None, **kwargs: Any) -> CheckContext:
    """A check context with default settings and an empty duplicate index."""
    settings = settings or FilterSettings()
    kwargs.setdefault("duplicates", DuplicateIndex(settings.dedup))
    return CheckContext(settings=settings, **kwargs)


def write_jsonl(path: Path, rows: list[Sample | dict[str, Any] | str]) -> Path:
    """Write candidates (samples, dicts or raw lines) one per line."""
    lines = []
    for row in rows:
        if isinstance(row, Sample):
            lines.append(row.model_dump_json())
        elif isinstance(row, dict):
            lines.append(json.dumps(row))
        else:
            lines.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def dedup() -> DedupSettings:
    return DedupSettings()


def engine_duplicate_and_free_form() -> tuple[list[Sample], list[Sample]]:
    """(the engine samples of one ToMi story, those plus a duplicate and a free-form sample)."""
    good = tomi_samples(1)
    return good, [*good, good[0].model_copy(update={"id": "copy"}), sample(sample_id="free")]


def filter_no_llm(tmp_path: Path, rows: list[Sample]) -> tuple[Any, Path]:
    """``tomflywheel filter --no-llm --name first`` on ``rows``: (typer's result, train folder)."""
    from typer.testing import CliRunner

    from tomflywheel.cli import app

    config = tmp_path / "config.yaml"
    config.write_text("server: embedded\n", encoding="utf-8")
    source = write_jsonl(tmp_path / "cands.jsonl", rows)
    train = tmp_path / "train"
    args = ["filter", "--input", str(source), "--config", str(config), "--no-llm"]
    args += ["--name", "first", "--train-dir", str(train), "--eval-dir", str(tmp_path / "none")]
    return CliRunner().invoke(app, args, env={"COLUMNS": "160"}), train
