"""EmoBench importers: EU (emotion + cause: two linked questions per item) and EA; one language.

The questions are not stored in the data; they are the official templates
(``src/configs/prompts.yaml``). An EU item counts as right only if both its questions are.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, find_source, make_sample, text, text_list
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="emobench_eu",
        description="EmoBench EU (Sabour et al. 2024): emotion + cause, right only if both are",
        prompt_kind="single_choice",
        judge="rules",
        groupings=(("category",), ("subcategory",), ("question_type",)),
        all_correct_by="item_id",
    )
)
register_task(
    TaskSpec(
        name="emobench_ea",
        description="EmoBench EA (Sabour et al. 2024): most effective action or response",
        prompt_kind="single_choice",
        judge="rules",
        groupings=(("category",), ("question_type",)),
    )
)

QUESTIONS = {
    "en": {
        "emotion": "What emotion(s) would {subject} ultimately feel in this situation?",
        "cause": "Why would {subject} feel these emotions in this situation?",
        "ea": "In this scenario, what is the most effective {q_type} for {subject}?",
    },
    "zh": {
        "emotion": "在这种情况下，{subject}最终会感受到什么情绪？",
        "cause": "{subject}为什么会在这种情况下感受到这些情绪？",
        "ea": "在这个场景中，{subject}最有效的{q_type}是什么？",
    },
}
"""The official question templates (the Chinese EA one keeps the English Action/Response)."""


def _choice(
    record: dict[str, Any], choices_key: str, label_key: str, loc: Loc
) -> tuple[str, list[str]]:
    choices = text_list(record, choices_key, loc)
    label = text(record, label_key, loc)
    if label not in choices:
        raise loc.error(label_key, f"{label!r} is not one of {choices_key}")
    if len(set(choices)) != len(choices):
        raise loc.error(choices_key, "repeats an option")
    return label, [c for c in choices if c != label]


def _records(source: Path, name: str, language: str) -> Iterator[tuple[Loc, dict[str, Any]]]:
    path = find_source(
        source, [f"{name}.jsonl", f"data/{name}.jsonl"], what=f"EmoBench {name}.jsonl"
    )
    for number, record in iter_jsonl(path):
        loc = Loc(path, number)
        if text(record, "language", loc) == language:
            yield loc, record


@IMPORTERS.register("emobench_eu")
def import_emobench_eu(source: Path, *, language: Literal["en", "zh"] = "en") -> Iterator[Sample]:
    """EmoBench Emotional Understanding: per item an emotion question and a cause question.

    Args:
        source: ``EU.jsonl``, or the benchmark folder (``data/EU.jsonl``).
        language: English or Chinese records.
    """
    templates = QUESTIONS[language]
    for loc, record in _records(Path(source), "EU", language):
        qid, subject = text(record, "qid", loc), text(record, "subject", loc)
        common = {
            "dataset": "emobench_eu",
            "language": language,
            "category": text(record, "coarse_category", loc),
            "subcategory": text(record, "finegrained_category", loc),
            "item_id": f"{language}-{qid}",
            "source_id": qid,
            "subject": subject,
        }
        for kind, choices, label in (
            ("emotion", "emotion_choices", "emotion_label"),
            ("cause", "cause_choices", "cause_label"),
        ):
            gold, wrong = _choice(record, choices, label, loc)
            yield make_sample(
                loc,
                id=f"emobench_eu-{language}-{qid}-{kind}",
                story=text(record, "scenario", loc),
                question=templates[kind].format(subject=subject),
                correct=[gold],
                wrong=wrong,
                meta={**common, "question_type": kind, "options": record[choices]},
            )


@IMPORTERS.register("emobench_ea")
def import_emobench_ea(source: Path, *, language: Literal["en", "zh"] = "en") -> Iterator[Sample]:
    """EmoBench Emotional Application: the most effective action or response for the subject.

    Args:
        source: ``EA.jsonl``, or the benchmark folder (``data/EA.jsonl``).
        language: English or Chinese records.
    """
    for loc, record in _records(Path(source), "EA", language):
        qid, subject = text(record, "qid", loc), text(record, "subject", loc)
        q_type = text(record, "question type", loc)
        gold, wrong = _choice(record, "choices", "label", loc)
        yield make_sample(
            loc,
            id=f"emobench_ea-{language}-{qid}",
            story=text(record, "scenario", loc),
            question=QUESTIONS[language]["ea"].format(q_type=q_type, subject=subject),
            correct=[gold],
            wrong=wrong,
            meta={
                "dataset": "emobench_ea",
                "language": language,
                "category": text(record, "category", loc),
                "question_type": q_type.lower(),
                "source_id": qid,
                "subject": subject,
                "options": record["choices"],
            },
        )
