"""Normalized samples (ToMi, Hi-ToM, tgtom, or the engine's own) back to a story and a spec."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tomflywheel.errors import DataError
from tomflywheel.world.language import Grammar, parse_question, parse_story
from tomflywheel.world.model import Move, QuestionSpec, Story
from tomflywheel.world.samples._trace import read_trace
from tomflywheel.world.verifiers import derive_answer

if TYPE_CHECKING:  # the pydantic schema is a tenth of a second to import
    from tomflywheel.schema import Sample

GRAMMARS: tuple[Grammar, ...] = ("tomi", "hitom", "tgtom")
"""The story grammars, in the order a sample of an unnamed dataset is tried with."""


def grammar_of(meta: dict[str, Any]) -> Grammar | None:
    """The benchmark grammar a sample's ``meta.dataset`` names (``tomi``, ``hitom_synth``, ...)."""
    dataset = str(meta.get("dataset", "")).lower()
    for grammar in GRAMMARS:
        if dataset.startswith(grammar):
            return grammar
    return None


def sample_spec(sample: Sample, grammar: Grammar | None = None) -> tuple[Story, QuestionSpec]:
    """The story and question spec of a normalized sample.

    A sample with ``meta.trace`` (made by the engine) is read from its trace; otherwise its
    story and question texts are parsed with the grammar (default: from ``meta.dataset``).
    When neither names one (a dataset imported by a mapping, say), each grammar is tried in
    turn, so a ToMi-style story reads the same under any dataset name.
    tgtom's Q3 text leaves the asked move implicit: ``meta.target_occurrence`` gives it, or
    else the first of the actor's moves the chain witnessed is assumed.

    Raises:
        DataError: A sentence or the question does not parse (with no grammar named: the
            first grammar's error).
    """
    meta = sample.meta
    if isinstance(meta.get("trace"), dict):
        try:
            story, spec, _ = read_trace(meta["trace"])
        except ValueError as err:
            raise DataError(sample.id, None, "meta.trace", str(err)) from err
        return story, spec
    grammar = grammar or grammar_of(meta)
    if grammar is not None:
        return _parsed(sample, grammar)
    errors: list[DataError] = []
    for name in GRAMMARS:
        try:
            return _parsed(sample, name)
        except DataError as err:
            errors.append(err)
    raise errors[0]


def _parsed(sample: Sample, grammar: Grammar) -> tuple[Story, QuestionSpec]:
    meta = sample.meta
    story = parse_story(sample.story, grammar, source=sample.id)
    spec = parse_question(sample.question, grammar, story, source=sample.id)
    if spec.kind == "intent" and spec.edit is None:
        spec = replace(spec, occurrence=_occurrence(story, spec, meta))
    return story, replace(spec, qtype=str(meta.get("question_type", spec.qtype)))


def _occurrence(story: Story, spec: QuestionSpec, meta: dict[str, Any]) -> int:
    """Which of the actor's moves a Q3 question means.

    ``meta.target_occurrence`` when given, else the first move the chain witnessed (tgtom asks
    about witnessed moves), else the first.
    """
    given = meta.get("target_occurrence")
    if isinstance(given, int):
        return given
    moves = sum(isinstance(e, Move) and e.agent == spec.actor for e in story.events)
    for occurrence in range(moves):
        if derive_answer(story, replace(spec, occurrence=occurrence)) is not None:
            return occurrence
    return 0
