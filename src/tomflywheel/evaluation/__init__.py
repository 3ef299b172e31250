"""The evaluation pipeline: prompts, option shuffle, predict, judge, metrics, experiment storage."""

from tomflywheel.evaluation._example import (
    ExampleResult,
    run_example,
    sample_from_file,
    sample_from_text,
)
from tomflywheel.evaluation._experiment import (
    Experiment,
    LoadedDataset,
    experiment_settings,
    load_saved_datasets,
    open_experiment,
)
from tomflywheel.evaluation._judging import read_judgments, read_predictions
from tomflywheel.evaluation._metrics import compute_metrics
from tomflywheel.evaluation._pipeline import (
    STAGES,
    DatasetOutcome,
    EvalSummary,
    ProgressFactory,
    Stage,
    run_evaluation,
)
from tomflywheel.evaluation._predict import Predictor
from tomflywheel.evaluation._prompts import answer_text, render_prompt, training_messages
from tomflywheel.evaluation._shuffle import ShuffledOptions, format_options, shuffle_options
from tomflywheel.evaluation._stats import accuracy, wilson_interval

__all__ = [
    "STAGES",
    "DatasetOutcome",
    "EvalSummary",
    "ExampleResult",
    "Experiment",
    "LoadedDataset",
    "Predictor",
    "ProgressFactory",
    "ShuffledOptions",
    "Stage",
    "accuracy",
    "answer_text",
    "compute_metrics",
    "experiment_settings",
    "format_options",
    "load_saved_datasets",
    "open_experiment",
    "read_judgments",
    "read_predictions",
    "render_prompt",
    "run_evaluation",
    "run_example",
    "sample_from_file",
    "sample_from_text",
    "shuffle_options",
    "training_messages",
    "wilson_interval",
]
