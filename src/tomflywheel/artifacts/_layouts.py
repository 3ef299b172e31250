"""Where each stage's files lie, spelled once.

The feedback folder, the training sets the filter writes, a trained model's folder, a flywheel
run and its rounds. The evaluation's experiment folder is
:class:`~tomflywheel.artifacts.Experiment`. A stage writes and another reads through these, so
a layout changes in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FeedbackFolder:
    """``<exp>/feedback/``: what the feedback stage writes beside the experiment it read."""

    root: Path

    @classmethod
    def of(cls, exp_dir: Path) -> FeedbackFolder:
        """The feedback folder of an experiment."""
        return cls(Path(exp_dir) / "feedback")

    @property
    def diagnoses(self) -> Path:
        """``diagnoses.jsonl``: one :class:`~tomflywheel.schema.Diagnosis` a line, appended."""
        return self.root / "diagnoses.jsonl"

    @property
    def error_profile(self) -> Path:
        """``error_profile.json``: the diagnoses aggregated."""
        return self.root / "error_profile.json"

    @property
    def plan(self) -> Path:
        """``plan.json``: the synthesis plan."""
        return self.root / "plan.json"

    @property
    def candidates(self) -> Path:
        """``candidates.jsonl``: the synthesized samples the filter decides."""
        return self.root / "candidates.jsonl"

    @property
    def candidates_chat(self) -> Path:
        """``candidates.chat.jsonl``: the candidates as chat conversations."""
        return self.root / "candidates.chat.jsonl"

    @property
    def candidates_sharegpt(self) -> Path:
        """``candidates.sharegpt.json``: the candidates in ShareGPT form."""
        return self.root / "candidates.sharegpt.json"


@dataclass(frozen=True)
class TrainingSets:
    """``train_datasets/``: the filter's admitted sets and what it decided on the way."""

    root: Path

    def admitted(self, name: str) -> Path:
        """``<name>.jsonl``: the admitted samples (what training reads)."""
        return self.root / f"{name}.jsonl"

    def rejected(self, name: str) -> Path:
        """``rejected/<name>.jsonl``."""
        return self.root / "rejected" / f"{name}.jsonl"

    def verdicts(self, name: str) -> Path:
        """``verdicts/<name>.jsonl``: one verdict per decided candidate."""
        return self.root / "verdicts" / f"{name}.jsonl"

    def audit(self, name: str) -> Path:
        """``audit/<name>.jsonl``: each admission's shortcut audit."""
        return self.root / "audit" / f"{name}.jsonl"

    @property
    def manifest(self) -> Path:
        """``manifest.json``: every set's counts and audit."""
        return self.root / "manifest.json"


TRAIN_MANIFEST = "train_manifest.json"
"""What a training run writes beside the weights: data, base model, settings, losses, time."""


@dataclass(frozen=True)
class ModelFolder:
    """A fine-tuned model's folder (weights, tokenizer, chat template, its manifest).

    Its checkpoints and ``sft-grpo``'s SFT stage lie beside it.
    """

    root: Path

    @property
    def manifest(self) -> Path:
        """``train_manifest.json``: what the run did."""
        return self.root / TRAIN_MANIFEST

    @property
    def checkpoints(self) -> Path:
        """``<out>.checkpoints/``: where a run with ``save_steps`` resumes from."""
        return self.root.with_name(self.root.name + ".checkpoints")

    @property
    def sft_stage(self) -> ModelFolder:
        """``<out>.sft/``: where ``sft-grpo`` writes its SFT stage's model."""
        return ModelFolder(self.root.with_name(self.root.name + ".sft"))


@dataclass(frozen=True)
class RoundFolder:
    """``runs/<run_id>/round_<k>/``: one flywheel round."""

    root: Path

    @property
    def eval(self) -> Path:
        """The round's experiment (``feedback/`` inside)."""
        return self.root / "eval"

    def heldout(self, name: str) -> Path:
        """A held-out experiment: ``heldout_before``, ``heldout_sft``, ``heldout_after``."""
        return self.root / name

    @property
    def model(self) -> ModelFolder:
        """The round's fine-tuned model."""
        return ModelFolder(self.root / "model")

    @property
    def train_data(self) -> Path:
        """What the round trained on, when it is not the whole admitted set (replay < 1)."""
        return self.root / "train_data.jsonl"

    @property
    def grpo_prompts(self) -> Path:
        """GRPO's prompts with fresh stories: the admitted samples, then the fresh ones."""
        return self.root / "grpo_prompts.jsonl"

    @property
    def fresh_candidates(self) -> Path:
        """Fresh stories drawn from the round's plan, before the filter."""
        return self.root / "fresh" / "candidates.jsonl"

    @property
    def summary(self) -> Path:
        """``summary.json``: a :class:`~tomflywheel.artifacts.RoundSummary`."""
        return self.root / "summary.json"


@dataclass(frozen=True)
class RunFolder:
    """``runs/<run_id>/``: a flywheel run."""

    root: Path

    @property
    def run_id(self) -> str:
        """The folder's name."""
        return self.root.name

    @property
    def manifest(self) -> Path:
        """``manifest.json``: each finished stage of each round."""
        return self.root / "manifest.json"

    @property
    def config(self) -> Path:
        """``config.yaml``: the resolved config (no secrets)."""
        return self.root / "config.yaml"

    @property
    def report(self) -> Path:
        """``report.html``."""
        return self.root / "report.html"

    def round(self, k: int) -> RoundFolder:
        """Round ``k``'s folder."""
        return RoundFolder(self.root / f"round_{k}")

    def rounds(self) -> list[tuple[int, RoundFolder]]:
        """The rounds present, in order."""
        found = []
        for path in self.root.glob("round_*"):
            number = path.name.removeprefix("round_")
            if path.is_dir() and number.isdigit():
                found.append((int(number), RoundFolder(path)))
        return sorted(found, key=lambda pair: pair[0])
