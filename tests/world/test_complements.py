"""Complements flip a belief to the other side of reality, under the sample's own profile."""

from __future__ import annotations

import pytest

from tomflywheel.audit import sample_role
from tomflywheel.world import complement, generate
from tomflywheel.world.samples import verify_sample


@pytest.mark.parametrize("profile", ["default", "tomi"])
def test_every_belief_item_gets_a_verified_complement_on_the_other_side(profile: str):
    beliefs = [
        s
        for s in generate("tomi", seed=5, n=60, profile=profile)
        if s.meta["question_type"].startswith(("first_order", "second_order"))
    ]
    made = [(s, complement(s)) for s in beliefs]
    done = [(s, c) for s, c in made if c is not None]
    # the mover cannot miss their own move, so not every item has one (default 180 of 240,
    # tomi 106: its convention leaves fewer second-order beliefs to flip)
    assert len(done) >= len(beliefs) // 3
    assert {twin.meta["tom"] for _, twin in done} == {True, False}  # both directions
    for original, twin in done:
        assert twin.meta["trace"]["profile"] == profile
        assert twin.meta["complement_of"] == original.id
        assert twin.meta["tom"] != original.meta["tom"]  # false belief <-> true belief
        assert verify_sample(twin).ok  # both verifiers derive the new gold


def test_a_complement_is_a_target_exactly_when_its_belief_is_false():
    """A true-belief story's complement holds a false belief: no marker may call it a control."""
    samples = generate("tomi", seed=1, n=30, orders=(1, 2), controls=True)
    made = [(s, c) for s in samples if (c := complement(s)) is not None]
    broken = [c for s, c in made if s.meta["story_type"] == "true_belief"]
    assert broken and all(c.meta["tom"] for c in broken)
    for _, twin in made:
        assert sample_role(twin) == ("target" if twin.meta["tom"] else "control"), twin.id


@pytest.mark.parametrize("numbered", [False, True])
def test_a_complement_keeps_its_sources_line_numbers_or_their_absence(numbered: bool):
    from tomflywheel.world import is_numbered

    samples = generate("tomi", seed=3, n=12, orders=(1,), numbered=numbered)
    made = [c for s in samples if (c := complement(s)) is not None]
    assert made and all(is_numbered(c.story) == numbered for c in made)
    # numbers a later step added to the text (a set's surface) are kept as well
    unnumbered = next(s for s in generate("tomi", seed=3, n=12, orders=(1,)) if complement(s))
    lines = unnumbered.story.splitlines()
    renumbered = unnumbered.model_copy(
        update={"story": "\n".join(f"{i} {line}" for i, line in enumerate(lines, start=1))}
    )
    assert is_numbered(complement(renumbered).story)
