"""A flywheel round's ``summary.json`` as a record: what the round measured, made and spent.

Written by the flywheel (``flywheel/_summary.py``); read by the run report, the CLI and the
benches by attribute. Every field a round summary has ever had reads back (missing ones take
their defaults), and the JSON keeps the keys, in the order, it always had.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from tomflywheel.artifacts._record import Record
from tomflywheel.artifacts._scores import AnswerAudit, PairedLiftRecord, Rate, ShortcutScores
from tomflywheel.artifacts._stages import TrainOutputs, Usage

Part = Literal["all", "targets", "controls"]
"""Held-out items: all of them, targets (false beliefs) and controls."""

PARTS: tuple[Part, ...] = ("all", "targets", "controls")


class AllCorrect(Record):
    """Units right only when every linked sample is (``TaskSpec.all_correct_by``)."""

    by: str | None = None
    n: int
    correct: int | None = None
    accuracy: float | None = None
    ci95: tuple[float, float] | None = None


class DatasetAccuracy(Record):
    """One evaluated dataset's figures, from its ``metrics.json``."""

    task: str
    overall: Rate
    all_correct: AllCorrect | None = None
    groups: dict[str, dict[str, Rate]] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    shortcuts: AnswerAudit | None = None
    """Which heuristic agrees most with the model's answers."""
    shortcut: ShortcutScores | None = None
    """The scores no shortcut passes (``None`` for a set that asks no minds)."""
    usage: Usage = Field(default_factory=Usage)


class GroupLift(Record):
    """One metric group's value before and after training."""

    before: Rate
    after: Rate
    lift: float | None = None


class ScoreLifts(Record):
    """The lift of each score no shortcut passes."""

    belief_balanced: float | None = None
    story_level: float | None = None
    paired: float | None = None


class ShortcutLift(Record):
    """Before and after scores no shortcut passes, and the lift of each."""

    before: ShortcutScores | None = None
    after: ShortcutScores | None = None
    lift: ScoreLifts = Field(default_factory=ScoreLifts)


class DatasetLift(Record):
    """One held-out set before and after training: accuracy on each part, paired lifts."""

    before: dict[Part, Rate]
    after: dict[Part, Rate]
    lift: dict[Part, float | None]
    paired: dict[Part, PairedLiftRecord | None] = Field(default_factory=dict)
    """Clustered by story, on the items scored both times (absent from older summaries)."""
    groups: dict[str, dict[str, GroupLift]] = Field(default_factory=dict)
    shortcut_warning: str | None = None
    shortcut: ShortcutLift | None = None


Lifts = dict[str, DatasetLift]
"""Held-out set label -> its lift."""


class BadCaseExample(Record):
    """A diagnosed bad case with the model's own output."""

    dataset: str
    sample_id: str
    question: str = ""
    gold: list[str] = Field(default_factory=list)
    output: str = ""
    evidence: str = ""


class LlmAgreement(Record):
    """Symbolic against LLM categories on the cross-checked cases."""

    n: int
    agree: int
    rate: float


class ErrorProfileSummary(Record):
    """The round's error profile (``feedback/error_profile.json``), the parts a round keeps."""

    total: int | None = None
    diagnosed: int | None = None
    by_category: dict[str, int] | None = None
    """Independent diagnoses only: the evaluated model's own are under ``self_diagnosed``."""
    by_method: dict[str, int] | None = None
    by_diagnoser: dict[str, int] | None = None
    self_diagnosed: dict[str, int] | None = None
    llm_agreement: LlmAgreement | None = None


class CandidateCounts(Record):
    """Synthesized candidates, by origin."""

    total: int = 0
    by_origin: dict[str, int] = Field(default_factory=dict)


class FilterOutcome(Record):
    """Admitted, rejected (by reason) and repaired counts of one input file."""

    admitted: int = 0
    rejected: int = 0
    repaired: int = 0
    reject_reasons: dict[str, int] = Field(default_factory=dict)


