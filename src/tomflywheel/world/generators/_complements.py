"""Complements: the same story edited so the asked belief flips side, for balancing a set.

A false-belief item's complement is its true-belief control twin (the event that created the
false belief removed); a true-belief item's complement has the believer leave the room just
before the object's last move, so the belief stays where the object was. Both verifiers must
agree on the new answer, and it must be on the other side of reality than the original's.
The complement is rendered as its generator renders, with the original's phrasing key, and
answered under the original's answer profile (``default``, or a benchmark's convention).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tomflywheel.schema import Answer as AnswerModel
from tomflywheel.schema import Sample
from tomflywheel.world.generators._controls import control_twin, is_false_belief
from tomflywheel.world.generators._draft import answer_candidates
from tomflywheel.world.generators._registry import GENERATORS
from tomflywheel.world.language import answer_text, is_numbered, render_story
from tomflywheel.world.model import Enter, Event, Exit, Move, QuestionSpec, Story
from tomflywheel.world.samples import make_trace, read_trace
from tomflywheel.world.verifiers import Answerer

STYLES: dict[str, str] = {"tomi": "tomi", "hitom": "hitom"}
"""Generators whose location stories can be complemented, and their rendering style."""


def _room_of(events: tuple[Event, ...], agent: str, before: int) -> str | None:
    for event in reversed(events[:before]):
        if isinstance(event, Enter) and agent in event.agents:
            return event.room
        if isinstance(event, Exit) and event.agent == agent:
            return None
    return None


def _without_agent_at(story: Story, agent: str, move_index: int) -> Story | None:
    """The story with ``agent`` leaving just before the move (and not leaving again later)."""
    room = _room_of(story.events, agent, move_index)
    if room is None:
        return None
    kept = [
        (event, line)
        for i, (event, line) in enumerate(zip(story.events, story.lines, strict=True))
        if not (i > move_index and isinstance(event, Exit) and event.agent == agent)
    ]
    events = [e for e, _ in kept]
    position = events.index(story.events[move_index])
    events.insert(position, Exit(agent, room))
    return Story(tuple(events), tuple(range(1, len(events) + 1)), story.agents)


def _break_belief(story: Story, spec: QuestionSpec, profile: str) -> Story | None:
    """A version where the asked belief is false: an agent of the chain misses the last move."""
    moves = [
        i
        for i, event in enumerate(story.events)
        if isinstance(event, Move) and event.obj == spec.subject
    ]
    if not moves:
        return None
    for agent in reversed(spec.chain):
        edited = _without_agent_at(story, agent, moves[-1])
        if edited is not None and is_false_belief(edited, spec, profile):
            return edited
    return None


def _agreed(story: Story, spec: QuestionSpec, profile: str) -> Any:
    tracked, graphed = Answerer(story, profile).answer_both([spec])
    return tracked[0] if tracked == graphed else None


def _flip_type(value: Any, false_belief: bool) -> Any:
    if not isinstance(value, str):
        return value
    for suffix in ("_no_tom", "_tom"):
        if value.endswith(suffix):
            return value[: -len(suffix)] + ("_tom" if false_belief else "_no_tom")
    return value


def complement(sample: Sample) -> Sample | None:
    """The sample's complement (the belief on the other side of reality), or None if none.

    Only traced belief questions of the ToMi- and Hi-ToM-style generators have complements.
    """
    trace = sample.meta.get("trace")
    if not isinstance(trace, Mapping) or trace.get("generator") not in STYLES:
        return None
    try:
        story, spec, profile = read_trace(trace)
    except (ValueError, KeyError):
        return None
    if spec.kind != "belief" or spec.edit is not None:
        return None
    was_false = is_false_belief(story, spec, profile)
    edited = (
        control_twin(story, [spec], profile) if was_false else _break_belief(story, spec, profile)
    )
    if edited is None or is_false_belief(edited, spec, profile) == was_false:
        return None
    answer = _agreed(edited, spec, profile)
    if answer is None:
        return None
    return _as_sample(sample, trace, edited, spec, answer, profile, false_belief=not was_false)


def _as_sample(
    sample: Sample,
    trace: Mapping[str, Any],
    story: Story,
    spec: QuestionSpec,
    answer: Any,
    profile: str,
    *,
    false_belief: bool,
) -> Sample:
    generator = GENERATORS.get(str(trace["generator"]))
    render = dict(trace.get("render") or {})
    text = render_story(
        story,
        key=render.get("key"),
        diversity=float(render.get("diversity", 0.0)),
        style=STYLES[generator.name],  # type: ignore[arg-type]
        # the source's surface, whether its generator or a later step numbered its lines
        numbered=is_numbered(sample.story),
    )
    new_trace = make_trace(
        generator=generator.name,
        version=str(trace.get("version", generator.version)),
        seed=int(trace.get("seed", 0)),
        story_index=int(trace.get("story_index", 0)),
        story=story,
        spec=spec,
        answer=answer,
        profile=profile,
        render=render,
    )
    gold = answer_text(answer)
    meta = dict(sample.meta)
    meta.update(
        trace=new_trace,
        complement_of=sample.id,
        control=not false_belief,
        question_type=_flip_type(meta.get("question_type"), false_belief),
    )
    if "tom" in meta:
        meta["tom"] = false_belief
    if false_belief and meta.get("story_type") == "true_belief":
        # The story now holds a false belief: a role read from its markers must not say control.
        meta["story_type"] = "false_belief" if len(spec.chain) == 1 else "second_order_false_belief"
    candidates = answer_candidates(story, spec)
    if len(candidates) >= 2 and gold in candidates:
        meta["candidates"] = candidates
    wrong = [w for w in sample.answer.wrong_answers if w != gold]
    if sample.answer.wrong_answers:
        wrong = [w for w in [*sample.answer.correct_answers, *wrong] if w != gold]
    return Sample(
        id=f"{sample.id}~complement",
        story=text,
        question=sample.question,
        answer=AnswerModel(correct_answers=[gold], wrong_answers=wrong),
        meta=meta,
    )
