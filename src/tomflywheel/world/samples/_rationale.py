"""Step-by-step rationales derived from a trace: who saw what, who was away, who told whom.

The text is built from the same temporal belief graph that verifies the answer, so it can
serve as a fine-tuning reasoning target: each step names the story line, the event, who saw
it (and who was absent or had it hidden from them), who heard each claim and whom each
listener trusts, then the step that fixes the asked belief and the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tomflywheel.world.language import answer_text, name_list
from tomflywheel.world.model import LOCATION, Enter, Move, QuestionSpec, Story, describe_edit
from tomflywheel.world.physics import Hearing, Observation
from tomflywheel.world.samples._trace import read_trace
from tomflywheel.world.verifiers import Answerer, describe_event


def _names(story: Story, mask: int) -> list[str]:
    return [agent for i, agent in enumerate(story.agents) if mask >> i & 1]


def _step_text(story: Story, item: Observation | Hearing, trusted: int, saw: int) -> str:
    event = story.events[item.step]
    what = describe_event(event)
    if isinstance(item, Observation):
        if isinstance(event, Enter):
            what = f"{name_list(event.agents)} entered the {event.room}"
        seen = _names(story, item.actual)
        away = [a for a in story.agents if a not in seen]
        text = f"Line {item.line}: {what}. Seen by {name_list(seen) if seen else 'nobody'}"
        if isinstance(event, Move) and event.hide is not None and event.hide not in seen:
            text += f" (hidden from {event.hide})"
        if away:
            text += f"; not seen by {name_list(away)}"
        return text + "."
    heard = _names(story, item.hearers)
    believers = _names(story, trusted)
    doubters = [a for a in heard if a not in believers]
    text = f"Line {item.line}: {what}. Heard by {name_list(heard) if heard else 'nobody'}"
    longer = [a for a in believers if saw >> story.agents.index(a) & 1]
    unseen = [a for a in believers if a not in longer]
    if longer:
        text += f"; believed by {name_list(longer)} (the speaker stayed in the room longer)"
    if unseen:
        text += f"; believed by {name_list(unseen)} (who had not seen it themselves)"
    if doubters:
        text += f"; not believed by {name_list(doubters)}"
    return text + "."


def rationale(trace: Mapping[str, Any]) -> str:
    """A short step-by-step explanation of a trace's answer.

    Raises:
        ValueError: The trace is malformed.
    """
    story, spec, profile = read_trace(trace)
    answerer = Answerer(story, profile, "graph")
    graph = answerer.graph(spec)
    variant = graph.story
    lines: list[str] = []
    if spec.edit is not None:
        lines.append(f"Suppose {describe_edit(spec.edit)}.")
    fact = spec.fact
    if spec.kind == "intent":
        fact = next(
            (
                f
                for step in graph.steps
                if isinstance(step, Observation)
                for f, _ in step.facts
                if f[0] == f"{spec.actor}#{spec.occurrence}"
            ),
            fact,
        )
    trusted_masks = _trusted(graph)
    saw = 0  # who had seen the asked fact first-hand so far
    for index, item in enumerate(graph.steps):
        about = [f for f, _ in item.facts] if isinstance(item, Observation) else [item.fact]
        if fact in about or spec.fact in about:
            lines.append(_step_text(variant, item, trusted_masks.get(index, 0), saw))
        if isinstance(item, Observation) and spec.fact in about:
            saw |= item.actual
    lines.append(_conclusion(graph, spec, fact, answerer))
    return "\n".join(lines)


def _trusted(graph: Any) -> dict[int, int]:
    return {
        index: graph.trusting(index)
        for index, item in enumerate(graph.steps)
        if isinstance(item, Hearing)
    }


def _conclusion(graph: Any, spec: QuestionSpec, fact: tuple[str, str], answerer: Answerer) -> str:
    answer = answer_text(answerer.answer(spec))
    where = "in the" if spec.attribute == LOCATION else "full of"
    if spec.kind == "reality":
        return f"So the {spec.subject} is now {where} {answer}."
    if spec.kind == "memory":
        return f"So the {spec.subject} was first {where} {answer}."
    if spec.kind == "common_knowledge":
        return (
            f"Common knowledge among {name_list(spec.group)} needs all of them to believe the "
            f"same place and the last event that reached all of them to carry it: {answer}."
        )
    chain = spec.chain if spec.kind != "cause" else spec.chain[:1]
    step = graph.anchor(chain, fact)
    if step is None:
        return f"No event reached {name_list(chain)} together, so the answer is {answer}."
    line = graph.steps[step].line
    who = chain[0] if len(chain) == 1 else " thinks ".join(chain)
    if len(chain) > 1:
        reach = (
            f"the last event that {chain[0]} witnessed while seeing {name_list(chain[1:])} "
            "witness it too (or that all of them heard and trust)"
        )
    else:
        reach = f"the last event that reached {chain[0]}"
    return f"For {who}: {reach} is line {line}, so the answer is {answer}."
