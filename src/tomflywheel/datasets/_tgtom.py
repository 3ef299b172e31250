"""TGToM importer: the stories file plus four question files, 12 question types, joined on ``id``.

Gold answers are structured in the source; each becomes one canonical string, and the question
ends with an answer-format line so a model can produce it:

- containers as written (``blue_container``);
- intents (Q3, Q7) ``help: <name|none>; hide: <name|none>``, or ``none`` when unknowable;
- the causal event (Q8) its line number (``13``);
- common knowledge (Q9, Q11, Q13) ``yes: <container>`` or ``no``.

The structured gold stays in ``meta.gold`` (the official scorer compares it exactly).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, get, make_sample, text, text_list
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError, PathError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec
from tomflywheel.world import ANSWER_FORMATS

RULES = (
    "Assume: an agent sees every event in the room until the agent exits, except that a mover "
    "hides the move from the agent named after 'hide it from'. A public claim is heard by every "
    "other agent, a private one only by its listener; a listener believes a claim only if the "
    "speaker exited the room later than the listener, and a speaker's own belief never changes "
    "by their own claim. 'A thinks B thinks ...' asks for the location carried by the last event "
    "that every agent in the chain saw or believed."
)
"""The rules the gold answers follow (restated from the benchmark's data notes)."""

register_task(
    TaskSpec(
        name="tgtom",
        description="TGToM: higher-order, counterfactual, causal, common-knowledge beliefs",
        prompt_kind="open",
        judge="rules",
        strict_matching=True,
        groupings=(("question_type",),),
        trial_fields=("targeted", "chain_depth"),
        instructions=RULES,
    )
)

FILES = {
    "stories": "stories",
    "higher_order": "higher_order_beliefs",
    "counterfactual": "counterfactual_beliefs",
    "causal": "causal_beliefs",
    "common_knowledge": "common_knowledge",
}
"""File role -> file name prefix (``<prefix>_v10.jsonl`` in the release)."""
QUESTIONS = {
    "higher_order": ("Q0", "Q1", "Q2", "Q3"),
    "counterfactual": ("Q5", "Q6", "Q7", "Q10"),
    "causal": ("Q8",),
    "common_knowledge": ("Q9", "Q11", "Q13"),
}
KINDS = {
    **dict.fromkeys(("Q0", "Q1", "Q2", "Q5", "Q6", "Q10"), "container"),
    **dict.fromkeys(("Q3", "Q7"), "intent"),
    "Q8": "line",
    **dict.fromkeys(("Q9", "Q11", "Q13"), "common_knowledge"),
}
FORMATS = ANSWER_FORMATS
SUBTYPES = {"Q0": "reality", "Q1": "first_order", "Q2": "higher_order", "Q3": "intent_chain"}


def encode(kind: str, gold: Any, loc: Loc, field: str) -> str:
    """The canonical answer string of a structured gold value.

    Raises:
        DataError: The value does not have the shape its question type needs.
    """
    if kind == "container" and isinstance(gold, str) and gold.strip():
        return gold
    if kind == "intent" and gold is None:
        return "none"
    if kind == "intent" and isinstance(gold, dict):
        help_, hide = gold.get("help_target"), gold.get("hide_target")
        if all(v is None or isinstance(v, str) for v in (help_, hide)):
            return f"help: {help_ or 'none'}; hide: {hide or 'none'}"
    if kind == "line" and isinstance(gold, dict) and type(gold.get("line")) is int:
        return str(gold["line"])
    if kind == "common_knowledge" and isinstance(gold, dict):
        known, where = gold.get("common_knowledge"), gold.get("shared_location")
        if known is True and isinstance(where, str) and where:
            return f"yes: {where}"
        if known is False and where is None:
            return "no"
    raise loc.error(field, f"not a valid {kind} answer: {gold!r}")


def _find(folder: Path, prefix: str) -> Path:
    matches = sorted(folder.glob(f"{prefix}*.jsonl"))
    if len(matches) != 1:
        found = ", ".join(p.name for p in matches) or "none"
        raise DataError(folder, None, None, f"expected one {prefix}*.jsonl file, found {found}")
    return matches[0]


def _read(folder: Path, role: str) -> dict[int, tuple[Loc, dict[str, Any]]]:
    path = _find(folder, FILES[role])
    records: dict[int, tuple[Loc, dict[str, Any]]] = {}
    for number, record in iter_jsonl(path):
        loc = Loc(path, number)
        story_id = get(record, "id", int, loc)
        if story_id in records:
            raise loc.error("id", f"story {story_id} appears twice")
        records[story_id] = (loc, record)
    return records


def _items(qtype: str, record: dict[str, Any], loc: Loc) -> Iterator[tuple[str, dict[str, Any]]]:
    """(id suffix, question dict) for one question type of one question record."""
    block = get(record, qtype, dict, loc)
    if qtype != "Q1":
        yield qtype, block
        return
    for index, item in enumerate(get(block, "questions", list, loc, at=qtype)):
        agent = text(item, "agent", loc, at=f"Q1.questions[{index}]")
        yield f"Q1-{agent}", {**item, "_at": f"Q1.questions[{index}]"}


def _meta(story_id: int, qtype: str, q: dict[str, Any], story: dict[str, Any]) -> dict[str, Any]:
    chain = q.get("chain")
    depth = q.get("chain_depth", len(chain) if isinstance(chain, list) else None)
    return {
        "dataset": "tgtom",
        "story_id": story_id,
        "question_type": qtype,
        "subtype": q.get("subtype", SUBTYPES.get(qtype)),
        "answer_kind": KINDS[qtype],
        "agent": q.get("agent", q.get("asked_about")),
        "targeted": q.get("targeted"),
        "chain_depth": depth,
        "object": story["object"],
        # Q3's text leaves implicit which of the actor's moves it asks about: keep the index.
        "target_occurrence": q.get("target_occurrence", q.get("perturbed_occurrence")),
        "gold": q["answer"],
        "agents": story["agents"],
        # The question's own fields (chain, perturbation, ...): the world check builds its
        # spec from them.
        "tgtom_fields": {k: v for k, v in q.items() if k not in ("question", "answer", "_at")},
    }


@IMPORTERS.register("tgtom")
def import_tgtom(source: Path) -> Iterator[Sample]:
    """TGToM from ``stories_v10.jsonl`` and its four question files (1,812 items for 100 stories).

    Args:
        source: The folder holding ``stories*.jsonl``, ``higher_order_beliefs*.jsonl``,
            ``counterfactual_beliefs*.jsonl``, ``causal_beliefs*.jsonl`` and
            ``common_knowledge*.jsonl``.
    """
    folder = Path(source)
    if not folder.exists():
        raise PathError(folder, None, None, "no such file or folder")
    if not folder.is_dir():
        raise PathError(folder, None, None, "expected the folder of the five TGToM files")
    tables = {role: _read(folder, role) for role in FILES}
    for table in tables.values():
        for story_id, (loc, _) in table.items():
            if story_id not in tables["stories"]:
                raise loc.error("id", f"no story {story_id} in the stories file")
    for story_id, (story_loc, story) in sorted(tables["stories"].items()):
        body = text(story, "story", story_loc)
        text_list(story, "agents", story_loc)
        text(story, "object", story_loc)
        for role, qtypes in QUESTIONS.items():
            if story_id not in tables[role]:
                path = _find(folder, FILES[role])
                raise DataError(path, None, "id", f"no question record for story {story_id}")
            loc, record = tables[role][story_id]
            for qtype in qtypes:
                for suffix, q in _items(qtype, record, loc):
                    at = q.get("_at", qtype)
                    question = text(q, "question", loc, at=at)
                    if "answer" not in q:
                        raise loc.error(f"{at}.answer", "missing")
                    gold = encode(KINDS[qtype], q["answer"], loc, f"{at}.answer")
                    yield make_sample(
                        loc,
                        id=f"tgtom-{story_id:03d}-{suffix}",
                        story=body,
                        question=f"{question}\n{FORMATS[KINDS[qtype]]}",
                        correct=[gold],
                        meta=_meta(story_id, qtype, q, story),
                    )
