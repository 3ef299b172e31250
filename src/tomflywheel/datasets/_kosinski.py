"""Kosinski false-belief tasks: unexpected contents / transfer as sentence-completion prompts.

Built as the evaluator of ``ToM_tasks.py`` builds them (Wu et al. 2025, Kosinski's items): four
story variants per task (the false-belief story and three true-belief controls), each also
"reversed" (the two objects swapped in the text), each with two prompts: reality and belief. A
story counts as passed only if both of its prompts are completed with the expected word.
Two deliberate differences from that evaluator's templates: the informed-protagonist sentence
ends "believes his/her cousin" (it prints "believes him cousin"), and story 17's open-container
ending says the CDs hold the true music, S1 (it says "can can clearly hear ... S2 music", which
contradicts the expected answer).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tomflywheel.datasets._common import Loc, find_source, get, make_sample, read_json, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="kosinski",
        description="Kosinski unexpected contents/transfer: completions, both prompts must pass",
        prompt_kind="completion",
        judge="first_token",
        groupings=(("task", "variant"), ("task", "variant", "reversed"), ("prompt",)),
        all_correct_by="item_id",
        instructions="Complete the following story:",
    )
)

CONTENTS_VARIANTS = ("false_belief", "correct_label", "informed_protagonist", "open_container")
TRANSFER_VARIANTS = ("false_belief", "no_transfer", "informed_protagonist", "present_protagonist")
_SOURCE_KEY = {
    "false_belief": "txt",
    "correct_label": "txt_correctlabel",
    "no_transfer": "txt_notransfer",
    "present_protagonist": "txt_present",
}
_CONTENTS_KEYS = ("txt", "txt_correctlabel", "o1", "o2", "c", "xnam", "xpro", "obj_pro", "pos_pro")
_TRANSFER_KEYS = ("txt", "txt_notransfer", "txt_informed", "txt_present", "o1", "o2", "q1", "q2")


def _swap(value: str, a: str, b: str) -> str:
    return value.replace(a, "####").replace(b, a).replace("####", b)


def _contents_story(task: dict[str, Any], variant: str) -> str:
    number = task["NUMBER"]
    base = task["txt_correctlabel"] if variant == "correct_label" else task["txt"]
    if variant == "open_container":
        ending = {
            1: " XNAM connects to the CX and explores its contents. XNAM reads the label on the "
            "CX.",
            17: " XNAM puts one in a CD player and listens to the songs. XNAM can clearly hear "
            "that it is full of S1 music.",
        }.get(number, " XNAM opens the CX and looks inside. XNAM reads the label.")
    else:
        ending = {
            1: " XNAM does not connect to the CX and does not explore its contents. XNAM reads the "
            "label on the CX. ",
            17: " XNAM does not open the box and does not listen to any of the CDs. XNAM reads the "
            "label.",
        }.get(number, " XNAM does not open the CX and does not look inside. XNAM reads the label.")
    story = base + ending
    if variant == "informed_protagonist":
        story += (
            " A cousin calls XNAM and tells OBJ_PRO that the CX has S1 in it, and that XPRO should"
            ' ignore the label that says "S2". XNAM believes POS_PRO cousin.'
        )
    for key, value in (("S1", "o1"), ("S2", "o2"), ("CX", "c"), ("XNAM", "xnam"), ("XPRO", "xpro")):
        story = story.replace(key, task[value])
    story = story.replace("OBJ_PRO", task["obj_pro"]).replace("POS_PRO", task["pos_pro"])
    return story.replace(". h", ". H").replace(". s", ". S")


def _contents_prompts(task: dict[str, Any]) -> tuple[str, str]:
    pronoun, container = task["xpro"].capitalize(), task["c"]
    looks = (
        "puts one in a CD player and listens to the songs"
        if task["NUMBER"] == 17
        else (f"opens the {container} and looks inside")
    )
    sees = "hear" if task["NUMBER"] == 17 else "see"
    reality = f"{pronoun} {looks}. {pronoun} can clearly {sees} that it is full of"
    verb = "received" if task["NUMBER"] in (12, 14) else "found"
    belief = f"{task['xnam']} calls a friend to tell them that {task['xpro']} has just {verb} a"
    return reality, f"{belief} {container} full of"


@dataclass(frozen=True, slots=True)
class _Story:
    loc: Loc
    task: str
    number: int
    variant: str
    text: str
    prompts: tuple[str, str]
    expected: tuple[str, str]
    objects: tuple[str, str]


def _contents(task: dict[str, Any], loc: Loc, number: int) -> Iterator[_Story]:
    o1, o2 = task["o1"], task["o2"]
    for variant in CONTENTS_VARIANTS:
        expected = (o1, o2) if variant == "false_belief" else (o1, o1)
        yield _Story(
            loc,
            "unexpected_contents",
            number,
            variant,
            _contents_story(task, variant),
            _contents_prompts(task),
            expected,
            (o1, o2),
        )


def _transfer(task: dict[str, Any], loc: Loc, number: int) -> Iterator[_Story]:
    o1, o2 = task["o1"], task["o2"]
    for variant in TRANSFER_VARIANTS:
        if variant == "informed_protagonist":
            story = task["txt"] + " " + task["txt_informed"]
        else:
            story = task[_SOURCE_KEY[variant]]
        expected = {"false_belief": (o1, o2), "no_transfer": (o2, o2)}.get(variant, (o1, o1))
        yield _Story(
            loc,
            "unexpected_transfer",
            number,
            variant,
            story,
            (task["q1"], task["q2"]),
            expected,
            (o1, o2),
        )


def _stories(data: dict[str, Any], path: Path) -> Iterator[_Story]:
    for key, build, required in (
        ("tsks1", _contents, _CONTENTS_KEYS),
        ("tsks2", _transfer, _TRANSFER_KEYS),
    ):
        tasks = data.get(key)
        if not isinstance(tasks, list):
            raise DataError(path, None, key, "expected a list of tasks")
        for index, task in enumerate(tasks):
            loc = Loc(path, index, "record")
            at = f"{key}[{index}]"
            for field in required:
                text(task, field, loc, at=at)
            yield from build(task, loc, get(task, "NUMBER", int, loc, at=at))


def _samples(story: _Story, reversed_: bool) -> Iterator[Sample]:
    o1, o2 = story.objects
    body, expected = story.text, story.expected
    if reversed_:
        body = _swap(body, o1, o2)
        expected = (_swap(expected[0], o1, o2), _swap(expected[1], o1, o2))
    item = (
        f"{story.task}-{story.number:02d}-{story.variant}-{'reversed' if reversed_ else 'original'}"
    )
    for prompt, lead, gold in zip(("reality", "belief"), story.prompts, expected, strict=True):
        yield make_sample(
            story.loc,
            id=f"kosinski-{item}-{prompt}",
            story=f"{body} {lead}",
            question="",
            blank_question=True,
            correct=[gold],
            wrong=[o2 if gold == o1 else o1],
            meta={
                "dataset": "kosinski",
                "task": story.task,
                "variant": story.variant,
                "reversed": reversed_,
                "prompt": prompt,
                "item_id": item,
                "story_number": story.number,
            },
        )


@IMPORTERS.register("kosinski")
def import_kosinski(source: Path) -> Iterator[Sample]:
    """Kosinski's 20 unexpected-contents and 20 unexpected-transfer tasks (``ToM_tasks.json``).

    Args:
        source: ``ToM_tasks.json`` (keys ``tsks1``/``tsks2``, or the evaluator's ``s1``/``s2``)
            or a folder holding it.
    """
    path = find_source(source, ["ToM_tasks.json"], what="Kosinski ToM_tasks.json")
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataError(path, None, None, "expected an object with tsks1 and tsks2")
    data = {"tsks1": data.get("tsks1", data.get("s1")), "tsks2": data.get("tsks2", data.get("s2"))}
    for story in _stories(data, path):
        for reversed_ in (False, True):
            yield from _samples(story, reversed_)
