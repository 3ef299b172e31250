"""The evaluation stage: predict, judge and score datasets in a resumable experiment folder.

Public API: ``run_evaluation`` (the stage, one call) and its ``EvalSummary``; ``run_example``
(one sample end to end); ``compute_metrics`` and ``write_metrics`` (the metric stage alone).
What the stage writes is read back through :mod:`tomflywheel.artifacts`; how a sample is put
to a model lives in :mod:`tomflywheel.asking`.
"""

from tomflywheel.evaluation._example import (
    ExampleResult,
    run_example,
    sample_from_file,
    sample_from_text,
)
from tomflywheel.evaluation._metrics import compute_metrics
from tomflywheel.evaluation._pipeline import (
    STAGES,
    DatasetOutcome,
    EvalSummary,
    Stage,
    run_evaluation,
    write_metrics,
)
from tomflywheel.evaluation._select import (
    judge_for,
    load_dataset,
    resolve_dataset_ref,
    select_datasets,
)

__all__ = [
    "STAGES",
    "DatasetOutcome",
    "EvalSummary",
    "ExampleResult",
    "Stage",
    "compute_metrics",
    "judge_for",
    "load_dataset",
    "resolve_dataset_ref",
    "run_evaluation",
    "run_example",
    "sample_from_file",
    "sample_from_text",
    "select_datasets",
    "write_metrics",
]
