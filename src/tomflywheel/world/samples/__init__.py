"""Normalized samples as the engine sees them: traces, re-verification, explanations.

``meta.trace`` (made, read back, and re-verified for one sample or a whole file), a sample's
story and spec, step-by-step rationales, what each plausible answer corresponds to, and dataset
statistics.

May import: ``model``, ``physics``, ``verifiers``, ``language``.
"""

from typing import TYPE_CHECKING

from tomflywheel._lazy_exports import attach

if TYPE_CHECKING:
    from tomflywheel.world.samples._explain import (
        AnswerClass,
        Reason,
        answer_explanations,
        classify_answer,
        explain_answers,
    )
    from tomflywheel.world.samples._rationale import rationale
    from tomflywheel.world.samples._sample_spec import grammar_of, sample_spec
    from tomflywheel.world.samples._stats import DatasetStats, dataset_stats
    from tomflywheel.world.samples._trace import (
        Verification,
        make_trace,
        read_trace,
        verify_sample,
        verify_trace,
    )
    from tomflywheel.world.samples._verify_file import LineVerification, verify_file

# Each corner loads on first use: generating needs only traces, checking a file no explanations
# (the story parser and msgspec's structs are tens of milliseconds of a process's start).
__getattr__, __dir__ = attach(
    __name__,
    {
        "_explain": (
            "AnswerClass",
            "Reason",
            "answer_explanations",
            "classify_answer",
            "explain_answers",
        ),
        "_rationale": ("rationale",),
        "_sample_spec": ("grammar_of", "sample_spec"),
        "_stats": ("DatasetStats", "dataset_stats"),
        "_trace": ("Verification", "make_trace", "read_trace", "verify_sample", "verify_trace"),
        "_verify_file": ("LineVerification", "verify_file"),
    },
)

__all__ = [
    "AnswerClass",
    "DatasetStats",
    "LineVerification",
    "Reason",
    "Verification",
    "answer_explanations",
    "classify_answer",
    "dataset_stats",
    "explain_answers",
    "grammar_of",
    "make_trace",
    "rationale",
    "read_trace",
    "sample_spec",
    "verify_file",
    "verify_sample",
    "verify_trace",
]
