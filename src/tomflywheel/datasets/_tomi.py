"""ToMi importers: bAbI ``.txt`` + ``.trace`` pairs (open QA), and the 2-candidate CSV variant."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from tomflywheel._io import utf8_errors
from tomflywheel.datasets._common import (
    Loc,
    choice,
    find_source,
    make_sample,
    read_csv_dicts,
    with_space_form,
)
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError, PathError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

QUESTION_TYPES = (
    "memory",
    "reality",
    *(
        f"{order}_order_{variant}_{tom}"
        for order in ("first", "second")
        for variant in (0, 1)
        for tom in ("tom", "no_tom")
    ),
)
STORY_TYPES = ("true_belief", "false_belief", "second_order_false_belief")
SPLITS = ("train", "val", "test")
_LINE = re.compile(r"^(\d+) (.*)$")
# Object names may hold a hyphen (the generator's "t-shirt").
_CONTAINER = re.compile(r"^(?:The [\w-]+ is in|\w+ moved the [\w-]+ to) the (\w+)\.?$")

register_task(
    TaskSpec(
        name="tomi",
        description="ToMi (Le et al. 2019): open QA, one location word per question",
        prompt_kind="open",
        judge="hybrid",
        groupings=(("question_type",), ("story_type",)),
        excludable_question_types=("memory", "reality"),
    )
)
register_task(
    TaskSpec(
        name="tomi_2cand",
        description="ToMi 2-candidate subset (Sap et al. 2022 CSV): 2-way single choice",
        prompt_kind="single_choice",
        judge="rules",
        groupings=(("question_type",), ("story_type",)),
        excludable_question_types=("memory", "reality"),
    )
)


def _family(question_type: str) -> str:
    if question_type in ("memory", "reality"):
        return question_type
    return question_type.split("_order")[0] + "_order"


def _tom(question_type: str) -> bool | None:
    if question_type in ("memory", "reality"):
        return None
    return not question_type.endswith("_no_tom")


def _examples(path: Path) -> Iterator[tuple[int, list[str], str, str]]:
    """(question line number, story sentences, question, answer) for each bAbI example."""
    story: list[str] = []
    number = 0
    with utf8_errors(path), path.open("r", encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            match = _LINE.match(line)
            if not match:
                raise DataError(path, number, "line_number", "expected '<n> <sentence>'")
            if int(match.group(1)) != len(story) + 1:
                expected = len(story) + 1
                raise DataError(path, number, "line_number", f"expected {expected}")
            body = match.group(2)
            if "\t" not in body:
                story.append(body)
                continue
            parts = body.split("\t")
            if len(parts) != 3:
                raise DataError(path, number, None, "expected question<TAB>answer<TAB>facts")
            question, answer = parts[0].strip(), parts[1].strip()
            if not question:
                raise DataError(path, number, "question", "empty")
            if not answer:
                raise DataError(path, number, "answer", "empty")
            yield number, story, question, answer
            story = []
    if story:
        raise DataError(path, number, "question", "example ends without a question line")


def _traces(path: Path) -> list[tuple[list[str], str, str]]:
    """(events, question type, story type) per line of a ``.trace`` file."""
    traces = []
    with utf8_errors(path), path.open("r", encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            fields = raw.strip().split(",")
            if len(fields) < 2 or not raw.strip():
                raise DataError(
                    path, number, None, "expected '<events>,<question type>,<story type>'"
                )
            loc = Loc(path, number)
            qtype = choice(fields[-2], QUESTION_TYPES, loc, "question_type")
            stype = choice(fields[-1], STORY_TYPES, loc, "story_type")
            traces.append((fields[:-2], qtype, stype))
    return traces


def _candidates(story: list[str], answer: str) -> list[str] | None:
    found = [m.group(1) for s in story if (m := _CONTAINER.match(s.strip()))]
    unique = list(dict.fromkeys(found))
    return unique if answer in unique and len(unique) >= 2 else None


def _split_names(split: str) -> list[str]:
    """The names a split may have (release naming, then generator naming)."""
    return [f"fb_all_{split}.txt", f"{split}.txt"]


def _holds_splits(folder: Path, *, with_trace: bool) -> bool:
    """Whether ``folder`` holds a split's ``.txt`` (and, ``with_trace``, its ``.trace``)."""
    return any(
        (folder / name).is_file()
        and (not with_trace or (folder / name).with_suffix(".trace").is_file())
        for split in SPLITS
        for name in _split_names(split)
    )


def release_folder(source: Path) -> Path:
    """The folder holding ToMi's split files: ``source``, or the one folder below it that does.

    A folder holding the release folder (``tomi/`` with ``tomi_balanced_story_types/`` inside,
    or ``benchmarks/`` with ``tomi/tomi_balanced_story_types/``) is searched two levels down.

    Raises:
        DataError: ``source`` is not a folder, or neither it nor one folder below it holds split
            files, or several do.
    """
    folder = Path(source)
    if not folder.is_dir():
        raise PathError(folder, None, None, "not a folder")
    if _holds_splits(folder, with_trace=False):
        return folder
    below = [d for d in sorted([*folder.glob("*/"), *folder.glob("*/*/")]) if d.is_dir()]
    # Below the folder only a complete split counts: a lone test.txt is no ToMi release.
    found = [d for d in below if _holds_splits(d, with_trace=True)]
    if len(found) == 1:
        return found[0]
    if found:
        raise DataError(
            folder,
            None,
            None,
            f"several ToMi releases here ({', '.join(str(d) for d in found)}); name one",
        )
    looked = ", ".join(name for s in sorted(SPLITS) for name in _split_names(s))
    raise DataError(
        folder,
        None,
        None,
        f"no ToMi split here (looked for {looked} in the folder, and with its .trace two "
        "levels below)",
    )


