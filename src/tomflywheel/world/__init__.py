"""The symbolic ToM world engine: events, belief tracking, two verifiers, generators, parsers.

Stories are lists of events (:class:`Story`); beliefs of any order are derived under a rule
profile (``default``, or a benchmark's ``tomi`` / ``hitom`` / ``tgtom`` conventions) by two
independent verifiers, the forward tracker and the temporal belief graph. Generators
(:data:`GENERATORS`) write normalized samples whose ``meta.trace`` lets any stage re-derive the
answer; parsers read the benchmarks' own stories back into events, and :func:`check_samples`
re-derives the gold answers of imported benchmark samples.

The engine is split into sub-packages, lowest first (``_layers.py`` holds the order; each may
import only the ones before it): ``model`` (events, edits, question specs), ``physics``
(profiles, percepts), ``verifiers`` (tracker, belief graph, answers), ``language`` (parsers,
renderers, question wording), ``samples`` (traces, rationales, explanations), ``generators``
and ``checks``. This module exports what other packages use; tests may import the
sub-packages.

The exports load their sub-package on first use (PEP 562), so ``tomflywheel datasets generate``
does not import the benchmark parsers and checks it never calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tomflywheel._lazy_exports import attach

if TYPE_CHECKING:
    from tomflywheel.world.checks import (
        Benchmark,
        CheckReport,
        LabelReading,
        LabelStatus,
        Unparsed,
        check_samples,
        read_labels,
    )
    from tomflywheel.world.generators import (
        GENERATORS,
        available_cpus,
        complement,
        generate,
        generator_for,
        write_generated,
    )
    from tomflywheel.world.language import ANSWER_FORMATS, answer_text, is_numbered, render_story
    from tomflywheel.world.model import (
        Answer,
        EventRecord,
        QuestionSpec,
        Story,
        StoryRecord,
        event_to_dict,
    )
    from tomflywheel.world.physics import PROFILES
    from tomflywheel.world.samples import (
        DatasetStats,
        LineVerification,
        Reason,
        dataset_stats,
        explain_answers,
        rationale,
        read_trace,
        sample_spec,
        verify_file,
    )
    from tomflywheel.world.verifiers import Answerer, derive_answer

__getattr__, __dir__ = attach(
    __name__,
    {
        "checks": (
            "Benchmark",
            "CheckReport",
            "LabelReading",
            "LabelStatus",
            "Unparsed",
            "check_samples",
            "read_labels",
        ),
        "generators": (
            "GENERATORS",
            "available_cpus",
            "complement",
            "generate",
            "generator_for",
            "write_generated",
        ),
        "language": ("ANSWER_FORMATS", "answer_text", "is_numbered", "render_story"),
        "model": ("Answer", "EventRecord", "QuestionSpec", "Story", "StoryRecord", "event_to_dict"),
        "physics": ("PROFILES",),
        "samples": (
            "DatasetStats",
            "LineVerification",
            "Reason",
            "dataset_stats",
            "explain_answers",
            "rationale",
            "read_trace",
            "sample_spec",
            "verify_file",
        ),
        "verifiers": ("Answerer", "derive_answer"),
    },
)
"""Each export's sub-package: ``import tomflywheel.world`` loads none of them."""

__all__ = [
    "ANSWER_FORMATS",
    "GENERATORS",
    "PROFILES",
    "Answer",
    "Answerer",
    "Benchmark",
    "CheckReport",
    "DatasetStats",
    "EventRecord",
    "LabelReading",
    "LabelStatus",
    "LineVerification",
    "QuestionSpec",
    "Reason",
    "Story",
    "StoryRecord",
    "Unparsed",
    "answer_text",
    "available_cpus",
    "check_samples",
    "complement",
    "dataset_stats",
    "derive_answer",
    "event_to_dict",
    "explain_answers",
    "generate",
    "generator_for",
    "is_numbered",
    "rationale",
    "read_labels",
    "read_trace",
    "render_story",
    "sample_spec",
    "verify_file",
    "write_generated",
]
