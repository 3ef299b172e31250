"""Typed settings loaded from YAML; a bad file fails with its path, line, key and reason.

One module per section: the LLM server and requests, the evaluation, feedback and flywheel,
the filter, and the file as a whole.
"""

from tomflywheel.config._base import (
    BUILTIN_CONFIG,
    DEFAULT_CONFIG,
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_CACHE_DIR,
    ENV_JUDGE_API_KEY,
    ENV_MODEL,
    Strict,
    cache_root,
)
from tomflywheel.config._eval import (
    DEFAULT_SYSTEM_PROMPT,
    DatasetRef,
    EvalSettings,
    GenerationSettings,
    JudgeSettings,
    LogprobSettings,
    ScoringBackend,
    ScoringSettings,
    SliceMode,
    TemplateSettings,
)
from tomflywheel.config._executor import Executor, RaySettings
from tomflywheel.config._filter import (
    AuditSettings,
    ContaminationSettings,
    DedupSettings,
    FilterSettings,
    LabelSettings,
    LimitSettings,
    RepairSettings,
    RubricSettings,
    SolveSettings,
)
from tomflywheel.config._llm import (
    EmbeddedServerSettings,
    LLMSettings,
)
from tomflywheel.config._loop import (
    FeedbackSettings,
    FlywheelSettings,
)
from tomflywheel.config._settings import (
    Settings,
    load_settings,
    parse_settings,
)
from tomflywheel.config._tracking import TrackingBackend, TrackingSettings
from tomflywheel.config._train import (
    DEFAULT_FULL_LR,
    DEFAULT_LORA_LR,
    GrpoSettings,
    LoraSettings,
    TrainSettings,
)

__all__ = [
    "BUILTIN_CONFIG",
    "DEFAULT_CONFIG",
    "DEFAULT_FULL_LR",
    "DEFAULT_LORA_LR",
    "DEFAULT_SYSTEM_PROMPT",
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_CACHE_DIR",
    "ENV_JUDGE_API_KEY",
    "ENV_MODEL",
    "AuditSettings",
    "ContaminationSettings",
    "DatasetRef",
    "DedupSettings",
    "EmbeddedServerSettings",
    "EvalSettings",
    "Executor",
    "FeedbackSettings",
    "FilterSettings",
    "FlywheelSettings",
    "GenerationSettings",
    "GrpoSettings",
    "JudgeSettings",
    "LLMSettings",
    "LabelSettings",
    "LimitSettings",
    "LogprobSettings",
    "LoraSettings",
    "RaySettings",
    "RepairSettings",
    "RubricSettings",
    "ScoringBackend",
    "ScoringSettings",
    "Settings",
    "SliceMode",
    "SolveSettings",
    "Strict",
    "TemplateSettings",
    "TrackingBackend",
    "TrackingSettings",
    "TrainSettings",
    "cache_root",
    "load_settings",
    "parse_settings",
]
