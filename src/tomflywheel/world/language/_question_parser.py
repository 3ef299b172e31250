"""Question parsers: ToMi, Hi-ToM and tgtom question texts to question specs."""

from __future__ import annotations

import re

from tomflywheel.errors import DataError
from tomflywheel.world.language._story_parser import NAME, TOKEN, Grammar
from tomflywheel.world.model import (
    DropMove,
    Edit,
    Move,
    QuestionSpec,
    ReplaceClaim,
    SetExits,
    SetMotive,
    Story,
)

_CHAIN = rf"{NAME}(?: thinks? {NAME})*"
_LIST = rf"{NAME}(?:, {NAME})*(?:,? and {NAME})?"

_SIMPLE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"Where was the (?P<obj>{TOKEN}) at the beginning\?"), "memory"),
    (re.compile(rf"Where is the (?P<obj>{TOKEN}) really\?"), "reality"),
    (re.compile(rf"Where is the (?P<obj>{TOKEN})\?"), "reality"),
    (re.compile(rf"Where will (?P<chain>{NAME}) look for the (?P<obj>{TOKEN})\?"), "belief"),
    (
        re.compile(
            rf"Where does (?P<chain>{NAME}(?: thinks? that {NAME})+) searches "
            rf"for the (?P<obj>{TOKEN})\?"
        ),
        "belief",
    ),
    (
        re.compile(
            rf"Where does (?P<chain>{_CHAIN}) (?:really )?thinks? the (?P<obj>{TOKEN}) is\?"
        ),
        "belief",
    ),
)


def _chain(text: str) -> tuple[str, ...]:
    return tuple(part for part in re.split(r" thinks? (?:that )?| think that ", text) if part)


def _names(text: str) -> tuple[str, ...]:
    return tuple(part for part in re.split(r",? and |, ", text) if part)


def _occurrence(story: Story, agent: str, line: int | None) -> int:
    count = 0
    for event, at in zip(story.events, story.lines, strict=True):
        if isinstance(event, Move) and event.agent == agent:
            if line is None or at == line:
                return count
            count += 1
    return 0


def _tgtom(text: str, story: Story, obj: str) -> QuestionSpec | None:
    edit: Edit | None = None
    actor: str | None = None
    rest = text
    if m := re.match(rf"Suppose (?P<a>{NAME})'s move at line (?P<n>\d+) had not happened\. ", text):
        edit, actor, rest = DropMove(int(m["n"])), m["a"], text[m.end() :]
    elif m := re.match(
        rf"Suppose (?P<s>{NAME}) had said the {TOKEN} is in the (?P<c>{TOKEN}) "
        rf"at line (?P<n>\d+)\. ",
        text,
    ):
        edit, actor, rest = ReplaceClaim(int(m["n"]), m["c"]), m["s"], text[m.end() :]
    elif m := re.match(
        rf"Suppose (?P<a>{NAME})'s move at line (?P<n>\d+) had been to (?P<motive>.*?)\. (?=What)",
        text,
    ):
        helps = re.search(rf"help ({NAME}) find it", m["motive"])
        hides = re.search(rf"hide it from ({NAME})", m["motive"])
        edit = SetMotive(
            int(m["n"]), helps.group(1) if helps else None, hides.group(1) if hides else None
        )
        rest = text[m.end() :]
    elif m := re.match(
        rf"Suppose (?P<a>{NAME}) had exited at line (?P<m>\d+) and (?P<b>{NAME}) had exited at "
        rf"line (?P<n>\d+) \(their exit times swapped\)\. ",
        text,
    ):
        edit = SetExits(((m["a"], int(m["m"])), (m["b"], int(m["n"]))))
        rest = text[m.end() :]
    elif m := re.match(rf"Suppose (?P<a>{NAME}) had exited at line (?P<m>\d+)\. ", text):
        edit, rest = SetExits(((m["a"], int(m["m"])),)), text[m.end() :]
    if m := re.fullmatch(rf"Where would (?P<a>{NAME}) now believe the (?P<obj>{TOKEN}) is\?", rest):
        return QuestionSpec("belief", m["obj"], chain=(m["a"],), actor=actor, edit=edit)
    if m := re.fullmatch(
        rf"What does (?P<chain>{_CHAIN}) thinks? (?P<actor>{NAME})'s intent was\?", rest
    ):
        line = edit.line if isinstance(edit, SetMotive) else None
        occurrence = _occurrence(story, m["actor"], line)
        return QuestionSpec(
            "intent",
            obj,
            chain=_chain(m["chain"]),
            actor=m["actor"],
            occurrence=occurrence,
            edit=edit,
        )
    if m := re.fullmatch(rf"What does (?P<chain>{_CHAIN}) thinks?\?", rest):
        return QuestionSpec("belief", obj, chain=_chain(m["chain"]), actor=actor, edit=edit)
    if m := re.fullmatch(
        rf"(?:Is|Would) the location of the (?P<obj>{TOKEN}) (?:then be )?common knowledge among "
        rf"(?P<group>{_LIST})\? Answer yes \(with the location\) or no\.",
        rest,
    ):
        group = _names(m["group"])
        return QuestionSpec("common_knowledge", m["obj"], group=group, actor=actor, edit=edit)
    if m := re.fullmatch(
        rf"Which event caused (?P<a>{NAME})'s final belief about the (?P<obj>{TOKEN}) to take its "
        r"current value\? Answer with the line number from the story\.",
        rest,
    ):
        return QuestionSpec("cause", m["obj"], chain=(m["a"],), edit=edit)
    return None


def parse_question(
    text: str, grammar: Grammar, story: Story, *, source: str = "<question>"
) -> QuestionSpec:
    """Parse a question about a parsed story into a spec.

    Args:
        text: The question as the benchmark words it.
        grammar: Which benchmark wrote it.
        story: The story it is about (tgtom questions leave the object implicit).
        source: Where it came from, for error messages.

    Raises:
        DataError: The question matches no known form.
    """
    text = text.strip()
    first = text.splitlines()[0].strip() if text else text
    if first != text:  # an instruction may follow the question (an answer format, options)
        try:
            return parse_question(first, grammar, story, source=source)
        except DataError:
            pass
    for pattern, kind in _SIMPLE:
        if m := pattern.fullmatch(text):
            chain = _chain(m["chain"]) if "chain" in pattern.groupindex else ()
            return QuestionSpec(kind, m["obj"], chain=chain)  # type: ignore[arg-type]
    if grammar == "tgtom":
        objects = story.objects()
        spec = _tgtom(text, story, objects[0] if objects else "")
        if spec is not None:
            return spec
    raise DataError(source, None, "question", f"{grammar}: cannot parse {text[:120]!r}")
