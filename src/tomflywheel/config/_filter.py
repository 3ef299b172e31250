"""Settings of the filter stage (the ``filter:`` section): every threshold and switch."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from tomflywheel.config._base import Strict as _Strict


class LimitSettings(_Strict):
    """Length limits of the ``fields`` check."""

    max_story_chars: int = Field(default=12000, ge=1)
    """Longest story accepted."""
    max_question_chars: int = Field(default=1000, ge=1)
    """Longest question accepted."""
    max_answer_chars: int = Field(default=1000, ge=1)
    """Longest answer or option accepted."""
    max_options: int = Field(default=26, ge=2)
    """Most options of a choice question (the prompts letter them A-Z)."""


class DedupSettings(_Strict):
    """Exact and near-duplicate detection within the set, and the contamination guard."""

    near_duplicate_threshold: float = Field(default=0.6, gt=0.0, le=1.0)
    """Word-shingle Jaccard similarity of two stories from which they are near duplicates
    (questions and correct answers must match too: see ``question_similarity``)."""
    question_similarity: float = Field(default=0.7, gt=0.0, le=1.0)
    """Word-set Jaccard of two questions (naming the same people and numbers in the same order)
    from which they ask the same thing; questions that normalize to the same text always do."""
    contamination_threshold: float = Field(default=0.5, gt=0.0, le=1.0)
    """Word-shingle Jaccard of a story with any evaluation story from which it is rejected as a
    copy of a test item (story level: a copied story leaks every question about it). With
    2-word shingles, distinct ToMi test stories reach at most 0.41 with one another, synthetic
    ToMi-style stories at most 0.33 with them, and a copy with one agent renamed throughout
    keeps at least 0.53."""
    num_perm: int = Field(default=128, ge=16, le=1024)
    """MinHash permutations (more: finer similarity estimates, slower)."""
    shingle_size: int = Field(default=2, ge=1, le=10)
    """Words per shingle; an edit of short templated stories (ToMi's are ~25 words) spoils fewer
    shingles when this is small, while 1 would make every story of a template alike."""
    lsh_margin: float = Field(default=0.2, ge=0.0, lt=1.0)
    """The LSH index looks for candidates this far below a threshold; candidates are then
    confirmed by their exact Jaccard, so the margin trades speed for recall only (0.2 with 128
    permutations: a pair at the threshold is proposed with probability >= 0.98)."""
    seed: int = 1
    """MinHash permutation seed."""


class ContaminationSettings(_Strict):
    """Which evaluation sets the contamination guard protects."""

    datasets: list[str] | None = None
    """File stems under the evaluation folder to guard; ``null`` guards every ``*.jsonl``."""
    extra_paths: list[Path] = Field(default_factory=list)
    """More JSONL files, or folders of them, to guard."""


class RubricSettings(_Strict):
    """The LLM rubric judge and its pass marks."""

    min_clarity: int = Field(default=3, ge=1, le=5)
    """Lowest clarity score (1-5) accepted."""
    min_solvability: int = Field(default=3, ge=1, le=5)
    """Lowest solvability score (1-5) accepted."""
    require_tom: bool = True
    """Reject a sample whose question needs no theory of mind, unless it is a control."""
    control_question_types: list[str] = Field(
        default_factory=lambda: ["memory", "reality", "order_0", "Q0"]
    )
    """``meta.question_type`` values that are controls (exempt from ``require_tom``); so are
    samples with ``meta.control`` true and traces asking a memory or reality question."""
    max_tokens: int = Field(default=256, ge=32)
    """Longest rubric reply."""
    story_chars: int = Field(default=3000, ge=200)
    """Stories are cut to this many characters in rubric, solve and repair prompts."""


class SolveSettings(_Strict):
    """Label verification of free-form samples: the judge model solves each one k times."""

    k: int = Field(default=5, ge=1, le=50)
    """Solving trials per sample; the label is kept when more than half agree with it."""
    temperature: float = Field(default=0.7, ge=0.0)
    """Sampling temperature of the trials (each trial has its own stable seed)."""
    max_tokens: int = Field(default=32, ge=1)
    """Longest answer per trial."""
    calibration_items: int = Field(default=30, ge=0)
    """When the judge must verify labels the engine cannot read, it also solves up to this many
    samples whose label the engine verified (a seeded choice by id), to measure how often its
    majority agrees with the engine; 0: no calibration."""
    min_calibration_accuracy: float = Field(default=0.8, ge=0.0, le=1.0)
    """Below this agreement with the engine the judge fails its calibration: labels only it
    confirmed are counted as unverified."""
    min_calibration_cases: int = Field(default=5, ge=1)
    """Fewer calibration samples than this leave the judge uncalibrated (said, not failed)."""


class LabelSettings(_Strict):
    """Label verification of naturalized samples (events extracted back from the prose)."""

    extraction_max_tokens: int = Field(default=1024, ge=64)
    """Longest extraction reply (one JSON event per sentence)."""
    admit_unverified: bool = False
    """Without an LLM (``--no-llm``), admit naturalized samples, and free-form samples whose
    story the world engine cannot read, though nothing verified their label; false rejects
    them as ``label_unverified``."""
    contradicted: Literal["repair", "drop"] = "repair"
    """A gold no rule profile gives (an error), or a convention-dependent one the profile named
    explicitly does not give (never under ``auto``): ``repair`` relabels it with the engine's
    answer (recorded in ``meta.label_repair``: old and new label, why, profile, kind; the story
    is never touched), ``drop`` rejects it (``label_contradicted`` / ``label_convention``)."""


class RepairSettings(_Strict):
    """The LLM rewrite of samples whose every failure is repairable."""

    attempts: int = Field(default=2, ge=0, le=10)
    """Rewrites tried per sample (``--repair N`` overrides); 0 disables repair."""
    max_tokens: int = Field(default=768, ge=64)
    """Longest rewrite reply."""


class AuditSettings(_Strict):
    """The shortcut audit of the admitted set, which admission enforces."""

    enforce: bool = True
    """Keep every question family of the admitted set free of flagged shortcuts (balance it)."""
    margin: float = Field(default=0.10, ge=0.0, le=1.0)
    """How far above chance a heuristic (or the probe) may answer a family (0.10: 10 points)."""
    min_items: int = Field(default=20, ge=1)
    """Families with fewer items (per heuristic) are reported but never flagged."""
    probe: bool = True
    """Also fit the learned surface probe (held out)."""
    complements: bool = True
    """Balance by adding the engine's complements (the same story edited so the answer flips
    side) before dropping samples."""


class FilterSettings(_Strict):
    """The filter stage: checks, label verification, rubric, dedup, contamination, repair."""

    limits: LimitSettings = Field(default_factory=LimitSettings)
    """Field length limits."""
    dedup: DedupSettings = Field(default_factory=DedupSettings)
    """Duplicate and contamination similarity settings."""
    contamination: ContaminationSettings = Field(default_factory=ContaminationSettings)
    """Which evaluation sets are guarded."""
    rubric: RubricSettings = Field(default_factory=RubricSettings)
    """Rubric judge thresholds."""
    solve: SolveSettings = Field(default_factory=SolveSettings)
    """Free-form label verification."""
    label: LabelSettings = Field(default_factory=LabelSettings)
    """Naturalized label verification."""
    repair: RepairSettings = Field(default_factory=RepairSettings)
    """Repair of repairable failures."""
    audit: AuditSettings = Field(default_factory=AuditSettings)
    """The shortcut audit admission enforces."""
    disabled_checks: list[str] = Field(default_factory=list)
    """Checks not to run (by registry name); a disabled check is recorded as skipped."""
    answer_profile: str = "auto"
    """The world engine's rule profile for verifying labels of samples without a trace
    (``default``, ``tomi``, ``hitom``, ``tgtom``); ``auto``: each benchmark's own (ToMi's
    for ToMi, ...), else ``default``. ``--profile`` overrides."""

    @model_validator(mode="after")
    def _no_repeats(self) -> FilterSettings:
        if len(set(self.disabled_checks)) != len(self.disabled_checks):
            raise ValueError("disabled_checks names a check twice")
        return self
