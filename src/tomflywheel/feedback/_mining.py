"""Bad-case mining: wrong, unjudged, and right-but-unsure predictions of an experiment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tomflywheel.artifacts import (
    Experiment,
    load_saved_datasets,
    read_judgments,
    read_predictions,
)
from tomflywheel.asking import option_scores
from tomflywheel.schema import Judgment, Prediction, Sample, Verdict

MineReason = Literal["wrong", "unjudged", "unsure"]


@dataclass(frozen=True)
class BadCase:
    """One prediction worth learning from, with everything needed to diagnose it."""

    dataset: str
    """The experiment's dataset label."""
    sample: Sample
    prediction: Prediction
    judgment: Judgment
    reason: MineReason
    margin: float | None = None
    """Log-prob margin between the chosen option and the runner-up (log-prob predictions)."""

    @property
    def key(self) -> tuple[str, str, int]:
        """(dataset, sample id, trial): unique within an experiment."""
        return (self.dataset, self.sample.id, self.prediction.trial)

    @property
    def case_id(self) -> str:
        """A readable stable id, used in lineage."""
        suffix = f"#{self.prediction.trial}" if self.prediction.trial else ""
        return f"{self.dataset}/{self.sample.id}{suffix}"


def logprob_margin(prediction: Prediction) -> float | None:
    """Best minus second-best option score, or ``None`` without log-probs."""
    scores = sorted(option_scores(prediction), reverse=True) if prediction.option_logprobs else []
    return scores[0] - scores[1] if len(scores) >= 2 else None


def mine_bad_cases(exp_dir: Path, *, unsure_margin: float = 0.5) -> list[BadCase]:
    """Every wrong or unjudged prediction, plus right ones whose log-prob margin is thin.

    Prediction errors (the server refused the request) are not the model's failures and are
    left out. Cases come in dataset order, then file order.

    Args:
        exp_dir: An experiment folder (``results/<exp_id>``).
        unsure_margin: A right answer with a margin below this (nats) is mined as ``unsure``.
    """
    experiment = Experiment(Path(exp_dir))
    cases: list[BadCase] = []
    for dataset in load_saved_datasets(experiment):
        samples = {s.id: s for s in dataset.samples}
        predictions = {
            (p.sample_id, p.trial): p
            for p in read_predictions(experiment.predictions(dataset.label))
        }
        for judgment in read_judgments(experiment.judgments(dataset.label)):
            prediction = predictions.get((judgment.sample_id, judgment.trial))
            sample = samples.get(judgment.sample_id)
            if prediction is None or sample is None:
                continue
            margin = logprob_margin(prediction)
            reason: MineReason | None = None
            # An ambiguous reply (several answers named) is scored as wrong: a bad case too.
            if judgment.verdict in (Verdict.INCORRECT, Verdict.AMBIGUOUS):
                reason = "wrong"
            elif judgment.verdict is Verdict.UNJUDGED:
                reason = "unjudged"
            elif (
                judgment.verdict is Verdict.CORRECT
                and margin is not None
                and margin < unsure_margin
            ):
                reason = "unsure"
            if reason is not None:
                cases.append(BadCase(dataset.label, sample, prediction, judgment, reason, margin))
    return cases
