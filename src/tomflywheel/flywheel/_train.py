"""A round's training step: held-out sets before, fine-tune, held-out sets after.

In the order a round runs them: ``fresh`` (GRPO with ``flywheel.fresh_prompts``: new stories of
the round's plan, admitted apart), ``heldout_before`` (the model the round started from),
``train`` (the base model, or the last trained one with ``flywheel.continue_training``, on
everything admitted so far or a replayed share of it), ``heldout_sft`` (``sft-grpo``: its SFT
stage) and ``heldout_after``. Each is a stage of the manifest, so a killed run resumes at the
one it was in; the train stage itself is named steps: base model, data, prompts, fine-tune,
and the outputs that name the trained model by its weights.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tomflywheel.artifacts import (
    FilterOutputs,
    FreshOutputs,
    GrpoPromptCounts,
    HeldoutOutputs,
    RunFolder,
    ServedFolder,
    TrainingMix,
    TrainingSets,
    TrainOutputs,
    Usage,
)
from tomflywheel.config import DatasetRef, Settings
from tomflywheel.errors import ConfigError
from tomflywheel.evaluation import EvalSummary
from tomflywheel.flywheel._fresh import fresh_candidates, grpo_prompts
from tomflywheel.flywheel._manifest import RunManifest, StageName
from tomflywheel.flywheel._replay import round_training_data
from tomflywheel.flywheel._round import RoundPlan, ServedModel, last_trained
from tomflywheel.llm import ensure_default_model
from tomflywheel.progress import Update
from tomflywheel.train import TrainResult, sft_stage_dir, train_model, weights_sha256


class RoundRunner(Protocol):
    """What the training step asks of the runner (``flywheel/_run.py``)."""

    settings: Settings
    run: RunFolder
    manifest: RunManifest
    on_status: Callable[[str], None]

    def stage(self, k: int, name: StageName, work: Callable[[], Any]) -> Any:
        """Run ``work`` as stage ``name`` of round ``k`` unless it finished."""
        ...

    def bar(self, description: str) -> contextlib.AbstractContextManager[Update]:
        """A progress display for one piece of long work."""
        ...

    def measure(
        self,
        plan: RoundPlan,
        exp_dir: Path,
        *,
        model: ServedModel | None = None,
        datasets: tuple[DatasetRef, ...] | None = None,
    ) -> EvalSummary:
        """Evaluate ``model`` on ``datasets`` into ``exp_dir``."""
        ...

    def admit(
        self, plan: RoundPlan, candidates: Path, name: str, label: str
    ) -> tuple[FilterOutputs, Usage]:
        """Filter ``candidates`` into the training set ``name``."""
        ...


def uses_fresh_prompts(settings: Settings) -> bool:
    """Whether the rounds add fresh engine stories to GRPO's prompts.

    Raises:
        ConfigError: ``flywheel.fresh_prompts`` set for a run that trains no GRPO.
    """
    if not settings.flywheel.fresh_prompts:
        return False
    if not settings.flywheel.train or settings.train.method == "sft":
        raise ConfigError(
            "flywheel.fresh_prompts adds prompts to GRPO; it needs flywheel.train: true and "
            f"train.method grpo or sft-grpo (now {settings.train.method})"
        )
    return True


def served(folder: ServedFolder) -> ServedModel:
    """A trained model as the embedded server serves it."""
    return ServedModel(name=folder.served_name, folder=folder.model_dir)


class TrainStep:
    """Round ``plan.round``'s training and the held-out measurements around it."""

    def __init__(self, runner: RoundRunner, plan: RoundPlan) -> None:
        self.runner = runner
        self.plan = plan
        self.k = plan.round
        self.settings = runner.settings
        self.folder = runner.run.round(plan.round)

    def run(self) -> None:
        """Every stage of the step, each skipped when the manifest has it done.

        Raises:
            ConfigError: No held-out set to measure, or nothing admitted to train on.
        """
        if not self.plan.heldout:
            raise ConfigError("flywheel.train needs flywheel.heldout: sets never used as seeds")
        stage = self.runner.stage
        if uses_fresh_prompts(self.settings):
            stage(self.k, "fresh", self.fresh)
        stage(self.k, "heldout_before", lambda: self.measure(self.plan.model, "heldout_before"))
        trained: TrainOutputs = stage(self.k, "train", self.train).outputs
        if trained.sft_stage is not None:  # how much of the lift was SFT's, on the same items
            sft = served(trained.sft_stage)
            stage(self.k, "heldout_sft", lambda: self.measure(sft, "heldout_sft"))
        stage(self.k, "heldout_after", lambda: self.measure(served(trained), "heldout_after"))

    def measure(self, model: ServedModel, name: str) -> tuple[HeldoutOutputs, Usage]:
        """The held-out sets as ``model`` answers them, into ``round_<k>/<name>``."""
        exp_dir = self.folder.heldout(name)
        summary = self.runner.measure(self.plan, exp_dir, model=model, datasets=self.plan.heldout)
        usage = Usage.model_validate(summary.usage)
        return HeldoutOutputs(exp_dir=exp_dir, model=model.name), usage

    def fresh(self) -> tuple[FreshOutputs, Usage]:
        """New stories of the round's plan for GRPO's prompts, admitted into their own set."""
        feedback = self.runner.manifest.stages(self.k).feedback
        candidates = self.folder.fresh_candidates
        made = fresh_candidates(
            feedback.outputs if feedback else None,
            candidates,
            count=self.settings.flywheel.fresh_prompts,
            with_rationale=self.settings.feedback.rationale,
        )
        name = f"{self.runner.manifest.train_name}-fresh-r{self.k}"
        outputs, usage = self.runner.admit(self.plan, candidates, name, f"fresh round {self.k}")
        return FreshOutputs(**outputs.model_dump(), candidates=made), usage

    # ---- the train stage, step by step --------------------------------------------------

    def base_model(self) -> Path:
        """The model training starts from: the base, or the last trained one when continuing."""
        previous = last_trained(self.runner.manifest, self.k)
        if self.settings.flywheel.continue_training and previous is not None:
            return previous.folder or Path(previous.name)
        return Path(self.settings.embedded.model or ensure_default_model(self.runner.on_status))

    def training_data(self) -> tuple[Path, TrainingMix]:
        """Everything admitted so far, or the round's new samples and a replayed share.

        Raises:
            ConfigError: Nothing admitted yet.
        """
        admitted = TrainingSets(self.settings.flywheel.train_dir).admitted(
            self.runner.manifest.train_name
        )
        if not admitted.exists():
            raise ConfigError(f"{admitted}: nothing admitted yet, so there is nothing to train on")
        feedback = self.runner.manifest.stages(self.k).feedback
        return round_training_data(
            admitted,
            self.folder.train_data,
            replay=self.settings.flywheel.replay,
            key=f"{self.runner.manifest.run_id}:{self.k}",
            feedback=feedback.outputs if feedback else None,
        )

    def prompts(self, data: Path) -> tuple[Path | None, GrpoPromptCounts | None]:
        """GRPO's prompts with the fresh stories after the round's data (none without them)."""
        fresh = self.runner.manifest.stages(self.k).fresh
        if fresh is None:
            return None, None
        return grpo_prompts(data, fresh.outputs.admitted, self.folder.grpo_prompts)

    def fine_tune(self, data: Path, base: Path, grpo_data: Path | None) -> TrainResult:
        """Train into ``round_<k>/model``, the loss of each step shown as it goes."""
        with self.runner.bar("train") as update:
            return train_model(
                data,
                base=base,
                out=self.folder.model.root,
                settings=self.settings.train,
                eval_settings=self.settings.eval,
                on_progress=lambda done, total, loss: update(done, total, loss=f"{loss:.4f}"),
                overwrite=True,
                grpo_data=grpo_data,
            )

    def served_folder(self, model_dir: Path, suffix: str = "") -> ServedFolder:
        """A trained folder and its served name, the weights' fingerprint in it.

        A request cache keyed by model name must never answer for another training that
        reused this run id.
        """
        weights = weights_sha256(model_dir)
        prefix = f"{self.plan.base.name}-{self.runner.manifest.run_id}-r{self.k}{suffix}"
        return ServedFolder(
            model_dir=model_dir, served_name=f"{prefix}-{weights[:12]}", weights_sha256=weights
        )

    def train(self) -> tuple[TrainOutputs, Usage]:
        """The train stage: base, data, prompts, fine-tune, and what names the model."""
        base = self.base_model()
        data, mix = self.training_data()
        grpo_data, prompts = self.prompts(data)
        result = self.fine_tune(data, base, grpo_data)
        outputs = TrainOutputs(
            **self.served_folder(result.output_dir).model_dump(),
            base=str(base),
            data=data,
            mix=mix,
            grpo_prompts=prompts,  # GRPO with fresh stories: its prompts, admitted and fresh
            **_counts(result),
            method=self.settings.train.method,
            **_ends(result),
            validation=result.validation,
            seconds=round(result.seconds, 1),
        )
        if self.settings.train.method == "sft-grpo":  # the SFT stage is measured on its own
            outputs.sft_stage = self.served_folder(sft_stage_dir(result.output_dir), "-sft")
        return outputs, Usage()


def _counts(result: TrainResult) -> dict[str, int]:
    """Steps, samples trained on, and the samples dropped as too long."""
    return {
        "steps": result.steps,
        "samples": result.samples,
        # dropped for exceeding train.max_length: a round must say what it never taught
        "too_long": len(result.too_long),
    }


def _ends(result: TrainResult) -> dict[str, float | None]:
    """The first and last loss, and GRPO's first and last mean reward (``None``: none)."""
    return {
        "first_loss": result.losses[0] if result.losses else None,
        "last_loss": result.losses[-1] if result.losses else None,
        "first_reward": result.rewards[0] if result.rewards else None,
        "last_reward": result.rewards[-1] if result.rewards else None,
    }
