"""``meta.trace``: the plain-JSON record that lets any stage re-derive a sample's answer.

A trace holds the generator's name, version and seed, the story index, the rule profile, the
story's events, the question spec, the rendering settings and the derived answer. Verifying a
sample re-derives the answer from the trace alone with both verifiers, so a corrupted label (or
a corrupted trace) is caught.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tomflywheel.world.language import answer_text
from tomflywheel.world.model import Answer, QuestionSpec, Story
from tomflywheel.world.physics import get_profile
from tomflywheel.world.verifiers import Answerer

if TYPE_CHECKING:  # the pydantic schema is a tenth of a second to import
    from tomflywheel.schema import Sample


def make_trace(
    *,
    generator: str,
    version: str,
    seed: int,
    story_index: int,
    story: Story,
    spec: QuestionSpec,
    answer: Answer,
    profile: str = "default",
    render: Mapping[str, Any] | None = None,
    story_dict: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build a trace (plain JSON: dicts, lists, str, int, bool, None).

    ``story_dict`` is ``story.to_dict()`` when the caller already has it.
    """
    return {
        "generator": generator,
        "version": version,
        "seed": seed,
        "story_index": story_index,
        "profile": profile,
        "story": story_dict if story_dict is not None else story.to_dict(),
        "question": spec.to_dict(),
        "answer": answer,
        "render": dict(render or {}),
    }


def read_trace(trace: Mapping[str, Any]) -> tuple[Story, QuestionSpec, str]:
    """The story, question spec and profile name of a trace.

    Raises:
        ValueError: A field is missing or malformed.
    """
    try:
        story = Story.from_dict(trace["story"])
        spec = QuestionSpec.from_dict(trace["question"])
        profile = str(trace.get("profile", "default"))
    except (KeyError, TypeError) as err:
        raise ValueError(f"malformed trace: {err}") from err
    get_profile(profile)
    return story, spec, profile


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of re-deriving a sample's answer from its trace."""

    ok: bool
    """Both verifiers agree with each other and with the sample's gold."""
    tracker_answer: Answer
    """The forward tracker's answer."""
    graph_answer: Answer
    """The temporal belief graph's answer."""
    reason: str | None = None
    """Why it is not ok (None when ok)."""


def verify_trace(trace: Mapping[str, Any], gold: list[str]) -> Verification:
    """Re-derive the answer of a trace with both verifiers and compare with the gold texts."""
    try:
        story, spec, profile = read_trace(trace)
    except (ValueError, KeyError) as err:
        return Verification(False, None, None, f"unreadable trace: {err}")
    try:
        (tracker,), (graph,) = Answerer(story, profile).answer_both([spec])
    except (KeyError, ValueError, IndexError) as err:
        return Verification(False, None, None, f"trace does not replay: {err!r}")
    return judge_answers(tracker, graph, gold)


def judge_answers(tracker: Answer, graph: Answer, gold: list[str]) -> Verification:
    """Ok when the two verifiers' answers agree and name one of the gold texts."""
    if tracker != graph:
        reason = f"verifiers disagree: tracker {tracker!r}, graph {graph!r}"
        return Verification(False, tracker, graph, reason)
    text = answer_text(tracker)
    if text not in gold:
        return Verification(False, tracker, graph, f"gold {gold!r} but derived {text!r}")
    return Verification(True, tracker, graph)


def verify_sample(sample: Sample) -> Verification:
    """Re-derive a sample's answer from ``meta.trace`` with both verifiers.

    ``ok`` is True only when the forward tracker and the temporal belief graph agree and their
    answer is among the sample's correct answers. A sample without a trace is not ok.
    """
    trace = sample.meta.get("trace")
    if not isinstance(trace, Mapping):
        return Verification(False, None, None, "no meta.trace")
    return verify_trace(trace, list(sample.answer.correct_answers))
