"""``CheckContext``: what a check may read besides the candidate (settings, indexes, evidence)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tomflywheel.config import FilterSettings
from tomflywheel.filter.dedup import ContaminationIndex, DuplicateIndex, Features
from tomflywheel.filter.records import Evidence


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
        judge: The model that answers the LLM checks ("" when unknown).
        judge_is_evaluated: Whether the judge is the model under evaluation (no separate
            ``judge.llm``): its agreement with a label verifies nothing.
        calibration_ids: Engine-verified samples the judge also solves, to measure its
            agreement with the engine (see ``calibration_choice``).
    """

    settings: FilterSettings = field(default_factory=FilterSettings)
    use_llm: bool = False
    duplicates: DuplicateIndex | None = None
    contamination: ContaminationIndex | None = None
    first_ids: dict[str, int] = field(default_factory=dict)
    features: tuple[Features, np.ndarray] | None = None
    evidence: Evidence = field(default_factory=Evidence)
    judge: str = ""
    judge_is_evaluated: bool = False
    calibration_ids: frozenset[str] = frozenset()

    def judge_name(self) -> str:
        """Who judges LLM checks, in words (``m (the evaluated model)``)."""
        name = self.judge or "?"
        return f"{name} (the evaluated model)" if self.judge_is_evaluated else name
