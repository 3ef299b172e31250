"""Hi-ToM importer: the JSON release, CoTP records by default, 15 lettered options each."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from tomflywheel.datasets._common import Loc, find_source, get, make_sample, read_json, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

NOTE = (
    "Note: You should assume the following. (1) An agent witnesses everything and every "
    "movements before exiting a location. (2) An agent A can infer another agent B's mental state "
    "only if A and B have been in the same location, or have private or public interactions. "
    "(3) Note that every agent tend to lie. What a character tells others doesn't affect his "
    "actual belief. An agent tend to trust a agent that exited the room later than himself. The "
    "exit order is known to all agents. (4) Agents in private communications know that others "
    "won't hear them, but they know that anyone can hear any public claims."
)
"""The rule note that ends every original Hi-ToM prompt (verbatim); the gold answers assume it."""

register_task(
    TaskSpec(
        name="hitom",
        description="Hi-ToM (He et al. 2023): ToM orders 0-4, 15-way single choice",
        prompt_kind="single_choice",
        judge="rules",
        groupings=(("order",), ("order", "deception"), ("story_length",)),
        instructions=NOTE,
    )
)

_OPTION = re.compile(r"(?:^|, )([A-O])\. ")
_NUMBERED = re.compile(r"^\d+ ")


def story_candidates(story: str, options: list[str]) -> list[str]:
    """The options the story itself names (its containers), in option order.

    These are the candidate answers log-prob scoring compares: a handful instead of all 15.
    """
    return [o for o in options if re.search(rf"(?<![\w]){re.escape(o)}(?![\w])", story)]


def split_choices(choices: str) -> list[str] | None:
    """``"A. x, B. y, ..."`` -> ``["x", "y", ...]`` when the letters run A, B, C, ... in order."""
    marks = list(_OPTION.finditer(choices))
    letters = [m.group(1) for m in marks]
    if not marks or marks[0].start() != 0 or letters != [chr(65 + i) for i in range(len(marks))]:
        return None
    ends = [m.start() for m in marks[1:]] + [len(choices)]
    return [choices[m.end() : end].strip() for m, end in zip(marks, ends, strict=True)]


def clean_story(story: str) -> str:
    """Only the numbered story lines: drops VP's leading instruction and stray ``***`` lines."""
    return "\n".join(line for line in story.splitlines() if _NUMBERED.match(line))


def _record(obj: Any, index: int, path: Path) -> dict[str, Any]:
    loc = Loc(path, index, "record")
    if not isinstance(obj, dict):
        raise loc.error(None, "expected an object")
    record = {
        "prompting_type": get(obj, "prompting_type", str, loc),
        "deception": get(obj, "deception", bool, loc),
        "story_length": get(obj, "story_length", int, loc),
        "question_order": get(obj, "question_order", int, loc),
        "sample_id": get(obj, "sample_id", int, loc),
        "story": clean_story(text(obj, "story", loc)),
        "question": text(obj, "question", loc),
        "choices": text(obj, "choices", loc),
        "answer": text(obj, "answer", loc).strip(),
    }
    if record["prompting_type"] not in ("CoTP", "VP"):
        raise loc.error("prompting_type", f"{record['prompting_type']!r} is not 'CoTP' or 'VP'")
    if not record["story"]:
        raise loc.error("story", "no numbered story lines")
    options = split_choices(record["choices"])
    if options is None:
        raise loc.error("choices", "expected 'A. x, B. y, ...'")
    if record["answer"] not in options:
        raise loc.error("answer", f"{record['answer']!r} is not one of the choices")
    record["options"] = options
    return record


@IMPORTERS.register("hitom")
def import_hitom(source: Path, *, prompting: Literal["CoTP", "VP"] = "CoTP") -> Iterator[Sample]:
    """Hi-ToM from ``Hi-ToM_data.json`` (600 items, each stored for two prompting styles).

    Args:
        source: ``Hi-ToM_data.json`` or a folder holding it.
        prompting: Whose gold answers to use: ``CoTP`` (recommended by the data notes: the VP
            twin's gold is one move too early in most of the 138 pairs that disagree) or ``VP``.
    """
    path = find_source(source, ["Hi-ToM_data.json"], what="Hi-ToM JSON")
    document = read_json(path)
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, list):
        raise DataError(path, None, "data", "expected a list of records under 'data'")
    records = [_record(obj, index, path) for index, obj in enumerate(data)]
    twins: dict[tuple[str, str, str], dict[str, str]] = {}
    for record in records:
        key = (record["story"], record["question"], record["choices"])
        twins.setdefault(key, {})[record["prompting_type"]] = record["answer"]
    for index, record in enumerate(records):
        if record["prompting_type"] != prompting:
            continue
        answers = twins[(record["story"], record["question"], record["choices"])]
        twin = "VP" if prompting == "CoTP" else "CoTP"
        yield make_sample(
            Loc(path, index, "record"),
            id=f"hitom-{prompting.lower()}-{record['sample_id']:04d}",
            story=record["story"],
            question=record["question"],
            correct=[record["answer"]],
            wrong=[option for option in record["options"] if option != record["answer"]],
            meta={
                "dataset": "hitom",
                "prompting": prompting,
                "order": record["question_order"],
                # Order 0 asks where the object really is: a control, no belief needed.
                "tom": record["question_order"] > 0,
                "deception": record["deception"],
                "story_length": record["story_length"],
                "source_id": record["sample_id"],
                "options": record["options"],
                "candidates": story_candidates(record["story"], record["options"]),
                # Gold of both prompting styles agrees: the "clean" subset of the data notes.
                "clean": len(set(answers.values())) == 1 and len(answers) == 2,
                # The other style's gold, for explaining the world check's residuals.
                "twin_gold": answers.get(twin),
            },
        )
