"""The records every stage reads and writes: samples, answers, and their JSONL I/O."""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tomflywheel._io import JsonlAppender, read_jsonl

__all__ = [
    "SCORED",
    "Answer",
    "CheckResult",
    "CheckStatus",
    "Diagnosis",
    "ErrorCategory",
    "JsonlAppender",
    "Judgment",
    "MethodRef",
    "Prediction",
    "QAKind",
    "QualityAttempt",
    "QualityDecision",
    "QualityVerdict",
    "Sample",
    "Verdict",
    "read_samples",
]


class QAKind(StrEnum):
    """How a sample is answered, derived from its answer lists."""

    OPEN = "open"
    SINGLE_CHOICE = "single_choice"
    MULTI_CHOICE = "multi_choice"


class Answer(BaseModel):
    """Gold answers; no wrong answers means open QA, otherwise choice QA."""

    model_config = ConfigDict(extra="forbid")

    correct_answers: list[str] = Field(min_length=1)
    """Every acceptable answer (open QA) or every correct option (choice QA)."""
    wrong_answers: list[str] = Field(default_factory=list)
    """The wrong options of a choice question; empty for open QA."""

    @field_validator("correct_answers")
    @classmethod
    def _no_blank_gold(cls, value: list[str]) -> list[str]:
        if any(not answer.strip() for answer in value):
            raise ValueError("a correct answer is blank")
        return value


class Sample(BaseModel):
    """One normalized question about a story; grouping fields for metrics live in ``meta``."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    """Unique within its dataset, stable across imports (seeds and resumes key on it)."""
    story: str
    """The context the question is about."""
    question: str
    """The question (may be empty for sentence-completion tasks, whose prompt is the story)."""
    answer: Answer
    """Gold answers and, for choice QA, the wrong options."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Dataset, split, question type, order, condition, trace, lineage, ..."""

    @property
    def kind(self) -> QAKind:
        """Open, single-choice or multi-choice, derived from the answer lists."""
        if not self.answer.wrong_answers:
            return QAKind.OPEN
        if len(self.answer.correct_answers) == 1:
            return QAKind.SINGLE_CHOICE
        return QAKind.MULTI_CHOICE

    @property
    def options(self) -> list[str]:
        """Correct then wrong answers, unshuffled (the evaluation shuffles them by sample id)."""
        return [*self.answer.correct_answers, *self.answer.wrong_answers]


def read_samples(path: Path) -> Iterator[Sample]:
    """Yield the samples of a JSONL file.

    Raises:
        DataError: A line is malformed; the message names file:line:field.
    """
    return read_jsonl(Path(path), Sample)


class MethodRef(BaseModel):
    """A pluggable piece named with its arguments, so any record says what produced it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """Registry name (``rules``, ``hybrid``, ``logprob``, ...)."""
    args: dict[str, Any] = Field(default_factory=dict)
    """The factory's arguments."""


class Prediction(BaseModel):
    """What the model said about one sample in one trial (``prediction.jsonl``)."""

    model_config = ConfigDict(extra="forbid")

    sample_id: str
    """The sample asked about."""
    trial: int = 0
    """Trial index (0 when one trial)."""
    mode: str
    """``generate`` (a generated answer) or ``logprob`` (options scored, no generation)."""
    endpoint: str
    """``chat`` or ``completions``."""
    messages: list[dict[str, str]] | None = None
    """Chat messages sent (chat endpoint)."""
    prompt: str | None = None
    """Prompt text sent (completions endpoint, log-prob context)."""
    options: list[str] | None = None
    """Options in the order shown (after the seeded shuffle); ``None`` for open QA."""
    option_map: list[int] | None = None
    """For each shown option, its index in ``sample.options`` (correct answers first)."""
    gold_letters: list[str] | None = None
    """Letters of the correct options as shown."""
    temperature: float = 0.0
    """Sampling temperature."""
    seed: int | None = None
    """Sampling seed (trials)."""
    raw_output: str | None = None
    """The model's text, untouched."""
    option_logprobs: list[float] | None = None
    """Log-prob of each shown option as a continuation (log-prob mode)."""
    option_token_counts: list[int] | None = None
    """Number of tokens of each shown option (for per-token normalization)."""
    usage: dict[str, int] = Field(default_factory=dict)
    """Token counts reported by the server."""
    latency_s: float | None = None
    """Request wall time."""
    error: str | None = None
    """Why no output exists (the server refused the request); such a record is never judged."""


