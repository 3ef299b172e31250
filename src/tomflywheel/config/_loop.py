"""Settings of the feedback stage and of the flywheel loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from tomflywheel.config._base import Strict
from tomflywheel.config._eval import DatasetRef


class FeedbackSettings(Strict):
    """Diagnosis of bad cases and synthesis of targeted training stories."""

    unsure_margin: float = Field(default=0.5, ge=0.0)
    """A right log-prob answer whose margin over the runner-up is below this (nats) is mined."""
    llm_diagnosis: bool = True
    """Ask the LLM to diagnose stories the engine cannot parse."""
    cross_check_rate: float = Field(default=0.2, ge=0.0, le=1.0)
    """Share of symbolically diagnosed cases also diagnosed by the LLM (agreement figure)."""
    max_llm_diagnoses: int | None = Field(default=None, ge=0)
    """Cap on LLM diagnosis requests per run (``null``: no cap)."""
    plan_self_diagnoses: bool = False
    """Let LLM diagnoses made by the evaluated model itself steer the synthesis plan. Off: a
    model explaining its own mistakes is no independent finding; they are counted apart."""
    min_diagnoser_agreement: float = Field(default=0.6, ge=0.0, le=1.0)
    """Calibration of the LLM diagnoser: on the cross-checked cases (the engine's diagnosis
    known), the share it must agree on for its other diagnoses to steer the plan."""
    min_calibration_cases: int = Field(default=5, ge=1)
    """Fewer cross-checked cases than this leave the LLM diagnoser uncalibrated."""
    plan_uncalibrated_diagnoses: bool = False
    """Let LLM diagnoses steer the plan when their diagnoser is uncalibrated or failed
    calibration. Off: they are counted apart and left out of the plan."""
    budget: int = Field(default=120, ge=0)
    """Candidate samples to synthesize in all (controls included). Stories are taken whole, so
    an item whose share is smaller than one story's question family still gets that story."""
    min_per_weakness: int = Field(default=4, ge=1)
    """Each weakness in the plan gets at least this many samples."""
    controls: bool = True
    """Add matched controls (true-belief twins; Kosinski's control variants)."""
    target_weight: float = Field(default=2.0, ge=0.0)
    """How much more a target failure (a belief that differs from reality) weighs in the
    budget than a control failure (memory, reality, true belief)."""
    max_controls_per_target: float = Field(default=1.0, ge=0.0)
    """Cap on the budget for control failures: at most this many per target sample."""
    complete_families: bool = True
    """Every synthesized story yields its complete question family (ToMi's six types, Hi-ToM's
    orders 0-4, tgtom's twelve types), so false beliefs come with true-belief twins."""
    diversity: float = Field(default=0.3, ge=0.0, le=1.0)
    """Share of sentences rendered with non-benchmark phrasings."""
    match_surface: bool = True
    """Synthesized samples take the surface of the evaluated set whose failures they answer:
    line numbers as it has them, lettered options where it is answered with a letter."""
    choice_share: float = Field(default=0.0, ge=0.0, le=1.0)
    """With ``match_surface``, the share of open questions (with candidates) that are asked
    with lettered options anyway, drawn per sample: a mix of answer formats, so that training
    on open answers does not unlearn answering with a letter."""
    answer_profile: Literal["principled", "benchmark"] = "principled"
    """Answer rules of synthesized stories: the engine's ``principled`` default, or the
    ``benchmark``'s own labelling convention where a generator imitating it has one (ToMi's
    second-order no-ToM items differ). Recorded in each plan item's parameters."""
    generator_params: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Parameters a generator gets whenever the plan calls it, over the plan's own, by
    generator name: ``{hitom: {chapters: [1]}}`` keeps Hi-ToM-style stories to one chapter
    (about 500 tokens: they fit a 640-token training limit, where three chapters do not)."""
    rationale: bool = True
    """Attach a step-by-step rationale derived from the trace to each symbolic sample."""
    seed: int = 0
    """Seeds the plan and every generator it calls."""
    adversarial: bool = False
    """Keep only candidates the evaluated model fails (ExploreToM-style selection)."""
    adversarial_pool: int = Field(default=3, ge=1)
    """Candidates generated per sample wanted, when adversarial."""
    adversarial_requests: int = Field(default=400, ge=0)
    """Request budget of the adversarial selection."""
    naturalize: bool = False
    """Rewrite a share of symbolic stories as fluent prose (marked for verification)."""
    naturalize_fraction: float = Field(default=0.25, ge=0.0, le=1.0)
    """Share of symbolic samples to naturalize."""
    naturalize_max_tokens: int = Field(default=700, ge=64)
    """Longest rewrite asked for; a rewrite cut at it is counted as failed, not kept."""
    free_form: bool = False
    """Ask the LLM for new stories modelled on bad cases (unverified labels)."""
    free_form_count: int = Field(default=8, ge=0)
    """How many free-form stories."""
    free_form_max_tokens: int = Field(default=600, ge=64)
    """Longest free-form story (with its question and answer) asked for."""


class FlywheelSettings(Strict):
    """The loop: evaluate -> feedback -> filter -> admit (-> train), round after round."""

    rounds: int = Field(default=1, ge=1)
    """Rounds to run."""
    runs_dir: Path = Path("runs")
    """Where runs are created (``runs/<run_id>/``)."""
    train_dir: Path = Path("train_datasets")
    """Where admitted data, rejects and the manifest go."""
    train_name: str | None = None
    """Name of the training set the rounds admit into; default ``flywheel-<run_id>``."""
    filter_llm: bool = True
    """Run the filter's LLM checks (rubric, extraction, k-solve) and repairs."""
    repair_attempts: int | None = Field(default=None, ge=0)
    """Rewrites per repairable candidate (default: the filter's setting)."""
    reseed: bool = True
    """Give each round's synthesis its own seed (``feedback.seed + round - 1``), so a round
    that finds the same weaknesses still makes new stories."""
    replay: float = Field(default=1.0, ge=0.0, le=1.0)
    """Share of earlier rounds' admitted samples mixed into a round's training data (1: all
    of them; 0: only the round's new samples)."""
    continue_training: bool = False
    """Fine-tune the last round's model instead of the base model."""
    train: bool = False
    """After admission, fine-tune on the training set, serve the new model, re-evaluate the
    held-out sets and report the lift; the next round evaluates the new model."""
    heldout: list[DatasetRef] = Field(default_factory=list)
    """Evaluation sets never used as synthesis seeds, measured before and after training."""
    logprob_heldout: bool = True
    """Also score every held-out set with options or candidates by log-prob (a format-free
    measure of belief tracking beside generation accuracy)."""
    fresh_prompts: int = Field(default=0, ge=0)
    """GRPO (``train.method: grpo`` or ``sft-grpo``): about this many new samples per round from
    the generators the round's plan chose, past the stories synthesis used, admitted by the
    filter (contamination guard included) into ``<train_name>-fresh-r<k>`` and added to GRPO's
    prompts only, never to SFT's data. 0: GRPO prompts only the admitted samples."""
