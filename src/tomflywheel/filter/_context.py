"""``CheckContext``: what a check may read besides the candidate (settings, indexes, evidence)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tomflywheel.config import FilterSettings
from tomflywheel.filter._dedup import ContaminationIndex, DuplicateIndex, Features
from tomflywheel.filter._evidence import Evidence


@dataclass(frozen=True)
class CheckContext:
    """Everything a check reads besides the candidate; checks never change it.

    Args:
        settings: Thresholds and switches.
        use_llm: Whether LLM checks may run (false with ``--no-llm``).
        duplicates: Earlier items, for the duplicate checks.
        contamination: Evaluation stories, for the contamination guard.
        first_ids: For each sample id, the input position where it first appears (-1: admitted
            by an earlier run).
        features: The candidate's duplicate-finding features and MinHash signature, when
            computed in bulk beforehand.
        evidence: The LLM's replies about this version of the candidate.
    """

    settings: FilterSettings = field(default_factory=FilterSettings)
    use_llm: bool = False
    duplicates: DuplicateIndex | None = None
    contamination: ContaminationIndex | None = None
    first_ids: dict[str, int] = field(default_factory=dict)
    features: tuple[Features, np.ndarray] | None = None
    evidence: Evidence = field(default_factory=Evidence)