class FreshOutcome(Record):
    """GRPO's fresh stories: drawn, then filtered apart from the admitted set."""

    candidates: int = 0
    admitted: int = 0
    rejected: int = 0
    repaired: int = 0
    reject_reasons: dict[str, int] = Field(default_factory=dict)


class AuditState(Record):
    """The shortcut audit of the admitted set (the filter's manifest ``audit.admitted``)."""

    margin: float | None = None
    """How far above chance a heuristic must score on a family to be flagged."""
    min_items: int | None = None
    families: dict[str, int] = Field(default_factory=dict)
    """Question family -> admitted items."""
    rows: list[dict[str, object]] = Field(default_factory=list)
    """Each (family, heuristic) pair scored, as the filter's manifest has it."""
    flagged: list[str] = Field(default_factory=list)


class AuditRun(Record):
    """What one admission's balance did (the filter's manifest ``audit.runs``)."""

    flagged_before: list[str] = Field(default_factory=list)
    """Flagged as the checks decided the candidates."""
    flagged_after: list[str] = Field(default_factory=list)
    dropped: dict[str, str] = Field(default_factory=dict)
    """Dropped sample id -> the flagged shortcut it was dropped against."""
    complements: list[str] = Field(default_factory=list)
    """Ids of the complements balancing added."""
    unresolved: list[str] = Field(default_factory=list)


class AdmissionAudit(Record):
    """The shortcut audit of the admitted set, and what this round's balance did."""

    admitted: AuditState
    this_round: AuditRun


class TokenCounts(Record):
    """Tokens of the evaluated answers and of every LLM request of the round."""

    evaluated_prompt: int = 0
    evaluated_completion: int = 0
    llm_prompt: int = 0
    llm_completion: int = 0


class DatasetChanges(Record):
    """How a round's evaluated datasets differ from the previous round's."""

    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    resized: dict[str, tuple[int, int]] = Field(default_factory=dict)
    """Name -> samples before and now."""


class SurfaceProfileRecord(Record):
    """A set's surface (:class:`tomflywheel.audit.SurfaceProfile` as written)."""

    n: int
    numbered: float
    formats: dict[str, float]
    prompt_words: float


class SurfaceCheck(Record):
    """The training data's surface, each measured set's, and the gaps between them."""

    data: Path
    profile: SurfaceProfileRecord
    measured: dict[str, SurfaceProfileRecord] = Field(default_factory=dict)
    gaps: list[str] = Field(default_factory=list)


class RoundSummary(Record):
    """``round_<k>/summary.json``: everything one flywheel round did."""

    round: int
    model: str
    """The evaluated model's served name."""
    exp_dir: Path | None = None
    bad_cases: dict[str, list[BadCaseExample]] = Field(default_factory=dict)
    """A few diagnosed bad cases per error category."""
    trained: TrainOutputs | None = None
    lift: Lifts | None = None
    """Held-out sets after training against the model the round started from."""
    lift_vs_base: Lifts | None = None
    """Rounds after the first: against the base model."""
    lift_vs_sft_stage: Lifts | None = None
    """``sft-grpo``: against the round's own SFT stage."""
    accuracy: dict[str, DatasetAccuracy] = Field(default_factory=dict)
    error_profile: ErrorProfileSummary = Field(default_factory=ErrorProfileSummary)
    candidates: CandidateCounts = Field(default_factory=CandidateCounts)
    filter: FilterOutcome = Field(default_factory=FilterOutcome)
    admission_audit: AdmissionAudit | None = None
    fresh: FreshOutcome | None = None
    usage: dict[str, Usage] = Field(default_factory=dict)
    """Stage -> its LLM use (stages without any left out)."""
    requests: int = 0
    cache_hits: int = 0
    tokens: TokenCounts = Field(default_factory=TokenCounts)
    seconds: dict[str, float] = Field(default_factory=dict)
    """Stage -> wall time, in the order the stages ran."""
    datasets_changed: DatasetChanges | None = None
    surface: SurfaceCheck | None = None
    notes: list[str] = Field(default_factory=list)
