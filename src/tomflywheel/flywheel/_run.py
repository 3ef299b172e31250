"""The flywheel: evaluate -> feedback -> filter -> admit, round after round, resumably.

Everything of a run lives in ``runs/<run_id>/``: the resolved config, ``manifest.json`` (which
stage of which round finished, its wall time and requests), ``round_<k>/eval/`` (the round's
experiment, with ``feedback/`` inside), ``round_<k>/summary.json`` and ``report.html``.
Admitted data goes to ``<train_dir>/<train_name>.jsonl``. A killed run resumes at the stage where
it stopped: finished stages are skipped, and the interrupted one resumes from its own records
(predictions, diagnoses and verdicts are appended line by line; requests are cached).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tomflywheel._io import atomic_write_json, atomic_write_text, timestamp_name
from tomflywheel.config import Settings
from tomflywheel.errors import ConfigError
from tomflywheel.evaluation import EvalSummary, run_evaluation
from tomflywheel.feedback import run_feedback
from tomflywheel.filter import run_filter
from tomflywheel.flywheel._fresh import fresh_candidates, grpo_prompts
from tomflywheel.flywheel._manifest import (
    RunManifest,
    StageName,
    StageRecord,
    load_manifest,
    now,
    resume_lines,
    save_manifest,
)
from tomflywheel.flywheel._models import (
    heldout_refs,
    last_trained,
    round_model,
    served_model,
    with_model,
)
from tomflywheel.flywheel._replay import round_training_data
from tomflywheel.flywheel._summary import round_summary
from tomflywheel.llm import ensure_default_model, shared_servers
from tomflywheel.progress import ProgressFactory
from tomflywheel.report import write_experiment_report, write_run_report
from tomflywheel.tracking import open_tracker, scalars
from tomflywheel.train import sft_stage_dir, train_model, weights_sha256

logger = logging.getLogger(__name__)


@dataclass
class FlywheelSummary:
    """What a flywheel run produced."""

    run_dir: Path
    manifest: RunManifest
    rounds: list[dict[str, Any]] = field(default_factory=list)
    """One summary per round."""
    report: Path | None = None
    skipped: list[str] = field(default_factory=list)
    """``round k: stage`` entries already done before this invocation (a resume)."""


def round_scalars(summary: dict[str, Any]) -> dict[str, float]:
    """What a round logs for tracking: accuracy per dataset and the lift.

    ``lift/...``: the round's model against the one it started from; ``lift_vs_base/...``:
    against the base model; ``lift_vs_sft_stage/...`` (``sft-grpo``): against its SFT stage.
    """
    return {
        **scalars(summary.get("accuracy"), "accuracy", skip=frozenset({"usage"})),
        **scalars(summary.get("lift"), "lift"),
        **scalars(summary.get("lift_vs_base"), "lift_vs_base"),
        **scalars(summary.get("lift_vs_sft_stage"), "lift_vs_sft_stage"),
    }


def round_settings(settings: Settings, k: int) -> Settings:
    """Settings of round ``k``: its own synthesis seed when ``flywheel.reseed``."""
    if not settings.flywheel.reseed:
        return settings
    feedback = settings.feedback.model_copy(update={"seed": settings.feedback.seed + k - 1})
    return settings.model_copy(update={"feedback": feedback})


def guarded_eval_paths(settings: Settings) -> list[Path]:
    """The files the contamination guard must protect: every evaluation and held-out set."""
    refs = [*settings.eval.datasets, *settings.flywheel.heldout]
    return sorted({ref.path for ref in refs if ref.path.exists()})


class _Runner:
    """Runs one flywheel invocation; each stage records itself in the manifest when done."""

    def __init__(
        self,
        settings: Settings,
        run_dir: Path,
        manifest: RunManifest,
        progress: ProgressFactory | None,
        on_status: Callable[[str], None] | None,
    ) -> None:
        self.settings = settings
        self.run_dir = run_dir
        self.manifest = manifest
        self.progress = progress
        self.on_status = on_status or (lambda message: None)
        self.skipped: list[str] = []
        self.previous: dict[str, Any] | None = None
        """The summary of the round before the one running."""

    def stage(
        self, k: int, name: StageName, work: Callable[[], tuple[dict[str, Any], dict[str, Any]]]
    ) -> StageRecord:
        """Run ``work`` (returning outputs and usage) unless the stage already finished."""
        done = self.manifest.done(k, name)
        if done is not None:
            self.skipped.append(f"round {k}: {name}")
            return done
        self.on_status(f"round {k}: {name}")
        started = time.perf_counter()
        outputs, usage = work()
        record = StageRecord(
            seconds=time.perf_counter() - started, usage=usage, finished=now(), outputs=outputs
        )
        self.manifest.round(k).stages[name] = record
        save_manifest(self.run_dir, self.manifest)
        return record

    def evaluate(self, settings: Settings, exp_dir: Path) -> EvalSummary:
        """Evaluate into ``exp_dir`` (resuming it), then write its report."""
        summary = run_evaluation(
            settings, exp_dir=exp_dir, progress=self.progress, on_status=self.on_status
        )
        write_experiment_report(summary.experiment)
        return summary

    def admit(
        self, settings: Settings, candidates: Path, name: str, label: str
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Filter ``candidates`` into the training set ``name``, guarding every eval set."""
        flywheel = settings.flywheel
        fs = settings.filter
        contamination = fs.contamination.model_copy(
            update={
                "extra_paths": sorted(
                    {*fs.contamination.extra_paths, *guarded_eval_paths(settings)}
                )
            }
        )
        # The filter decides candidates for minutes: a bar, as the other stages have.
        bar = (
            self.progress(label, skipped=0)
            if self.progress
            else contextlib.nullcontext(lambda done, total: None)
        )
        with bar as update:
            summary = run_filter(
                settings,
                input_path=candidates,
                name=name,
                use_llm=flywheel.filter_llm,
                repair_attempts=flywheel.repair_attempts,
                filter_settings=fs.model_copy(update={"contamination": contamination}),
                train_dir=flywheel.train_dir,
                eval_dir=settings.eval.datasets_dir,
                on_progress=update,
                on_status=self.on_status,
                allow_empty=True,
            )
        outputs = {
            "input": str(candidates),
            "admitted": str(summary.admitted_path),
            "verdicts": str(summary.verdicts_path),
            "manifest": str(summary.manifest_path),
        }
        return outputs, summary.usage

    def round(self, k: int) -> dict[str, Any]:
        settings = round_model(round_settings(self.settings, k), self.manifest, k)
        folder = self.run_dir / f"round_{k}"
        exp_dir = folder / "eval"

        def evaluate() -> tuple[dict[str, Any], dict[str, Any]]:
            summary = self.evaluate(settings, exp_dir)
            return {"exp_dir": str(exp_dir)}, summary.usage

        def feedback() -> tuple[dict[str, Any], dict[str, Any]]:
            summary = run_feedback(
                settings, exp_dir, progress=self.progress, on_status=self.on_status
            )
            outputs = {
                "candidates": str(summary.folder / "candidates.jsonl"),
                "plan_id": summary.plan.plan_id if summary.plan else None,
                "notes": summary.notes,
            }
            return outputs, summary.usage

        def admit() -> tuple[dict[str, Any], dict[str, Any]]:
            candidates = Path(self.manifest.done(k, "feedback").outputs["candidates"])  # type: ignore[union-attr]
            return self.admit(settings, candidates, self.manifest.train_name, f"filter round {k}")

        self.stage(k, "evaluate", evaluate)
        self.stage(k, "feedback", feedback)
        self.stage(k, "filter", admit)
        if settings.flywheel.train:
            self._train_and_measure(k, settings, folder)
        base = self.manifest.done(1, "heldout_before")
        summary = round_summary(
            self.manifest.round(k),
            model=served_model(settings),
            previous=self.previous,
            base_heldout=Path(base.outputs["exp_dir"]) if base else None,
        )
        atomic_write_json(folder / "summary.json", summary)
        self.previous = summary
        return summary

    def _train_and_measure(self, k: int, settings: Settings, folder: Path) -> None:
        """Held-out sets before, fine-tune on everything admitted so far, held-out sets after."""
        heldout = heldout_refs(settings)
        if not heldout:
            raise ConfigError("flywheel.train needs flywheel.heldout: sets never used as seeds")

        def measure(
            target: Settings, name: str
        ) -> Callable[[], tuple[dict[str, Any], dict[str, Any]]]:
            def work() -> tuple[dict[str, Any], dict[str, Any]]:
                evaluation = target.eval.model_copy(update={"datasets": heldout})
                summary = self.evaluate(
                    target.model_copy(update={"eval": evaluation}), folder / name
                )
                return {"exp_dir": str(folder / name), "model": served_model(target)}, summary.usage

            return work

        if uses_fresh_prompts(settings):

            def fresh() -> tuple[dict[str, Any], dict[str, Any]]:
                feedback = self.manifest.done(k, "feedback")
                candidates = folder / "fresh" / "candidates.jsonl"
                made = fresh_candidates(
                    feedback.outputs if feedback else {}, candidates,
                    count=settings.flywheel.fresh_prompts,
                    with_rationale=settings.feedback.rationale,
                )  # fmt: skip
                name = f"{self.manifest.train_name}-fresh-r{k}"
                outputs, usage = self.admit(settings, candidates, name, f"fresh round {k}")
                return {**outputs, "candidates": made}, usage

            self.stage(k, "fresh", fresh)
        self.stage(k, "heldout_before", measure(settings, "heldout_before"))

        def train() -> tuple[dict[str, Any], dict[str, Any]]:
            base = self.settings.embedded.model or ensure_default_model(self.on_status)
            previous = last_trained(self.manifest, k)
            if settings.flywheel.continue_training and previous is not None:
                base = previous[0]
            admitted = settings.flywheel.train_dir / f"{self.manifest.train_name}.jsonl"
            if not admitted.exists():
                raise ConfigError(
                    f"{admitted}: nothing admitted yet, so there is nothing to train on"
                )
            feedback = self.manifest.done(k, "feedback")
            data, mix = round_training_data(
                admitted,
                folder / "train_data.jsonl",
                replay=settings.flywheel.replay,
                key=f"{self.manifest.run_id}:{k}",
                feedback=feedback.outputs if feedback else {},
            )
            grpo_data, prompts = None, None
            fresh = self.manifest.done(k, "fresh")
            if fresh is not None:
                grpo_data, prompts = grpo_prompts(
                    data, Path(fresh.outputs["admitted"]), folder / "grpo_prompts.jsonl"
                )
            out = folder / "model"
            bar = (
                self.progress("train", skipped=0)
                if self.progress
                else contextlib.nullcontext(lambda done, total: None)
            )
            with bar as update:
                result = train_model(
                    data,
                    base=Path(base),
                    out=out,
                    settings=settings.train,
                    eval_settings=settings.eval,
                    on_progress=lambda done, total, loss: update(done, total),
                    overwrite=True,
                    grpo_data=grpo_data,
                )
            # the weights' fingerprint in the name: a request cache keyed by model name must
            # never answer for another training that reused this run id
            weights = weights_sha256(out)
            prefix = f"{served_model(self.settings)}-{self.manifest.run_id}-r{k}"
            name = f"{prefix}-{weights[:12]}"
            outputs = {
                "model_dir": str(out),
                "served_name": name,
                "weights_sha256": weights,
                "base": str(base),
                "data": str(data),
                "mix": mix,
                # GRPO with fresh stories: its prompts, admitted and fresh
                "grpo_prompts": prompts,
                "steps": result.steps,
                "samples": result.samples,
                # dropped for exceeding train.max_length: a round must say what it never taught
                "too_long": len(result.too_long),
                "method": settings.train.method,
                "first_loss": result.losses[0] if result.losses else None,
                "last_loss": result.losses[-1] if result.losses else None,
                # GRPO: the mean reward of the first and the last step's replies
                "first_reward": result.rewards[0] if result.rewards else None,
                "last_reward": result.rewards[-1] if result.rewards else None,
                # SFT with a validation share: the losses and the step the weights are from
                "validation": result.manifest.get("validation"),
                "seconds": round(result.seconds, 1),
            }
            if settings.train.method == "sft-grpo":  # the SFT stage is measured on its own
                first = sft_stage_dir(out)
                sft_weights = weights_sha256(first)
                outputs["sft_stage"] = {
                    "model_dir": str(first),
                    "served_name": f"{prefix}-sft-{sft_weights[:12]}",
                    "weights_sha256": sft_weights,
                }
            return outputs, {}

        trained = self.stage(k, "train", train)
        sft_stage = trained.outputs.get("sft_stage")
        if sft_stage is not None:  # how much of the lift was SFT's, paired on the same items
            stage_model = with_model(
                settings, Path(sft_stage["model_dir"]), sft_stage["served_name"]
            )
            self.stage(k, "heldout_sft", measure(stage_model, "heldout_sft"))
        after = with_model(
            settings, Path(trained.outputs["model_dir"]), trained.outputs["served_name"]
        )
        self.stage(k, "heldout_after", measure(after, "heldout_after"))


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


