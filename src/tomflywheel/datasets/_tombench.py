"""ToMBench importer: 20 bilingual JSONL files of 2- or 4-option questions, one language each."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, make_sample, slug, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="tombench",
        description="ToMBench (Chen et al. 2024): 8 tasks + ATOMS abilities, 2/4-way choice",
        prompt_kind="single_choice",
        judge="rules",
        groupings=(("ability_category",), ("ability",), ("task",)),
    )
)

ABILITY = "能力\nABILITY"
INDEX = "序号\nINDEX"
ANSWER = "答案\nANSWER"
LETTERS = "ABCD"
FIELDS = {
    "en": {"story": "STORY", "question": "QUESTION", "option": "OPTION-{}"},
    "zh": {"story": "故事", "question": "问题", "option": "选项{}"},
}
"""The keys of each language's side of a record."""
CATEGORIES = ("Emotion", "Desire", "Intention", "Knowledge", "Belief", "Non-Literal Communication")
"""ATOMS ability categories, spelled canonically (the data mixes ``Non-literal communication``)."""


def normalize_ability(label: str) -> tuple[str, str]:
    """(ability, category): whitespace collapsed, category spelled as in ``CATEGORIES``."""
    ability = " ".join(label.split())
    head, _, rest = ability.partition(":")
    canonical = {c.lower(): c for c in CATEGORIES}
    category = canonical.get(head.strip().lower(), head.strip())
    return (f"{category}:{rest}" if rest else category), category


def _options(record: dict[str, Any], language: str, loc: Loc) -> dict[str, str]:
    """Letter -> option text, prefixes such as ``A. `` removed; NaN/null options left out."""
    options: dict[str, str] = {}
    for letter in LETTERS:
        key = FIELDS[language]["option"].format(letter)
        value = record.get(key)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        if not isinstance(value, str):
            raise loc.error(key, f"expected a string or NaN, got {type(value).__name__}")
        stripped = re.sub(rf"^\s*{letter}\.\s*", "", value).strip()
        if not stripped:
            raise loc.error(key, "empty")
        options[letter] = stripped
    return options


def _files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    folder = source / "data" if (source / "data").is_dir() else source
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise DataError(source, None, None, "no ToMBench .jsonl files here (or in data/)")
    return files


@IMPORTERS.register("tombench")
def import_tombench(source: Path, *, language: Literal["en", "zh"] = "en") -> Iterator[Sample]:
    """ToMBench from its ``data/<task>.jsonl`` files (bare ``NaN`` and keys with newlines handled).

    Args:
        source: The benchmark folder, its ``data`` folder, or one task file.
        language: Which side of the bilingual records to import (English or Chinese).
    """
    keys = FIELDS[language]
    for path in _files(Path(source)):
        task = path.stem
        records = list(iter_jsonl(path))
        if not records:
            # Every task has questions; an empty file is a failed download, not a task to drop.
            raise DataError(path, None, None, "no records (every ToMBench task file has some)")
        for index, (number, record) in enumerate(records):
            loc = Loc(path, number)
            options = _options(record, language, loc)
            if len(options) < 2:
                raise loc.error(keys["option"].format("B"), "fewer than 2 options")
            # One gold is stored as "A. " instead of "A": keep the first letter.
            gold = text(record, ANSWER, loc).strip()[:1]
            if gold not in options:
                raise loc.error(ANSWER, f"{record[ANSWER]!r} names no option")
            ability, category = normalize_ability(text(record, ABILITY, loc))
            yield make_sample(
                loc,
                id=f"tombench-{language}-{slug(task)}-{index:03d}",
                story=text(record, keys["story"], loc),
                question=text(record, keys["question"], loc),
                correct=[options[gold]],
                # Two records repeat a wrong option: offer each text once, never the gold text.
                wrong=list(dict.fromkeys(o for o in options.values() if o != options[gold])),
                meta={
                    "dataset": "tombench",
                    "language": language,
                    "task": task,
                    "ability": ability,
                    "ability_category": category,
                    "source_index": record.get(INDEX),
                    "source_line": number,
                    "options": list(options.values()),
                    "gold_letter": gold,
                },
            )
