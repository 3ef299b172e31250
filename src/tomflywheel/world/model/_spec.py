"""What a question asks, as data: the question spec both verifiers answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tomflywheel.world.model._edits import Edit, edit_from_dict, edit_to_dict
from tomflywheel.world.model._events import LOCATION, Fact

QuestionKind = Literal["memory", "reality", "belief", "intent", "cause", "common_knowledge"]
"""What is asked: first value, true value, a (nested) belief, a move's motive as a chain
believes it, the event behind an agent's belief, or whether a value is common knowledge."""

# A tuple, not a set: a kind that is an unhashable JSON value must fail as an unknown kind.
_KINDS = ("memory", "reality", "belief", "intent", "cause", "common_knowledge")

Answer = str | int | dict[str, Any] | None
"""A derived answer: a value (container), a line number, a small dict, or None."""


@dataclass(frozen=True, slots=True)
class QuestionSpec:
    """One question about a story.

    Args:
        kind: What is asked.
        subject: The object (or container, for contents) the question is about.
        attribute: The fact's attribute: ``location`` or ``contents``.
        chain: ``belief``: who thinks what, outermost first ("A thinks B thinks": ``(A, B)``);
            ``intent``: the chain that judges the move; ``cause``: the one agent.
        group: ``common_knowledge``: the agent set.
        actor: ``intent``: whose move.
        occurrence: ``intent``: which of the actor's moves (0-based).
        edit: A counterfactual edit applied to the story first.
        qtype: The question type label (``first_order_0_tom``, ``Q5``, ``order_2``, ...).
    """

    kind: QuestionKind
    subject: str
    attribute: str = LOCATION
    chain: tuple[str, ...] = ()
    group: tuple[str, ...] = ()
    actor: str | None = None
    occurrence: int = 0
    edit: Edit | None = None
    qtype: str = ""

    @property
    def fact(self) -> Fact:
        """The fact asked about."""
        return (self.subject, self.attribute)

    @property
    def order(self) -> int:
        """ToM order: 0 for memory/reality, the chain length for beliefs and intents."""
        if self.kind in ("belief", "intent"):
            return len(self.chain)
        if self.kind == "cause":
            return 1
        if self.kind == "common_knowledge":
            return len(self.group)
        return 0

    def to_dict(self) -> dict[str, Any]:
        """The spec as plain JSON."""
        return {
            "kind": self.kind,
            "subject": self.subject,
            "attribute": self.attribute,
            "chain": list(self.chain),
            "group": list(self.group),
            "actor": self.actor,
            "occurrence": self.occurrence,
            "edit": edit_to_dict(self.edit) if self.edit is not None else None,
            "qtype": self.qtype,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuestionSpec:
        """Rebuild a spec from :meth:`to_dict` output.

        Raises:
            ValueError: A bad kind or edit.
        """
        get = data.get
        kind = get("kind")
        if kind not in _KINDS:
            raise ValueError(f"unknown question kind {kind!r}")
        edit = get("edit")
        return cls(  # positional: read once per line when a file is checked
            kind,
            str(data["subject"]),
            str(get("attribute", LOCATION)),
            tuple(get("chain", ())),
            tuple(get("group", ())),
            get("actor"),
            int(get("occurrence", 0)),
            edit_from_dict(edit) if edit else None,
            str(get("qtype", "")),
        )


def intent_subject(actor: str, occurrence: int) -> str:
    """The pseudo-subject of a move's motive fact: ``"<actor>#<occurrence>"``."""
    return f"{actor}#{occurrence}"


INTENT = "intent"
"""The attribute of a move's motive fact (value ``"<help>|<hide>"``, empty for none)."""


def intent_value(help_target: str | None, hide_target: str | None) -> str:
    """Encode a motive as a fact value."""
    return f"{help_target or ''}|{hide_target or ''}"


def intent_answer(value: str | None) -> dict[str, str | None] | None:
    """Decode a motive fact value as ``{help_target, hide_target}`` (None stays None)."""
    if value is None:
        return None
    help_target, _, hide_target = value.partition("|")
    return {"help_target": help_target or None, "hide_target": hide_target or None}
