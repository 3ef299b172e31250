"""FANToM importer: the nested per-set release file, flattened as the official evaluator does.

Per set (one fact of one conversation part): each belief question twice (free text, judged
against the correct vs the wrong answer, and as a 2-way choice), the answerability and
info-accessibility list questions (multi-choice over the characters) and their yes/no questions
(2-way choice). The fact question only with ``include_fact``. As in ``eval_fantom.py``: the short
context drops yes/no questions answered ``no:long``; the full context marks a list or yes/no
question ``inaccessible`` when some character does not know. ``item_id`` (set id + accessibility)
makes the official set-level "ALL*" score; ``in_all`` marks the question types of its "ALL" score.
"""

from __future__ import annotations

import json
import logging
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from tomflywheel._io import decode_utf8
from tomflywheel.datasets._common import (
    Loc,
    choice,
    get,
    make_sample,
    read_json,
    slug,
    text,
    text_list,
)
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError, PathError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

logger = logging.getLogger(__name__)

HEADER = (
    "This is a theory-of-mind test. Please answer the question regarding facts or beliefs, "
    "based on the following in-person conversation between individuals who have just met."
)
"""The official prompt header (``eval_fantom.py``)."""

register_task(
    TaskSpec(
        name="fantom",
        description="FANToM (Kim et al. 2023): conversation ToM; free, choice, list, yes-no",
        prompt_kind="mixed",
        judge="hybrid",
        groupings=(("accessibility", "question_family"), ("accessibility", "question_type")),
        all_correct_by="item_id",
        instructions=HEADER,
    )
)

ACCESSIBILITY = ("accessible", "inaccessible")
YES_NO = ("yes", "no", "no:long")
FACT_KEYS = ("question", "correct_answer", "wrong_answer")
LIST_KEYS = {
    "answerability": ("answerabilityQA_list", "answerabilityQAs_binary"),
    "info_accessibility": ("infoAccessibilityQA_list", "infoAccessibilityQAs_binary"),
}
_MEMBER = "fantom_v1.json"


def _load_sets(source: Path) -> tuple[Path, list[Any]]:
    """The set records of a release file, its ``.tar.gz`` archive, or a folder with either."""
    path = source
    if source.is_dir():
        found = [source / n for n in ("fantom_v1.json", "fantom.tar.gz") if (source / n).is_file()]
        found += sorted(source.glob("fantom*.json"))
        if not found:
            raise DataError(source, None, None, "no fantom_v1.json or fantom.tar.gz here")
        path = found[0]
    if not path.is_file():
        raise PathError(path, None, None, "no such file or folder")
    if path.name.endswith((".tar.gz", ".tgz")):
        return _read_archive(path)
    return path, _records(path, read_json(path))


def _read_archive(path: Path) -> tuple[Path, list[Any]]:
    try:
        with tarfile.open(path) as archive:
            member = next((m for m in archive.getmembers() if m.name.endswith(_MEMBER)), None)
            handle = archive.extractfile(member) if member is not None else None
            if member is None or handle is None:
                raise DataError(path, None, None, f"no {_MEMBER} in the archive")
            data = handle.read()
    except (tarfile.TarError, EOFError, OSError) as err:
        raise DataError(path, None, None, f"not a readable .tar.gz archive ({err})") from err
    inner = Path(f"{path}!{member.name}")
    try:
        return inner, _records(inner, json.loads(decode_utf8(data, inner)))
    except json.JSONDecodeError as err:
        raise DataError(inner, err.lineno, None, f"invalid JSON ({err.msg})") from err


def _records(path: Path, document: Any) -> list[Any]:
    if isinstance(document, list):
        return document
    # pandas' default orientation (``DataFrame.to_json()``): {column: {row: value}}.
    if isinstance(document, dict) and isinstance(document.get("set_id"), dict):
        rows = sorted(document["set_id"], key=lambda key: int(key) if key.isdigit() else key)
        return [{col: values.get(row) for col, values in document.items()} for row in rows]
    raise DataError(path, None, None, "expected a JSON list of FANToM sets")


def _access(qa: dict[str, Any], loc: Loc, at: str) -> str:
    value = get(qa, "missed_info_accessibility", str, loc, at=at)
    return choice(value, ACCESSIBILITY, loc, f"{at}.missed_info_accessibility")


def _fact(record: dict[str, Any], loc: Loc) -> tuple[str, str, str]:
    fact = get(record, "factQA", dict, loc)
    question, right, wrong = (text(fact, key, loc, at="factQA") for key in FACT_KEYS)
    return question, right, wrong


def _beliefs(record: dict[str, Any], loc: Loc) -> Iterator[dict[str, Any]]:
    for index, qa in enumerate(get(record, "beliefQAs", list, loc)):
        at = f"beliefQAs[{index}]"
        tom_type = text(qa, "tom_type", loc, at=at)
        right = text(qa, "correct_answer", loc, at=at)
        wrong = text(qa, "wrong_answer", loc, at=at)
        common = {
            "accessibility": _access(qa, loc, at),
            "tom_type": tom_type,
            "tom_order": "first_order" if tom_type.startswith("first") else "second_order",
            "question": text(qa, "question", loc, at=at),
            "correct": [right],
        }
        kind = f"belief_{slug(tom_type)}"
        # Free text: judged by closeness to the correct vs the wrong answer (both kept).
        yield {
            **common,
            "key": f"belief{index}-free",
            "family": "belief_free",
            "type": f"{kind}_free",
            "candidates": [right, wrong],
        }
        yield {
            **common,
            "key": f"belief{index}-choice",
            "family": "belief_choice",
            "type": f"{kind}_choice",
            "wrong": [wrong],
            "in_all": True,
        }


