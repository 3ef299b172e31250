"""Synthesized samples take the surface of the set whose failures they answer.

The engine writes stories its own way; the measured set may number its lines or not, and ask for
an open answer or a letter. A plan item records the surface of the failing set
(:class:`Surface`, from :func:`tomflywheel.audit.surface_profile` of its evaluated samples) and
:func:`adopt_surface` gives each synthesized sample that surface: line numbers added or dropped,
an open location question with its candidates asked as lettered options. The trace is untouched
(it holds the events, not the text), so every label is re-derived as before.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from tomflywheel._rng import rng_for
from tomflywheel.audit import AnswerFormat, SurfaceProfile, answer_format, is_numbered
from tomflywheel.schema import Answer, Sample

_NUMBER = re.compile(r"^\d+ ")


class Surface(BaseModel):
    """The surface synthesized samples take."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    numbered: bool
    """Story lines carry line numbers."""
    answer_format: AnswerFormat
    """How the measured set is answered: ``choice`` turns open questions with candidates into
    lettered options; other formats are left as the generator writes them."""
    choice_share: float = 0.0
    """Where the set is answered in open text: the share of open questions with candidates
    asked with lettered options all the same (drawn per sample id), so that training on one
    set's format does not unlearn the other (BigToM's letters collapsed into container names)."""


def surface_of(profile: SurfaceProfile, *, choice_share: float = 0.0) -> Surface:
    """The surface a set's profile asks of synthesized data: its majority on each count."""
    return Surface(
        numbered=profile.numbered > 0.5,
        answer_format=profile.answer_format,
        choice_share=choice_share,
    )


def adopt_surface(sample: Sample, surface: Surface) -> Sample:
    """``sample`` in ``surface``; ``meta.surface`` records which.

    Line numbers as the set has them (kept where the question asks for a line number), and
    lettered options where the set is answered with a letter and the sample has candidates.
    """
    story = sample.story
    # A question that asks for a line number needs the numbers to answer.
    asks_line = "line number" in sample.question.lower()
    if surface.numbered and not is_numbered(story):
        story = "\n".join(f"{i} {line}" for i, line in enumerate(story.splitlines(), start=1))
    elif not surface.numbered and is_numbered(story) and not asks_line:
        story = "\n".join(_NUMBER.sub("", line, count=1) for line in story.splitlines())
    answer = sample.answer
    if answer_format(sample) == "open" and _asks_choice(sample, surface):
        answer = _as_choice(sample) or answer
    meta = {**sample.meta, "surface": surface.model_dump()}
    return sample.model_copy(update={"story": story, "answer": answer, "meta": meta})


def _asks_choice(sample: Sample, surface: Surface) -> bool:
    if surface.answer_format == "choice":
        return True
    share = surface.choice_share
    return share > 0 and rng_for("surface-choice", sample.id).random() < share


def _as_choice(sample: Sample) -> Answer | None:
    """The gold against the other candidates the story names, or ``None`` without candidates."""
    candidates = sample.meta.get("candidates")
    gold = sample.answer.correct_answers[0]
    if not isinstance(candidates, list) or gold not in candidates or len(candidates) < 2:
        return None
    return Answer(correct_answers=[gold], wrong_answers=[c for c in candidates if c != gold])
