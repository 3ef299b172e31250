"""BigToM importer: the 25 condition files, or the 200-story template CSV they are generated from.

From the template, the conditions are rebuilt exactly as the official
``generate_conditions.py`` does (the result equals the released condition files, row for row).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tomflywheel.datasets._common import Loc, iter_csv, make_sample
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="bigtom",
        description="BigToM (Gandhi et al. 2023): 25 conditions x 200 stories, 2-way choice",
        prompt_kind="single_choice",
        judge="rules",
        groupings=(("condition",), ("direction", "variable", "belief"), ("init_belief",)),
    )
)

VARIABLES = ("forward_belief", "forward_action", "backward_belief")
BELIEFS = ("true_belief", "false_belief", "true_control", "false_control")
CONDITIONS = (
    *(f"{init}_{v}_{b}" for init in (0, 1) for v in VARIABLES for b in BELIEFS),
    "1_percept_to_belief_true_belief",
)
"""The 25 condition folders, in the order the importer emits them."""
STORIES = 200
"""Stories per condition: every condition file (and the template) holds the same 200."""
SUSPECT = "1_percept_to_belief_true_belief"
"""Its story stops before the causal event, yet its gold is the post-event belief."""
_CONDITION = re.compile(
    r"^([01])_(forward|backward|percept_to)_(belief|action)_(true|false)_(belief|control)$"
)

# Column indices of the template CSV (names from the official generator).
STORY, AWARE, NOT_AWARE, ACTION_AWARE, ACTION_NOT_AWARE = 0, 1, 2, 3, 4
BELIEF_Q, ACTION_Q = 5, 7
BELIEF_AWARE, ACTION_ANSWER_AWARE, BELIEF_NOT_AWARE, ACTION_ANSWER_NOT_AWARE = 8, 10, 11, 13
RANDOM_EVENT, RANDOM_AWARE, RANDOM_NOT_AWARE = 14, 15, 16


def condition_parts(condition: str) -> dict[str, Any]:
    """``0_forward_belief_false_belief`` -> its parts as ``meta`` fields."""
    match = _CONDITION.match(condition)
    if not match:
        raise ValueError(f"not a BigToM condition: {condition!r}")
    init, direction, variable, truth, kind = match.groups()
    return {
        "condition": condition,
        "init_belief": int(init),
        "direction": "percept_to_belief" if direction == "percept_to" else direction,
        "variable": variable,
        "belief": truth,
        "control": kind == "control",
    }


def generate_conditions(row: list[str]) -> dict[str, tuple[str, str, str, str]]:
    """The 25 (story, question, correct, wrong) rows one template row yields, by condition."""
    parts = row[STORY].split(".")
    out: dict[str, tuple[str, str, str, str]] = {}
    for init in (0, 1):
        kept = [0, 1, 2, 4] if init == 0 else [0, 1, 2, 3, 4]
        story = "".join(parts[i] + "." for i in kept)
        for variable in VARIABLES:
            if variable == "forward_action":
                question, aware, unaware = (
                    row[ACTION_Q],
                    row[ACTION_ANSWER_AWARE],
                    row[ACTION_ANSWER_NOT_AWARE],
                )
            else:
                question, aware, unaware = row[BELIEF_Q], row[BELIEF_AWARE], row[BELIEF_NOT_AWARE]
            # The backward variable cuts the control story from the already shortened story.
            base = story.split(".") if variable == "backward_belief" else parts
            control = ".".join([*base[: 3 + init], " " + row[RANDOM_EVENT]])
            if variable == "backward_belief":
                endings = [f"{story} {row[ACTION_AWARE]}", f"{story} {row[ACTION_NOT_AWARE]}"]
                endings += [f"{control} {row[ACTION_NOT_AWARE]}"] * 2
            else:
                endings = [f"{story} {row[AWARE]}", f"{story} {row[NOT_AWARE]}"]
                endings += [f"{control} {row[RANDOM_AWARE]}", f"{control} {row[RANDOM_NOT_AWARE]}"]
            for belief, ending in zip(BELIEFS, endings, strict=True):
                gold = (aware, unaware) if belief == "true_belief" else (unaware, aware)
                out[f"{init}_{variable}_{belief}"] = (ending, question, *gold)
    story3 = parts[0] + "." + parts[1] + "." + parts[2] + "."
    out[SUSPECT] = (story3, row[BELIEF_Q], row[BELIEF_AWARE], row[BELIEF_NOT_AWARE])
    return out


def _check_count(path: Path, rows: int) -> None:
    """A BigToM file with other than ``STORIES`` rows is a partial copy: refuse it."""
    if rows != STORIES:
        raise DataError(path, None, None, f"{rows} stories, expected {STORIES}")


def _from_conditions(folder: Path) -> Iterator[tuple[str, int, Loc, tuple[str, ...]]]:
    for condition in CONDITIONS:
        path = folder / condition / "stories.csv"
        if not path.is_file():
            raise DataError(path, None, None, "condition file not found")
        rows = list(iter_csv(path, delimiter=";", columns=4))
        _check_count(path, len(rows))
        for index, (number, row) in enumerate(rows):
            yield condition, index, Loc(path, number), tuple(row)


def _from_template(path: Path) -> Iterator[tuple[str, int, Loc, tuple[str, ...]]]:
    rows = [(number, row) for number, row in iter_csv(path, delimiter=";")]
    _check_count(path, len(rows))
    for number, row in rows:
        if len(row) < RANDOM_NOT_AWARE + 1:
            raise DataError(path, number, None, f"expected 19 fields, got {len(row)}")
        if row[STORY].count(".") < 4:
            raise DataError(path, number, "story", "expected 5 sentences")
    generated = [generate_conditions(row) for _, row in rows]
    for condition in CONDITIONS:
        for index, (number, _) in enumerate(rows):
            yield condition, index, Loc(path, number), generated[index][condition]


def _locate(source: Path) -> tuple[str, Path]:
    if source.is_file():
        return "template", source
    if (source / "conditions").is_dir():
        return "conditions", source / "conditions"
    if (source / CONDITIONS[0]).is_dir():
        return "conditions", source
    if (source / "bigtom.csv").is_file():
        return "template", source / "bigtom.csv"
    raise DataError(source, None, None, "no conditions/ folder or bigtom.csv here")


@IMPORTERS.register("bigtom")
def import_bigtom(source: Path) -> Iterator[Sample]:
    """BigToM: every condition x story as a 2-way choice (gold = the condition file's column 3).

    Args:
        source: The benchmark folder (``conditions/<25 folders>/stories.csv`` preferred), the
            ``conditions`` folder itself, or the template ``bigtom.csv`` (conditions rebuilt).
    """
    kind, path = _locate(Path(source))
    rows = _from_conditions(path) if kind == "conditions" else _from_template(path)
    for condition, index, loc, (story, question, correct, wrong) in rows:
        yield make_sample(
            loc,
            id=f"bigtom-{condition}-{index:03d}",
            story=story,
            question=question,
            correct=[correct],
            wrong=[wrong],
            meta={
                "dataset": "bigtom",
                **condition_parts(condition),
                "story_id": index,
                "gold_suspect": condition == SUSPECT,
            },
        )