def _characters(
    record: dict[str, Any], loc: Loc, context: str, family: str, target: str
) -> Iterator[dict[str, Any]]:
    list_key, binary_key = LIST_KEYS[family]
    qa = get(record, list_key, dict, loc)
    wrong = text_list(qa, "wrong_answer", loc, at=list_key)
    yield {
        "key": f"{family}-list",
        "family": f"{family}_list",
        "type": f"{family}_list",
        "suffix": target,
        "question": text(qa, "question", loc, at=list_key),
        "correct": text_list(qa, "correct_answer", loc, at=list_key),
        "wrong": wrong,
        "accessibility": "inaccessible"
        if context == "full" and wrong
        else _access(qa, loc, list_key),
        "in_all": True,
    }
    binaries = get(record, binary_key, list, loc)
    answers = [
        choice(
            get(qa, "correct_answer", str, loc, at=f"{binary_key}[{i}]"),
            YES_NO,
            loc,
            f"{binary_key}[{i}].correct_answer",
        )
        for i, qa in enumerate(binaries)
    ]
    # Full context: all of a set's yes/no questions take the first one's accessibility, or
    # "inaccessible" when some character does not know (as eval_fantom.py does).
    full_access = "inaccessible" if any(answer != "yes" for answer in answers) else None
    for index, (qa, answer) in enumerate(zip(binaries, answers, strict=True)):
        at = f"{binary_key}[{index}]"
        gold = "yes" if answer == "yes" else "no"
        yield {
            "key": f"{family}-yn{index}",
            "family": f"{family}_yes_no",
            "type": f"{family}_yes_no",
            "suffix": target,
            "question": text(qa, "question", loc, at=at),
            "correct": [gold],
            "wrong": ["no" if gold == "yes" else "yes"],
            "accessibility": (full_access or _access(binaries[0], loc, f"{binary_key}[0]"))
            if context == "full"
            else _access(qa, loc, at),
            "in_all": True,
            "source_answer": answer,
        }


def _questions(
    record: dict[str, Any], loc: Loc, context: str, include_fact: bool
) -> Iterator[dict[str, Any]]:
    """One plain dict per question, in the official evaluator's order."""
    fact_q, fact_a, fact_wrong = _fact(record, loc)
    if include_fact:
        yield {
            "key": "fact",
            "family": "fact",
            "type": "fact",
            "question": fact_q,
            "correct": [fact_a],
            "candidates": [fact_a, fact_wrong],
            "accessibility": None,
        }
    yield from _beliefs(record, loc)
    yield from _characters(record, loc, context, "answerability", f"Target: {fact_q}")
    yield from _characters(
        record, loc, context, "info_accessibility", f"Information: {fact_q} {fact_a}"
    )


def _meta(record: dict[str, Any], loc: Loc, context: str, q: dict[str, Any]) -> dict[str, Any]:
    set_id = text(record, "set_id", loc)
    access = q["accessibility"]
    return {
        "dataset": "fantom",
        "context": context,
        "question_type": q["type"],
        "question_family": q["family"],
        "accessibility": access or "n/a",
        "item_id": f"{set_id}:{access}" if access else None,
        "in_all": q.get("in_all", False),
        "set_id": set_id,
        "part_id": get(record, "part_id", str, loc),
        "conversation_id": get(record, "conv_id", (int, str), loc),
        **{k: q[k] for k in ("tom_type", "tom_order", "candidates", "source_answer") if k in q},
    }


@IMPORTERS.register("fantom")
def import_fantom(
    source: Path, *, context: Literal["short", "full"] = "short", include_fact: bool = False
) -> Iterator[Sample]:
    """FANToM from the release ``fantom_v1.json``, its ``fantom.tar.gz``, or a file of that shape.

    Args:
        source: The release file, its archive, or a folder holding either.
        context: Conversation given with each question: ``short`` (the part around the missed
            information, the official default) or ``full`` (the whole conversation).
        include_fact: Also import the fact questions (open, scored by token F1 officially).
    """
    path, records = _load_sets(Path(source))
    dropped = 0
    everyone_knows: list[str] = []
    for index, record in enumerate(records):
        loc = Loc(path, index, "record")
        if not isinstance(record, dict):
            raise loc.error(None, "expected an object")
        story = text(record, f"{context}_context", loc).strip()
        for q in _questions(record, loc, context, include_fact):
            if context == "short" and q.get("source_answer") == "no:long":
                dropped += 1
                continue
            if "wrong" in q and not q["wrong"]:
                everyone_knows.append(f"record {index} {q['key']}")
                continue
            meta = _meta(record, loc, context, q)
            yield make_sample(
                loc,
                id=f"fantom-{context}-{meta['set_id']}-{q['key']}",
                story=story + (f"\n\n{q['suffix']}" if "suffix" in q else ""),
                question=q["question"],
                correct=q["correct"],
                wrong=q.get("wrong", ()),
                meta=meta,
            )
    # Skips are warnings, so an import always says what it left out.
    if dropped:
        logger.warning(
            "%s: %d yes/no questions answered no:long skipped (short context)", path, dropped
        )
    if everyone_knows:
        logger.warning(
            "%s: %d questions skipped, every character knows the answer (%s)",
            path,
            len(everyone_knows),
            ", ".join(everyone_knows[:5]) + (", ..." if len(everyone_knows) > 5 else ""),
        )