def _split_files(source: Path, split: str) -> tuple[Path, str]:
    if Path(source).is_dir():
        source = release_folder(source)
    txt = find_source(source, _split_names(split), what=f"ToMi {split} split")
    named = re.fullmatch(r"(?:fb_all_)?(train|val|test)", txt.stem)
    return txt, named.group(1) if named and source.is_file() else split


def tomi_splits(source: Path) -> list[str]:
    """The splits a ToMi folder holds, in name order (``test``, ``train``, ``val``).

    The folder may also hold the release folder (see :func:`release_folder`).

    Raises:
        DataError: ``source`` is not a folder, or holds no split file.
    """
    folder = release_folder(source)
    return [s for s in sorted(SPLITS) if any((folder / n).is_file() for n in _split_names(s))]


@IMPORTERS.register("tomi")
def import_tomi(
    source: Path, *, split: Literal["train", "val", "test"] = "test"
) -> Iterator[Sample]:
    """ToMi from its bAbI ``.txt`` file and the ``.trace`` file beside it.

    Args:
        source: A folder with ``fb_all_<split>.txt`` (release naming) or ``<split>.txt``
            (generator naming) and the matching ``.trace``, or one ``.txt`` file (its split is
            read from its name when it names one).
        split: Which split to read from a folder.
    """
    txt, split_name = _split_files(source, split)
    trace_path = txt.with_suffix(".trace")
    if not trace_path.is_file():
        raise DataError(trace_path, None, None, "trace file not found (needed for question types)")
    traces = _traces(trace_path)
    count = 0
    for count, (number, story, question, answer) in enumerate(_examples(txt), start=1):
        if count > len(traces):
            raise DataError(
                trace_path, count, None, f"no trace line for the question at {txt.name}:{number}"
            )
        events, qtype, stype = traces[count - 1]
        meta: dict[str, Any] = {
            "dataset": "tomi",
            "split": split_name,
            "question_type": qtype,
            "story_type": stype,
            "question_family": _family(qtype),
            "tom": _tom(qtype),
            "tomi_trace": events,
            "source_line": number,
        }
        if (candidates := _candidates(story, answer)) is not None:
            meta["candidates"] = candidates
        yield make_sample(
            Loc(txt, number),
            id=f"tomi-{split_name}-{count - 1:06d}",
            story="\n".join(story),
            question=question,
            correct=with_space_form(answer),
            meta=meta,
        )
    if len(traces) != count:
        raise DataError(trace_path, count + 1, None, f"more trace lines than the {count} questions")


_CSV_COLUMNS = ("story", "question", "answer", "dataGenSeq", "sType", "qTypeRaw", "qOrder")


@IMPORTERS.register("tomi_2cand")
def import_tomi_2cand(source: Path) -> Iterator[Sample]:
    """ToMi's 2-candidate CSV (``ToMi-finalNeuralTOM.csv``): each question with its two answers.

    Args:
        source: The CSV file, or a folder holding ``ToMi-finalNeuralTOM.csv``.
    """
    path = find_source(source, ["ToMi-finalNeuralTOM.csv"], what="ToMi 2-candidate CSV")
    columns = (*_CSV_COLUMNS, "cands", "correct")
    for index, (number, row) in enumerate(read_csv_dicts(path, columns)):
        loc = Loc(path, number)
        try:
            cands = json.loads(row["cands"])
        except json.JSONDecodeError as err:
            raise loc.error("cands", f"invalid JSON ({err.msg})") from err
        if (
            not isinstance(cands, list)
            or len(cands) != 2
            or not all(isinstance(c, str) for c in cands)
        ):
            raise loc.error("cands", "expected a JSON list of 2 strings")
        correct = choice(row["correct"], ("0", "1"), loc, "correct")
        gold = cands[int(correct)]
        if gold != row["answer"]:
            raise loc.error("answer", f"{row['answer']!r} differs from cands[{correct}] {gold!r}")
        qtype = choice(row["qTypeRaw"], QUESTION_TYPES, loc, "qTypeRaw")
        yield make_sample(
            loc,
            id=f"tomi_2cand-{index:04d}",
            story=row["story"],
            question=row["question"],
            correct=[gold],
            wrong=[cands[1 - int(correct)]],
            meta={
                "dataset": "tomi_2cand",
                "question_type": qtype,
                "story_type": choice(row["sType"], STORY_TYPES, loc, "sType"),
                "question_family": row["qOrder"],
                "tom": _tom(qtype),
                "gold_is": row.get("answerMemOrReal"),
                "fact_vs_mind": row.get("factVsMind"),
                "tomi_trace": row["dataGenSeq"].split(","),
                "options": cands,
                "source_line": number,
            },
        )