class Verdict(StrEnum):
    """The outcome of judging one prediction."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    AMBIGUOUS = "ambiguous"
    """The reply names more than one answer (two option letters, two of the story's candidate
    locations): counted apart and scored as wrong (the strict policy; see docs/evaluation.md)."""
    UNJUDGED = "unjudged"
    """The judge failed or contradicted itself (no valid verdict): counted and shown, never
    scored."""
    ERROR = "error"
    """The prediction itself failed (no output to judge)."""


SCORED = (Verdict.CORRECT, Verdict.INCORRECT, Verdict.AMBIGUOUS)
"""Verdicts that count in an accuracy's denominator (only ``correct`` in its numerator)."""


class Judgment(BaseModel):
    """The verdict on one prediction (``judgment.jsonl``)."""

    model_config = ConfigDict(extra="forbid")

    sample_id: str
    """The sample judged."""
    trial: int = 0
    """Trial index."""
    verdict: Verdict
    """Correct, incorrect, unjudged or error."""
    method: MethodRef
    """The judging method and its arguments."""
    match_type: str | None = None
    """How rules matched (exact, normalized, contained, prefix, suffix, letter, option_text,
    first_token, logprob), or ``none``/``unparsable`` when nothing matched; ``judge`` when an LLM
    decided."""
    answer: str | None = None
    """The answer as parsed from the output (letters for choice QA)."""
    rules_verdict: Verdict | None = None
    """What the rules alone said, when an LLM judge also ran (for agreement)."""
    judge_verdict: Verdict | None = None
    """What the LLM judge said when it was asked, after the stage's own check of its reply
    (``unjudged`` when it failed or contradicted itself). On items the rules decided, the judge
    is asked only to estimate its accuracy (calibration) and never changes ``verdict``."""
    judge_answer: str | None = None
    """The answer the LLM judge read in the output (checked against the gold by the stage)."""
    rules_certain: bool | None = None
    """Whether the rules alone were certain (one answer read in a closed set, or an exact
    match), when an LLM judge also ran: its agreement there estimates its accuracy."""
    reason: str | None = None
    """The LLM judge's one-sentence reason."""
    failure: str | None = None
    """Why the judge gave no verdict (with ``unjudged``, or with ``judge_verdict: unjudged`` on
    an item the rules decided)."""
    raw_judge_output: str | None = None
    """The judge's last reply when it failed to validate."""


class ErrorCategory(StrEnum):
    """Why a model got a ToM question wrong (the feedback stage's taxonomy).

    The first seven are decided symbolically when the story's events are known; the rest come
    from the LLM diagnosis of stories the world engine cannot parse.
    """

    REALITY_BIAS = "reality_bias"
    """Answered where the object really is, as if the agent had seen every move (false belief
    ignored)."""
    STALE_MEMORY = "stale_memory"
    """Answered where the object was at first (or earlier), a location no belief supports now."""
    ORDER_CONFUSION = "order_confusion"
    """Answered a belief of another order (e.g. the first-order belief to a second-order
    question)."""
    PERSPECTIVE_CONFUSION = "perspective_confusion"
    """Answered another agent's belief at the right order (whose mind, not how deep)."""
    DISTRACTOR = "distractor"
    """Answered something named only in a distractor sentence, never a location of the object."""
    HALLUCINATION = "hallucination"
    """Answered an entity that is not in the story."""
    FORMAT = "format"
    """No answer could be read: no option letter, an empty or cut-off reply, the wrong format."""
    UNSUPPORTED = "unsupported"
    """Named a location of the story that no belief, order or moment supports."""
    KNOWLEDGE_ACCESS = "knowledge_access"
    """Misjudged who perceived or was told what (percept-to-belief errors) in free text."""
    INTENT_OR_EMOTION = "intent_or_emotion"
    """Misread a desire, intention or emotion."""
    COMMONSENSE = "commonsense"
    """A factual or commonsense slip unrelated to mental states."""
    OTHER = "other"
    """None of the above."""


