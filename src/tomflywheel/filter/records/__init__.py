"""Candidates and the evidence about them: the records every later phase reads.

A :class:`Candidate` is one input record (parsed, or its parse failure) with its origin and
repair attempt; the evidence models are the judge model's replies (rubric scores, extracted
events, rewrites, solve trials) gathered for one version of a candidate.

May import: no other sub-package (the order is in ``filter/__init__.py``).
"""

from tomflywheel.filter.records._candidate import (
    ORIGINS,
    Candidate,
    Origin,
    candidate_of,
    engine_decided,
    engine_reads,
    has_trace,
    origin_of,
    parse_candidate,
    read_candidates,
    record_hash,
)
from tomflywheel.filter.records._evidence import (
    Evidence,
    Extraction,
    QuestionRecord,
    Rewrite,
    RubricScore,
    SolveTrial,
)

__all__ = [
    "ORIGINS",
    "Candidate",
    "Evidence",
    "Extraction",
    "Origin",
    "QuestionRecord",
    "Rewrite",
    "RubricScore",
    "SolveTrial",
    "candidate_of",
    "engine_decided",
    "engine_reads",
    "has_trace",
    "origin_of",
    "parse_candidate",
    "read_candidates",
    "record_hash",
]
