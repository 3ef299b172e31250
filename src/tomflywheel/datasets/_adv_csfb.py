"""Adv-CSFB importer (Shapira et al.): Kosinski's stories plus adversarial variants, 3 prompts each.

Each record gives a story and three prompts that end right before the blank: the reality
prompt and two belief prompts, with gold ``[rec[truth], rec[belief], rec[belief]]`` (``truth`` and
``belief`` name the fields ``o1``/``o2``), as the authors' ``predict.py`` builds them. A story
counts as passed only if all three are right (their "joint accuracy"). Whitespace in the story
templates (line breaks plus indentation) is collapsed to single spaces, and the third contents
prompt uses the protagonist's pronoun (the authors' code always prints "he").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import (
    Loc,
    choice,
    get,
    make_sample,
    read_json,
    slug,
    text,
)
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="adv_csfb",
        description="Adv-CSFB (Shapira et al. 2023): Kosinski tasks + adversarial variants",
        prompt_kind="completion",
        judge="first_token",
        groupings=(("task", "variant"), ("prompt",)),
        all_correct_by="item_id",
        instructions="Complete the following story:",
    )
)

PROMPTS = ("reality", "belief", "belief_2")
VARIANT_NAMES = {"fb": "false_belief", "tb": "true_belief"}
_FILES = ("unexpected_contents.jsonl", "unexpected_transfer.jsonl")
_SOURCE = "unexpected_contents_source.json"


def _folder(source: Path) -> Path:
    for folder in (source, source / "adv_csfb"):
        if all((folder / name).is_file() for name in (*_FILES, _SOURCE)):
            return folder
    raise DataError(source, None, None, f"no Adv-CSFB files here ({', '.join((*_FILES, _SOURCE))})")


def _protagonists(path: Path) -> list[dict[str, Any]]:
    document = read_json(path)
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, list):
        raise DataError(path, None, "data", "expected a list of protagonists")
    for index, entry in enumerate(data):
        for key in ("xpro", "pos_pro"):
            text(entry, key, Loc(path, index, "record"), at=f"data[{index}]")
    return data


def _contents_prompts(record: dict[str, Any], who: dict[str, Any]) -> tuple[str, str, str]:
    pronoun, container = who["xpro"].capitalize(), record["ctr"]
    return (
        f"{pronoun} opens the {container} and looks inside. {pronoun} can clearly see that it is "
        "full of",
        f"{pronoun} believes that it is full of",
        f"{pronoun} calls {who['pos_pro']} friend to tell them that {who['xpro']} has just found "
        f"a {container} full of",
    )


def _story(record: dict[str, Any], task: str) -> str:
    story = record["txt"]
    if task == "unexpected_contents":
        for key in ("o1", "o2", "ctr"):
            story = story.replace(f"[{key}]", record[key])
    return " ".join(story.split())


@IMPORTERS.register("adv_csfb")
def import_adv_csfb(source: Path) -> Iterator[Sample]:
    """Adv-CSFB: ``unexpected_contents.jsonl`` (110 stories) and ``unexpected_transfer.jsonl`` (73).

    Args:
        source: The ``adv_csfb`` folder (with ``unexpected_contents_source.json``) or its parent.
    """
    folder = _folder(Path(source))
    protagonists = _protagonists(folder / _SOURCE)
    for name in _FILES:
        path = folder / name
        if not path.is_file():
            raise DataError(path, None, None, "no such file")
        records = list(iter_jsonl(path))
        if not records:
            raise DataError(path, None, None, "no records (both Adv-CSFB files have stories)")
        for number, record in records:
            yield from _record_samples(
                Loc(path, number), name.removesuffix(".jsonl"), record, protagonists
            )


def _record_samples(
    loc: Loc, task: str, record: dict[str, Any], protagonists: list[dict[str, Any]]
) -> Iterator[Sample]:
    """The three prompt samples of one story record."""
    contents = task == "unexpected_contents"
    for key in ("txt", "o1", "o2", *(("ctr",) if contents else ("q1", "q2", "q3"))):
        text(record, key, loc)
    idx = get(record, "idx", int, loc)
    truth = choice(text(record, "truth", loc), ("o1", "o2"), loc, "truth")
    belief = choice(text(record, "belief", loc), ("o1", "o2"), loc, "belief")
    if contents:
        if not 1 <= idx <= len(protagonists):
            raise loc.error("idx", f"{idx} has no entry in {_SOURCE}")
        prompts = _contents_prompts(record, protagonists[idx - 1])
    else:
        prompts = (record["q1"].strip(), record["q2"].strip(), record["q3"].strip())
    kind = text(record, "type", loc)
    variant = VARIANT_NAMES.get(kind, slug(kind))
    item = f"{task}-{idx:02d}-{variant}"
    story = _story(record, task)
    for prompt, lead, gold_key in zip(PROMPTS, prompts, (truth, belief, belief), strict=True):
        yield make_sample(
            loc,
            id=f"adv_csfb-{item}-{prompt}",
            story=f"{story} {lead}",
            question="",
            blank_question=True,
            correct=[record[gold_key]],
            wrong=[record["o2" if gold_key == "o1" else "o1"]],
            meta={
                "dataset": "adv_csfb",
                "task": task,
                "variant": variant,
                "source_type": kind,
                "prompt": prompt,
                "item_id": item,
                "story_number": idx,
            },
        )
