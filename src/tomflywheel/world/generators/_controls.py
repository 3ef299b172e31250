"""True-belief control twins: the same story minus the one event that creates a false belief."""

from __future__ import annotations

from tomflywheel.world.model import Claim, Distract, Exit, QuestionSpec, Read, Story
from tomflywheel.world.physics import Profile
from tomflywheel.world.verifiers import answer_many

_CANDIDATES = (Exit, Distract, Claim, Read)
"""Events whose absence can remove a false belief without changing where things really are."""


def is_false_belief(story: Story, spec: QuestionSpec, profile: str | Profile = "default") -> bool:
    """Does the (belief) question's answer differ from where the thing really is?"""
    if spec.kind != "belief":
        return False
    reality = QuestionSpec("reality", spec.subject, spec.attribute, edit=spec.edit)
    belief, real = answer_many(story, [spec, reality], profile)
    return belief != real


def control_twin(
    story: Story, specs: list[QuestionSpec], profile: str | Profile = "default"
) -> Story | None:
    """The story minus the latest single event whose removal makes every belief asked true.

    Only exits, distractions, claims and label readings are removed (never a placement or a
    move), so reality is unchanged. Returns None when no single event does it.
    """
    beliefs = [spec for spec in specs if spec.kind == "belief"]
    if not any(is_false_belief(story, spec, profile) for spec in beliefs):
        return None
    for position in range(len(story.events) - 1, -1, -1):
        if not isinstance(story.events[position], _CANDIDATES):
            continue
        twin = Story(
            story.events[:position] + story.events[position + 1 :],
            story.lines[:position] + story.lines[position + 1 :],
            story.agents,
        )
        if not any(is_false_belief(twin, spec, profile) for spec in beliefs):
            return _renumber(twin)
    return None


def _renumber(story: Story) -> Story:
    return Story(story.events, tuple(range(1, len(story.events) + 1)), story.agents)