class Diagnosis(BaseModel):
    """Why one bad case went wrong, with the evidence (``feedback/diagnoses.jsonl``)."""

    model_config = ConfigDict(extra="forbid")

    dataset: str
    """The experiment's dataset label."""
    sample_id: str
    trial: int = 0
    reason: str
    """Why it was mined: ``wrong``, ``unjudged`` or ``unsure`` (right, thin log-prob margin)."""
    method: str
    """``symbolic`` (from the story's events) or ``llm``."""
    category: ErrorCategory | None
    """The error category; ``None`` when the LLM diagnosis failed (see ``failure``)."""
    evidence: str = ""
    """What the answer corresponds to (symbolic), or the span the LLM pointed at."""
    explanation: str = ""
    """One sentence."""
    model_answer: str | None = None
    """The answer as read from the output."""
    question_type: str | None = None
    order: int | None = None
    also: list[ErrorCategory] = Field(default_factory=list)
    """Other categories the same answer also fits (symbolic)."""
    cross_check: ErrorCategory | None = None
    """The LLM's category for a symbolically diagnosed case (agreement sample)."""
    failure: str | None = None
    """Why no category could be given."""
    diagnoser: str | None = None
    """The model that made an LLM diagnosis (``None``: symbolic, from the story's events)."""
    by_evaluated_model: bool = False
    """The diagnosing model is the evaluated model (its own mistakes, explained by itself):
    counted apart, and kept out of the plan unless ``feedback.plan_self_diagnoses``."""


class CheckStatus(StrEnum):
    """The outcome of one filter check."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    """The check did not run (disabled, not applicable, no LLM, or an earlier fatal failure)."""


class CheckResult(BaseModel):
    """One filter check on one candidate: pass or fail, with a reason code and its evidence."""

    model_config = ConfigDict(extra="forbid")

    check: str
    """The check's registry name (``schema``, ``near_duplicate``, ``rubric``, ...)."""
    status: CheckStatus
    """Passed, failed or skipped."""
    reason: str | None = None
    """Failed: the reason code (``answer_leak``, ``label_mismatch``, ...); skipped: why."""
    detail: str = ""
    """The evidence: the leaked span, the near-duplicate's id and similarity, the derived answer."""
    repairable: bool = False
    """Whether an LLM rewrite may fix this failure."""

    @property
    def failed(self) -> bool:
        """Whether the check failed."""
        return self.status is CheckStatus.FAILED


class QualityDecision(StrEnum):
    """What the filter decided about a candidate."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"


class QualityAttempt(BaseModel):
    """Every check's result on one version of a candidate (0: as given, n: after n rewrites)."""

    model_config = ConfigDict(extra="forbid")

    attempt: int
    """0 for the candidate as given, n after the n-th rewrite."""
    checks: list[CheckResult]
    """Results in check order."""
    rubric: dict[str, Any] | None = None
    """The rubric judge's scores and issues, when it answered."""
    repair_failure: str | None = None
    """Why no rewrite followed this attempt although repair was allowed (the rewrite failed)."""


class QualityVerdict(BaseModel):
    """The filter's decision on one candidate with every attempt's evidence (``verdicts/``)."""

    model_config = ConfigDict(extra="forbid")

    sample_id: str
    """The candidate's id (or ``line-<n>`` when the record has none)."""
    input_hash: str
    """Hash of the candidate record as read; with the id it keys resumes."""
    input_file: str
    """The input file, as given."""
    line: int
    """1-based line of the candidate in the input file."""
    origin: str
    """``symbolic``, ``naturalized`` or ``free_form`` (as given or inferred)."""
    decision: QualityDecision
    """Accepted or rejected."""
    reasons: list[str] = Field(default_factory=list)
    """The reason codes of the failures of the last attempt (empty when accepted)."""
    attempts: list[QualityAttempt]
    """The candidate as given, then each rewrite."""
    config_hash: str
    """Hash of the filter settings that decided."""
    sample: Sample | None = None
    """The final sample (rewritten when repaired); None when the record is not a valid sample."""
    record: dict[str, Any] | str | None = None
    """The raw record (or line) when it is not a valid sample."""

    @property
    def repaired(self) -> bool:
        """Accepted after at least one rewrite."""
        return self.decision is QualityDecision.ACCEPTED and len(self.attempts) > 1
