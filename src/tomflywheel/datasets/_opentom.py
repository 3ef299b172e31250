"""OpenToM importer: the narratives file joined with the seven question files by story id.

The release (``seacowx/OpenToM``, ``data/opentom_data/``; the same files on the Hugging Face
dataset ``SeacowX/OpenToM``) keeps the stories in ``meta_data.json`` (``metadata.json`` on
Hugging Face) as ``{story_id: {plot_info, observed, narrative, ...}}`` and each question file as
``{story_id: [{question, answer, type}, ...]}``. Kinds follow the official evaluator
(``src/evaluate/opentom_evaluator.py``): coarse location is a Yes/No choice, fullness,
accessibility and attitude are 3-way choices over the words the official prompt lists, and fine
location is open (the evaluator maps free text to the original or the new place by word
overlap; ``meta.candidates`` keeps both so macro-F1 can do the same).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tomflywheel.datasets._common import Loc, get, make_sample, read_json, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError, PathError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

logger = logging.getLogger(__name__)

register_task(
    TaskSpec(
        name="opentom",
        description="OpenToM: location, fullness, accessibility and attitude beliefs",
        prompt_kind="mixed",
        judge="rules",
        groupings=(("question_type",), ("question_family",), ("observed",)),
        trial_fields=("perspective",),
        macro_f1_by=("question_type",),
    )
)


@dataclass(frozen=True, slots=True)
class QuestionFile:
    """One question file of the release and how its questions are asked and scored."""

    names: tuple[str, ...]
    """File names, preferred first (the ``_new`` fine-location files replace the old ones)."""
    type: str
    """The ``type`` every record of the file carries."""
    family: str | None
    """Question family; ``None``: decided per question (multihop: fullness or accessibility)."""
    order: int | None
    """ToM order (attitude: none)."""


QUESTION_FILES = {
    "location_cg_fo": QuestionFile(("location_cg_fo.json",), "location-fo", "location_coarse", 1),
    "location_cg_so": QuestionFile(("location_cg_so.json",), "location-so", "location_coarse", 2),
    "location_fg_fo": QuestionFile(
        ("location_fg_fo_new.json", "location_fg_fo.json"), "location-fo", "location_fine", 1
    ),
    "location_fg_so": QuestionFile(
        ("location_fg_so_new.json", "location_fg_so.json"), "location-so", "location_fine", 2
    ),
    "multihop_fo": QuestionFile(("multihop_fo.json",), "multihop-fo", None, 1),
    "multihop_so": QuestionFile(("multihop_so.json",), "multihop-so", None, 2),
    "attitude": QuestionFile(("attitude.json",), "attitude", "attitude", None),
}
"""The seven question files; each story has 2 + 2 + 4 + 2 + 6 + 6 + 1 = 23 questions."""
META_FILES = {"normal": ("meta_data.json", "metadata.json")}
META_FILES["long"] = ("meta_data_long.json", "metadata_long.json")
OPTIONS = {
    "location_coarse": ("Yes", "No"),
    "fullness": ("more full", "equally full", "less full"),
    "accessibility": ("more accessible", "equally accessible", "less accessible"),
    "attitude": ("positive", "neutral", "negative"),
}
"""Choice families and their answers, in the order the official prompts list them."""
_PERSPECTIVE = re.compile(r"^\s*(?:From (.+?)'s perspective|As (.+?),)")
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)


def _folder(source: Path) -> Path:
    source = Path(source)
    for folder in (source / "opentom_data", source / "data" / "opentom_data", source):
        if folder.is_dir() and any((folder / n).is_file() for n in META_FILES["normal"]):
            return folder
    if not source.exists():
        raise PathError(source, None, None, "no such folder")
    raise DataError(source, None, None, "no meta_data.json / metadata.json here or in opentom_data")


def _pick(folder: Path, names: tuple[str, ...]) -> Path:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise DataError(folder, None, None, f"missing {' or '.join(names)}")


def _by_key(path: Path) -> dict[str, Any]:
    document = read_json(path)
    if not isinstance(document, dict):
        raise DataError(path, None, None, "expected an object keyed by story id")
    return document


def _place(value: str) -> str:
    """A place as the evaluator compares it: lower case, ``_`` as space, no leading article."""
    return _ARTICLE.sub("", value.replace("_", " ").strip().lower())


def _family(spec: QuestionFile, question: str, loc: Loc, at: str) -> str:
    if spec.family is not None:
        return spec.family
    # The official evaluator tells the two multihop kinds apart by these words.
    if "fullness" in question:
        return "fullness"
    if "accessibility" in question:
        return "accessibility"
    raise loc.error(f"{at}.question", "neither a fullness nor an accessibility question")


def _gold(family: str, answer: Any, loc: Loc, at: str) -> str:
    """The gold answer, normalized as the official evaluator reads it."""
    field = f"{at}.answer"
    if family == "accessibility" and isinstance(answer, list):
        # The evaluator drops "corrupted" entries from a list answer and needs one left.
        kept = [a for a in answer if a != "corrupted"]
        if len(kept) != 1 or not isinstance(kept[0], str):
            raise loc.error(field, f"expected one answer besides 'corrupted', got {answer!r}")
        answer = kept[0]
    if not isinstance(answer, str) or not answer.strip():
        raise loc.error(field, f"expected a non-empty string, got {answer!r}")
    if family == "location_fine":
        return answer
    value = answer.strip().lower()
    if family == "accessibility" and "|" in value:
        value = "equally accessible"  # the evaluator's reading of a two-way answer
    for option in OPTIONS[family]:
        if value == option.lower():
            return option
    raise loc.error(field, f"{answer!r} is not one of {', '.join(OPTIONS[family])}")


def _perspective(question: str, info: dict[str, Any]) -> str | None:
    match = _PERSPECTIVE.match(question)
    name = (match.group(1) or match.group(2)) if match else None
    if name == "narrator":
        return "narrator"
    if name == info["mover"]:
        return "mover"
    if name == info["observer"]:
        return "observer"
    return None


def _story(key: str, record: Any, path: Path, narrative: str) -> tuple[str, dict[str, Any]]:
    loc = Loc(path, None)
    info = get(record, "plot_info", dict, loc, at=key)
    names = ("mover", "observer", "eoi", "original_place", "move_to_place")
    plot = {name: text(info, name, loc, at=f"{key}.plot_info") for name in names}
    observed = get(record, "observed", bool, loc, at=key)
    body = text(record, "long_narrative" if narrative == "long" else "narrative", loc, at=key)
    return body, {**plot, "observed": observed}


def _questions(path: Path, spec: QuestionFile, key: str, items: Any) -> Iterator[dict[str, Any]]:
    loc = Loc(path, None)
    if not isinstance(items, list):
        raise loc.error(key, "expected a list of questions")
    for index, item in enumerate(items):
        at = f"{key}[{index}]"
        question = text(item, "question", loc, at=at)
        kind = text(item, "type", loc, at=at)
        if kind != spec.type:
            raise loc.error(f"{at}.type", f"{kind!r} in a {spec.type!r} file")
        if "answer" not in item:
            raise loc.error(f"{at}.answer", "missing")
        family = _family(spec, question, loc, at)
        yield {"at": at, "question": question, "family": family, "answer": item["answer"]}


def _meta(spec: QuestionFile, q: dict[str, Any], plot: dict[str, Any]) -> dict[str, Any]:
    family = q["family"]
    order = {1: "fo", 2: "so"}.get(spec.order or 0)
    perspective = _perspective(q["question"], plot)
    meta: dict[str, Any] = {
        "dataset": "opentom",
        "question_type": f"{family}_{order}" if order else family,
        "question_family": family,
        "order": spec.order,
        "perspective": perspective,
        "tom": perspective != "narrator",
        "observed": plot["observed"],
        "mover": plot["mover"],
        "observer": plot["observer"],
        "entity": plot["eoi"],
        "original_place": plot["original_place"],
        "new_place": plot["move_to_place"],
    }
    if family == "fullness":
        # The official run keeps 2 of the 4 fullness questions per story at random; this says
        # which container a question is about, so a subset can be drawn the same way.
        meta["container"] = "new" if plot["move_to_place"] in q["question"] else "original"
    return meta


def _answer(
    path: Path, spec: QuestionFile, q: dict[str, Any], plot: dict[str, Any]
) -> tuple[str, list[str], list[str], dict[str, Any]]:
    """(question as asked, correct, wrong, meta) of one question."""
    meta = _meta(spec, q, plot)
    gold = _gold(q["family"], q["answer"], Loc(path, None), q["at"])
    question = q["question"]
    if q["family"] == "attitude":
        # As the official prompt asks it (build_prompt.py): the observer is told to assume
        # they saw the move.
        question = question.split("?")[0].strip() + ", assuming that you observed the action?"
    if q["family"] == "location_fine":
        places = [plot["original_place"], plot["move_to_place"]]
        labels = {_place(places[0]): "original", _place(places[1]): "new"}
        meta.update(candidates=places, candidate_labels=["original", "new"])
        meta["label"] = labels.get(_place(gold))
        return question, [gold], [], meta
    options = OPTIONS[q["family"]]
    meta.update(options=list(options), label=gold)
    return question, [gold], [o for o in options if o != gold], meta


@IMPORTERS.register("opentom")
def import_opentom(
    source: Path, *, narrative: Literal["normal", "long"] = "normal"
) -> Iterator[Sample]:
    """OpenToM (Xu et al. 2024): 23 questions per story, joined from the release's JSON files.

    Args:
        source: The ``opentom_data`` folder (or the repository / its ``data`` folder).
        narrative: ``normal`` (the 596 stories of ``meta_data.json``) or ``long`` (the 100
            long narratives of ``meta_data_long.json``, asked the same questions).
    """
    folder = _folder(source)
    meta_path = _pick(folder, META_FILES[narrative])
    stories = {
        key: _story(key, record, meta_path, narrative) for key, record in _by_key(meta_path).items()
    }
    files = {tag: _pick(folder, spec.names) for tag, spec in QUESTION_FILES.items()}
    tables = {tag: _by_key(path) for tag, path in files.items()}
    for tag, table in tables.items():
        if extra := sorted(set(table) - set(stories)):
            # The official runner only reads the stories of the metadata file, too.
            logger.warning("%s: %d story ids not in %s, skipped", files[tag], len(extra), meta_path)
    prefix = "opentom-long" if narrative == "long" else "opentom"
    for key in sorted(stories):
        for tag, spec in QUESTION_FILES.items():
            path = files[tag]
            if key not in tables[tag]:
                reason = f"no questions for story {key} of {meta_path.name}"
                raise DataError(path, None, key, reason)
            for index, q in enumerate(_questions(path, spec, key, tables[tag][key])):
                question, correct, wrong, meta = _answer(path, spec, q, stories[key][1])
                meta.update(story_id=key, question_file=path.stem, narrative=narrative)
                yield make_sample(
                    Loc(path, None),
                    id=f"{prefix}-{key}-{tag}-{index}",
                    story=stories[key][0],
                    question=question,
                    correct=correct,
                    wrong=wrong,
                    meta=meta,
                )
