"""Hi-ToM records as check items (CoTP, with the VP twin's gold), and causes of its residuals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from tomflywheel.errors import DataError
from tomflywheel.world._answer import describe_event
from tomflywheel.world._checkitem import CheckItem
from tomflywheel.world._events import Claim, Enter, Move, Place, Story
from tomflywheel.world._parse import parse_story
from tomflywheel.world._physics import Observation
from tomflywheel.world._profiles import Profile
from tomflywheel.world._qparse import parse_question
from tomflywheel.world._tbg import build_graph


def _records(path: Path) -> list[dict]:
    path = Path(path)
    if path.is_dir():
        path = path / "Hi-ToM_data.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise DataError(path, None, None, "no such file") from err
    except json.JSONDecodeError as err:
        raise DataError(path, err.lineno, None, f"invalid JSON ({err.msg})") from err
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise DataError(path, None, "data", 'expected {"data": [records]}')
    return data["data"]


def load_hitom(path: Path) -> Iterator[CheckItem]:
    """The CoTP records of ``Hi-ToM_data.json`` (``path``: the file or its folder).

    Each item carries the gold of its VP twin (same story and question), which disagrees with
    the CoTP gold on 138 pairs; CoTP is the benchmark.

    Raises:
        DataError: Not Hi-ToM's layout, or an unparsable sentence or question.
    """
    records = _records(path)
    twins = {
        (record["story"].split("\n", 1)[-1].strip(), record["question"]): record["answer"]
        for record in records
        if record.get("prompting_type") == "VP"
    }
    for number, record in enumerate(records):
        if record.get("prompting_type") != "CoTP":
            continue
        where = f"{path}: record {number}"
        story = parse_story(record["story"], "hitom", source=where)
        spec = parse_question(record["question"], "hitom", story, source=where)
        deception = "deception" if record["deception"] else "no_deception"
        qtype = f"order_{record['question_order']}_{deception}"
        twin = twins.get((record["story"].strip(), record["question"]))
        yield CheckItem(
            str(record["sample_id"]), qtype, record["question"], story, spec, record["answer"], twin
        )


def _setters(story: Story, obj: str, value: str) -> list[tuple[int, str]]:
    """(line, sentence) of every event that put or claimed ``obj`` in ``value``."""
    found = []
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Place | Move | Claim):
            found.append((line, describe_event(event))) if _sets(event, obj, value) else None
    return found


def _sets(event: Place | Move | Claim, obj: str, value: str) -> bool:
    if isinstance(event, Claim):
        return event.subject == obj and event.value == value
    return event.obj == obj and event.container == value


def hitom_cause(item: CheckItem, derived: object, profile: Profile) -> str:
    """Explain why a Hi-ToM gold differs from the derived answer, from the story itself."""
    story, spec, gold = item.story, item.spec, str(item.gold)
    obj = spec.subject
    parts: list[str] = []
    if item.twin_gold is not None and item.twin_gold != item.gold:
        agree = " (the engine's answer)" if item.twin_gold == derived else ""
        parts.append(f"CoTP and VP golds contradict each other: VP says {item.twin_gold}{agree}")
    setters = _setters(story, obj, gold)
    if not setters:
        other = next(
            (
                event.obj
                for event in story.events
                if isinstance(event, Place | Move) and event.container == gold
            ),
            None,
        )
        what = f"a container of the {other}" if other else "a container never used"
        parts.append(f"gold names {what}, not a place the {obj} ever was")
        return "; ".join(parts)
    reentry = _reentry(story, obj, spec.chain)
    graph = build_graph(story, profile)
    anchor = graph.anchor(spec.chain, spec.fact)
    if reentry:
        parts.append(reentry)
    elif anchor is not None:
        step = graph.steps[anchor]
        event = story.events[step.step]
        seen = "saw it" if isinstance(step, Observation) else "heard and trust it"
        earlier = [line for line, _ in setters if line < step.line]
        if earlier:
            parts.append(
                f"gold is where the {obj} was before line {step.line} ({describe_event(event)}), "
                f"though every agent of the chain {seen}"
            )
        else:
            later = ", ".join(f"line {line} ({text})" for line, text in setters)
            parts.append(f"gold comes from {later}, which not every agent of the chain saw")
    return "; ".join(parts)


def _reentry(story: Story, obj: str, chain: tuple[str, ...]) -> str:
    room = None
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Place) and event.obj == obj:
            if room == event.room:
                return ""
            room = event.room
        elif isinstance(event, Enter) and event.room == room and set(chain) <= set(event.agents):
            return (
                f"the chain re-entered the {room} at line {line} and saw the {obj} there; "
                "the gold ignores that"
            )
    return ""
