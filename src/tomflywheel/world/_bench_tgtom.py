"""tgtom (TemporalGraph-ToM) files as check items: 12 question types, perturbations applied."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tomflywheel._io import iter_jsonl
from tomflywheel.errors import DataError
from tomflywheel.world._checkitem import CheckItem
from tomflywheel.world._edits import DropMove, ReplaceClaim, SetExits, SetMotive
from tomflywheel.world._events import Story
from tomflywheel.world._parse import parse_story
from tomflywheel.world._spec import QuestionSpec

TGTOM_FILES = (
    "stories_v10.jsonl",
    "higher_order_beliefs_v10.jsonl",
    "counterfactual_beliefs_v10.jsonl",
    "causal_beliefs_v10.jsonl",
    "common_knowledge_v10.jsonl",
)
"""The five data files, stories first."""

TGTOM_TYPES = ("Q0", "Q1", "Q2", "Q3", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q13")
"""The 12 question types (there is no Q4 and no Q12)."""


def _read(path: Path) -> dict[int, dict[str, Any]]:
    if not path.is_file():
        raise DataError(path, None, None, "no such file")
    rows: dict[int, dict[str, Any]] = {}
    for number, row in iter_jsonl(path):
        if not isinstance(row.get("id"), int):
            raise DataError(path, number, "id", "expected an object with an integer id")
        rows[row["id"]] = row
    return rows


def tgtom_spec(qtype: str, record: Mapping[str, Any], obj: str) -> QuestionSpec:
    """The spec of one tgtom question record (a ``Q*`` sub-dict; Q1: one ``questions`` entry).

    Raises:
        KeyError: A field the question type needs is missing.
    """
    r = record
    if qtype == "Q0":
        return QuestionSpec("reality", obj, qtype=qtype)
    if qtype == "Q1":
        return QuestionSpec("belief", obj, chain=(r["agent"],), qtype=qtype)
    if qtype == "Q2":
        return QuestionSpec("belief", obj, chain=tuple(r["chain"]), qtype=qtype)
    if qtype == "Q3":
        return QuestionSpec(
            "intent",
            obj,
            chain=tuple(r["chain"]),
            actor=r["target_actor"],
            occurrence=r["target_occurrence"],
            qtype=qtype,
        )
    if qtype == "Q5":
        edit5 = DropMove(r["perturbed_line"])
        actor = r["perturbed_mover"]
        return QuestionSpec(
            "belief", obj, chain=(r["asked_about"],), actor=actor, edit=edit5, qtype=qtype
        )
    if qtype in ("Q6", "Q13"):
        edit6 = ReplaceClaim(r["perturbed_line"], r["counterfactual_claim"])
        if qtype == "Q6":
            return QuestionSpec(
                "belief", obj, chain=tuple(r["chain"]), actor=r["speaker"], edit=edit6, qtype=qtype
            )
        group = tuple(r["agent_set_S"])
        return QuestionSpec(
            "common_knowledge", obj, group=group, actor=r["speaker"], edit=edit6, qtype=qtype
        )
    if qtype == "Q7":
        motive = r["counterfactual_motive"]
        edit7 = SetMotive(r["perturbed_line"], motive["help_target"], motive["hide_target"])
        return QuestionSpec(
            "intent",
            obj,
            chain=tuple(r["chain"]),
            actor=r["perturbed_mover"],
            occurrence=r["perturbed_occurrence"],
            edit=edit7,
            qtype=qtype,
        )
    if qtype == "Q8":
        return QuestionSpec("cause", obj, chain=(r["agent"],), qtype=qtype)
    if qtype == "Q9":
        return QuestionSpec("common_knowledge", obj, group=tuple(r["agent_set"]), qtype=qtype)
    if qtype == "Q10":
        edit10 = SetExits(
            (
                (r["swap_agent_A"], r["swap_agent_A_new_line"]),
                (r["swap_agent_B"], r["swap_agent_B_new_line"]),
            )
        )
        return QuestionSpec("belief", obj, chain=tuple(r["chain"]), edit=edit10, qtype=qtype)
    if qtype == "Q11":
        edit11 = SetExits(((r["perturbed_agent"], r["perturbed_agent_counterfactual_exit"]),))
        group = tuple(r["agent_set_S"])
        return QuestionSpec("common_knowledge", obj, group=group, edit=edit11, qtype=qtype)
    raise KeyError(f"unknown tgtom question type {qtype!r}")


def load_tgtom(path: Path) -> Iterator[CheckItem]:
    """Every gradable tgtom item (1,812 for the 100 stories): the folder of the five files.

    ``path`` may also be ``stories_v10.jsonl`` itself; the question files sit beside it.

    Raises:
        DataError: A missing or malformed file, or an unparsable story.
    """
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    stories, *question_files = (_read(folder / name) for name in TGTOM_FILES)
    for story_id in sorted(stories):
        row = stories[story_id]
        story = parse_story(row["story"], "tgtom", source=f"{folder / TGTOM_FILES[0]}")
        if list(story.agents) != list(row["agents"]):
            story = Story(story.events, story.lines, tuple(row["agents"]))
        obj = row["object"]
        for questions in question_files:
            record = questions.get(story_id)
            if record is None:
                continue
            yield from _items(str(story_id), story, obj, record)


def _items(story_id: str, story: Story, obj: str, record: Mapping[str, Any]) -> Iterator[CheckItem]:
    for qtype in TGTOM_TYPES:
        sub = record.get(qtype)
        if not isinstance(sub, dict):
            continue
        entries = sub["questions"] if qtype == "Q1" else [sub]
        for entry in entries:
            if entry.get("question") is None:
                continue
            spec = tgtom_spec(qtype, entry, obj)
            yield CheckItem(story_id, qtype, entry["question"], story, spec, entry["answer"])