def run_flywheel(
    settings: Settings,
    *,
    rounds: int | None = None,
    run_dir: Path | None = None,
    progress: ProgressFactory | None = None,
    on_status: Callable[[str], None] | None = None,
) -> FlywheelSummary:
    """Run (or resume) the loop for ``rounds`` rounds; returns the round summaries.

    One embedded server serves every stage of the invocation (started when first needed).

    Raises:
        ConfigError, DataError, ServerError: As the stages raise them; finished stages stay done.
    """
    flywheel = settings.flywheel
    uses_fresh_prompts(settings)  # a setting that cannot apply is refused before any work
    total = rounds or flywheel.rounds
    run_dir = Path(run_dir) if run_dir else flywheel.runs_dir / timestamp_name(flywheel.runs_dir)
    manifest = load_manifest(run_dir)
    if manifest is not None and on_status is not None:
        for line in resume_lines(manifest):
            on_status(line)
    if manifest is None:
        run_dir.mkdir(parents=True, exist_ok=True)
        run_id = run_dir.name
        manifest = RunManifest(
            run_id=run_id,
            created=now(),
            rounds_planned=total,
            train_name=flywheel.train_name or f"flywheel-{run_id}",
        )
        atomic_write_text(
            run_dir / "config.yaml",
            yaml.safe_dump(settings.snapshot(), sort_keys=False, allow_unicode=True),
        )
    manifest.rounds_planned = max(manifest.rounds_planned, total)
    save_manifest(run_dir, manifest)
    runner = _Runner(settings, run_dir, manifest, progress, on_status)
    result = FlywheelSummary(run_dir=run_dir, manifest=manifest)
    with shared_servers(), open_tracker(settings.tracking, f"flywheel_{run_dir.name}") as tracker:
        for k in range(1, total + 1):
            result.rounds.append(runner.round(k))
            tracker.log(round_scalars(result.rounds[-1]), step=k)
    result.skipped = runner.skipped
    result.report = write_run_report(
        run_dir, result.rounds, manifest.train_name, settings.flywheel.train_dir
    )
    return result
