"""Question wording per benchmark style, and answers as text."""

from __future__ import annotations

from typing import Literal

from tomflywheel.world.language._phrases import name_list
from tomflywheel.world.model import (
    Answer,
    DropMove,
    QuestionSpec,
    ReplaceClaim,
    SetExits,
    SetMotive,
)

Style = Literal["tomi", "hitom", "tgtom"]
"""Which benchmark's wording to use."""


def _think_chain(chain: tuple[str, ...]) -> str:
    """``A think B thinks C thinks ...`` (the first verb agrees with "does")."""
    return " ".join([f"{chain[0]} think", *(f"{name} thinks" for name in chain[1:])])


def _tomi(spec: QuestionSpec) -> str:
    obj = spec.subject
    if spec.kind == "memory":
        return f"Where was the {obj} at the beginning?"
    if spec.kind == "reality":
        return f"Where is the {obj} really?"
    if spec.kind == "belief" and len(spec.chain) == 1:
        return f"Where will {spec.chain[0]} look for the {obj}?"
    if spec.kind == "belief":
        parts = [f"{spec.chain[0]} think that", *(f"{a} thinks that" for a in spec.chain[1:-1])]
        return f"Where does {' '.join(parts)} {spec.chain[-1]} searches for the {obj}?"
    raise ValueError(f"ToMi style has no {spec.kind} question")


def _hitom(spec: QuestionSpec) -> str:
    obj = spec.subject
    if spec.kind == "reality":
        return f"Where is the {obj} really?"
    if spec.kind == "memory":
        return f"Where was the {obj} at the beginning?"
    if spec.kind == "belief" and len(spec.chain) == 1:
        return f"Where does {spec.chain[0]} really think the {obj} is?"
    if spec.kind == "belief":
        return f"Where does {_think_chain(spec.chain)} the {obj} is?"
    raise ValueError(f"Hi-ToM style has no {spec.kind} question")


def _motive_text(help_target: str | None, hide_target: str | None) -> str:
    parts = []
    if help_target is not None:
        parts.append(f"help {help_target} find it later")
    if hide_target is not None:
        parts.append(f"hide it from {hide_target}")
    return " and ".join(parts) if parts else "no stated motive"


def _premise(spec: QuestionSpec, obj: str) -> str:
    edit = spec.edit
    if edit is None:
        return ""
    if isinstance(edit, DropMove):
        return f"Suppose {spec.actor}'s move at line {edit.line} had not happened. "
    if isinstance(edit, ReplaceClaim):
        return (
            f"Suppose {spec.actor} had said the {obj} is in the {edit.value} at line {edit.line}. "
        )
    if isinstance(edit, SetMotive):
        return (
            f"Suppose {spec.actor}'s move at line {edit.line} had been to "
            f"{_motive_text(edit.help, edit.hide)}. "
        )
    if isinstance(edit, SetExits) and len(edit.exits) == 2:
        (a, m), (b, n) = edit.exits
        return (
            f"Suppose {a} had exited at line {m} and {b} had exited at line {n} "
            "(their exit times swapped). "
        )
    (a, m), *_ = edit.exits
    return f"Suppose {a} had exited at line {m}. "


def _tgtom(spec: QuestionSpec) -> str:
    obj = spec.subject
    premise = _premise(spec, obj)
    if spec.kind == "reality":
        return premise + f"Where is the {obj}?"
    if spec.kind == "belief" and len(spec.chain) == 1:
        if spec.edit is not None:
            return premise + f"Where would {spec.chain[0]} now believe the {obj} is?"
        return f"Where does {spec.chain[0]} think the {obj} is?"
    if spec.kind == "belief":
        return premise + f"What does {_think_chain(spec.chain)}?"
    if spec.kind == "intent":
        return premise + f"What does {_think_chain(spec.chain)} {spec.actor}'s intent was?"
    if spec.kind == "cause":
        return premise + (
            f"Which event caused {spec.chain[0]}'s final belief about the {obj} to take its "
            "current value? Answer with the line number from the story."
        )
    if spec.kind == "common_knowledge":
        verb = "Would" if spec.edit is not None else "Is"
        then = "then be " if spec.edit is not None else ""
        return premise + (
            f"{verb} the location of the {obj} {then}common knowledge among "
            f"{name_list(spec.group)}? Answer yes (with the location) or no."
        )
    raise ValueError(f"tgtom style has no {spec.kind} question")


def question_text(spec: QuestionSpec, style: Style = "tomi") -> str:
    """The question in a benchmark's wording (tgtom premises need ``spec.actor`` for Q5-Q7, Q6).

    Raises:
        ValueError: The style has no wording for this kind of question.
    """
    if style == "tomi":
        return _tomi(spec)
    if style == "hitom":
        return _hitom(spec)
    return _tgtom(spec)


ANSWER_FORMATS = {
    "container": "Answer format: the container's name exactly as written in the story.",
    "intent": 'Answer format: "help: <name or none>; hide: <name or none>", or "none" if the '
    "intent cannot be known.",
    "line": "Answer format: the line number only.",
    "common_knowledge": 'Answer format: "yes: <container>" or "no".',
}
"""The answer-format note a question ends with, by answer kind (tgtom style)."""


def answer_format(spec: QuestionSpec) -> str:
    """The answer-format note for a question (tgtom style), by what it asks."""
    kind = {"intent": "intent", "cause": "line", "common_knowledge": "common_knowledge"}.get(
        spec.kind, "container"
    )
    return ANSWER_FORMATS[kind]


def answer_text(answer: Answer) -> str:
    """An answer as one canonical line, the same as the tgtom importer's encoding.

    A container, ``help: X; hide: none``, ``yes: <c>`` / ``no``, a line number; ``none`` when an
    intent cannot be known.
    """
    if answer is None:
        return "none"
    if isinstance(answer, str):
        return answer
    if isinstance(answer, int):
        return str(answer)
    if "common_knowledge" in answer:
        return f"yes: {answer['shared_location']}" if answer["common_knowledge"] else "no"
    if "line" in answer:
        return str(answer["line"])
    help_target, hide_target = answer.get("help_target"), answer.get("hide_target")
    return f"help: {help_target or 'none'}; hide: {hide_target or 'none'}"
