"""Social IQa importer: a ``<split>.jsonl`` file zipped line by line with its labels file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tomflywheel._io import iter_jsonl, utf8_errors
from tomflywheel.datasets._common import Loc, find_source, make_sample, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="socialiqa",
        description="Social IQa (Sap et al. 2019): social commonsense, 3-way choice",
        prompt_kind="single_choice",
        judge="rules",
    )
)

OPTION_KEYS = ("answerA", "answerB", "answerC")


def _labels(path: Path) -> list[str]:
    with utf8_errors(path), path.open("r", encoding="utf-8") as handle:
        labels = [line.strip() for line in handle]
    while labels and not labels[-1]:
        labels.pop()
    for number, label in enumerate(labels, start=1):
        if label not in ("1", "2", "3"):
            raise DataError(path, number, "label", f"{label!r} is not 1, 2 or 3")
    return labels


@IMPORTERS.register("socialiqa")
def import_socialiqa(source: Path) -> Iterator[Sample]:
    """Social IQa: ``<split>.jsonl`` and ``<split>-labels.lst`` (label k = option k, 1-based).

    Args:
        source: The ``.jsonl`` file (labels beside it), or a folder holding ``dev.jsonl``.
    """
    path = find_source(source, ["dev.jsonl"], what="Social IQa dev.jsonl")
    split = re.sub(r"[^a-z]", "", path.stem.lower()) or "dev"
    labels_path = path.with_name(f"{path.stem}-labels.lst")
    if not labels_path.is_file():
        raise DataError(labels_path, None, None, "labels file not found")
    labels = _labels(labels_path)
    count = 0
    for count, (number, record) in enumerate(iter_jsonl(path), start=1):
        loc = Loc(path, number)
        if count > len(labels):
            raise DataError(labels_path, count, "label", f"missing for {path.name}:{number}")
        options = [text(record, key, loc) for key in OPTION_KEYS]
        label = int(labels[count - 1])
        gold = options[label - 1]
        yield make_sample(
            loc,
            id=f"socialiqa-{split}-{count - 1:04d}",
            story=text(record, "context", loc),
            question=text(record, "question", loc),
            correct=[gold],
            # A few records repeat an option text; never offer the gold text as a wrong option.
            wrong=list(dict.fromkeys(o for o in options if o != gold)),
            meta={
                "dataset": "socialiqa",
                "split": split,
                "options": options,
                "label": label,
                "source_line": number,
            },
        )
    if count != len(labels):
        raise DataError(labels_path, count + 1, "label", f"more labels than the {count} records")
