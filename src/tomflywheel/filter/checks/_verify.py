"""Label verification through the world engine: re-derive a trace, and check extracted events.

A naturalized sample's prose is turned back into events (and its question into a spec) by a
structured LLM call; the answer those give under both verifiers must be the sample's gold. Names
in the reply are mapped back to the trace's own identifiers by their normalized form
(``green bucket`` -> ``green_bucket``), so wording is free but the world must stay the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from tomflywheel.asking import normalize
from tomflywheel.filter.records import Extraction
from tomflywheel.world import (
    Answer,
    QuestionSpec,
    Story,
    StoryRecord,
    answer_text,
    derive_answer,
    event_to_dict,
    read_trace,
)

_NAME_FIELDS = (
    *("agent", "room", "obj", "container", "help", "hide", "speaker", "listener"),
    *("subject", "value"),
)
_SIMPLE_KINDS = ("memory", "reality", "belief")
_REPLAY_ERRORS = (KeyError, ValueError, IndexError, TypeError, AttributeError)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A verification outcome: ``reason`` is None when the label holds."""

    reason: str | None
    detail: str


def _same_label(derived: Answer, gold: list[str]) -> bool:
    return normalize(answer_text(derived)) in {normalize(text) for text in gold}


def rederive(story: Story, spec: QuestionSpec, profile: str, gold: list[str]) -> Outcome:
    """Derive the answer with both verifiers and compare with the gold texts.

    Returns:
        ``replay_failed``, ``verifier_disagreement`` or ``label_mismatch`` with the evidence,
        or no reason when both verifiers give a gold answer.
    """
    try:
        tracker = derive_answer(story, spec, profile, verifier="tracker")
        graph = derive_answer(story, spec, profile, verifier="graph")
    except _REPLAY_ERRORS as err:
        return Outcome("replay_failed", f"the events do not replay: {err!r}")
    if tracker != graph:
        detail = f"tracker says {answer_text(tracker)!r}, graph says {answer_text(graph)!r}"
        return Outcome("verifier_disagreement", detail)
    if not _same_label(tracker, gold):
        return Outcome("label_mismatch", f"derived {answer_text(tracker)!r}, gold {gold!r}")
    return Outcome(None, f"both verifiers derive {answer_text(tracker)!r}")


def verify_trace_label(trace: Mapping[str, Any], gold: list[str]) -> Outcome:
    """Re-derive a trace's answer (``trace_invalid`` when it cannot be read or replayed)."""
    try:
        story, spec, profile = read_trace(trace)
    except (ValueError, KeyError, TypeError) as err:
        return Outcome("trace_invalid", f"unreadable trace: {err}")
    outcome = rederive(story, spec, profile, gold)
    if outcome.reason == "replay_failed":
        return Outcome("trace_invalid", outcome.detail)
    return outcome


def vocabulary(story: Story, spec: QuestionSpec) -> dict[str, str]:
    """Every identifier of a story and question, by normalized form."""
    names: list[str] = [*spec.chain, *spec.group, spec.subject]
    for event in story.events:
        for key, value in event_to_dict(event).items():
            if key in ("type", "text", "mentions"):
                continue
            if isinstance(value, str):
                names.append(value)
            elif isinstance(value, list):
                names += [item for item in value if isinstance(item, str)]
    return {normalize(name): name for name in names if normalize(name)}


def canonical(name: str, vocab: Mapping[str, str]) -> str:
    """The trace's identifier for a name, or the name in identifier form when unknown."""
    key = normalize(name)
    return vocab.get(key, key.replace(" ", "_"))


def extracted_story(extraction: Extraction, vocab: Mapping[str, str]) -> Story:
    """The engine story of an extraction, names mapped to the trace's identifiers.

    Raises:
        ValueError: An event cannot be built.
    """
    items = []
    for record in extraction.events:
        data = record.model_dump()
        for key in _NAME_FIELDS:
            if isinstance(data.get(key), str):
                data[key] = canonical(data[key], vocab)
        if isinstance(data.get("agents"), list):
            data["agents"] = [canonical(name, vocab) for name in data["agents"]]
        items.append(data)
    try:
        return StoryRecord.model_validate({"events": items}).to_story()
    except ValidationError as err:
        raise ValueError(str(err)) from err


def extracted_spec(
    extraction: Extraction, trace_spec: QuestionSpec, vocab: Mapping[str, str]
) -> QuestionSpec:
    """The question as extracted; kinds the reply cannot express keep the trace's spec."""
    if trace_spec.kind not in _SIMPLE_KINDS or trace_spec.edit is not None:
        return trace_spec
    asked = extraction.question
    chain = tuple(canonical(name, vocab) for name in asked.chain) if asked.kind == "belief" else ()
    return QuestionSpec(
        kind=asked.kind,
        subject=canonical(asked.subject, vocab),
        attribute=trace_spec.attribute,
        chain=chain,
        qtype=trace_spec.qtype,
    )


def verify_extraction(extraction: Extraction, trace: Mapping[str, Any], gold: list[str]) -> Outcome:
    """Whether events and question extracted from the prose give the gold answer.

    Returns:
        ``extraction_failed`` (the reply does not replay as a story) or
        ``naturalization_drift`` (it does, to another answer), or no reason.
    """
    try:
        story, spec, profile = read_trace(trace)
    except (ValueError, KeyError, TypeError) as err:
        return Outcome("trace_invalid", f"unreadable trace: {err}")
    vocab = vocabulary(story, spec)
    try:
        events = extracted_story(extraction, vocab)
    except _REPLAY_ERRORS as err:
        return Outcome("extraction_failed", f"extracted events are not a story: {err}")
    if not events.events:
        return Outcome("extraction_failed", "no events extracted")
    outcome = rederive(events, extracted_spec(extraction, spec, vocab), profile, gold)
    if outcome.reason == "replay_failed":
        return Outcome("extraction_failed", outcome.detail)
    if outcome.reason is not None:
        return Outcome("naturalization_drift", f"{len(events.events)} events: {outcome.detail}")
    return Outcome(None, f"{len(events.events)} events extracted; {outcome.detail}")


def extraction_messages(sample_story: str, question: str, trace: Mapping[str, Any]) -> list[dict]:
    """The structured-extraction request for a naturalized story and its question."""
    story, _, _ = read_trace(trace)
    agents = ", ".join(story.agents) or "-"
    things = ", ".join(sorted({*story.objects(), *story.containers(), *story.rooms()})) or "-"
    system = (
        "You turn a short story into the list of its events as JSON, one event per action, in "
        "story order. Use these exact names. People: "
        f"{agents}. Objects, containers and rooms: {things}. A move meant to help someone find "
        "the object or to hide it from someone says so in help or hide. Sentences that change "
        "nothing are noise. Then say what the question asks."
    )
    user = f"Story:\n{sample_story}\n\nQuestion: {question}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
