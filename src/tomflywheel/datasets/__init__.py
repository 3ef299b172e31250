"""Benchmark importers (from each benchmark's own files) and the task registry.

Public API: ``import_dataset`` (import and write a dataset file), ``load_benchmark`` (import
into memory; ``load_all_splits``: every split of a folder), ``fetch_dataset`` /
``fetch_files`` (download a benchmark's pinned files, verified, then import), ``SOURCES`` (the
pinned source table), ``list_datasets`` / ``list_importers`` / ``importer_info`` (what each
dataset and importer is and takes), ``load_mapping`` (check a generic-importer mapping),
``IMPORTERS`` and ``TASKS`` (the registries), ``is_sentences_file`` / ``import_sentences``
(a raw BabyLM-style sentences file read directly), ``export_dataset`` (a dataset as a
Hugging Face folder or Parquet, its card along), ``LICENSES`` / ``license_of`` /
``training_forbidden`` (each benchmark's licence and training terms), ``TaskSpec``,
``get_task`` and ``task_for_sample``.
"""

# Built-in importers: each module registers its importer(s) and task spec(s) on import.
from tomflywheel.datasets import (  # noqa: F401
    _adv_csfb,
    _bigtom,
    _blimp,
    _emobench,
    _entity_tracking,
    _ewok,
    _fantom,
    _hitom,
    _kosinski,
    _mapping,
    _opentom,
    _sentences,
    _socialiqa,
    _synthetic,
    _tgtom,
    _tombench,
    _tomi,
)
from tomflywheel.datasets._export import (
    CHANGES_DIR,
    TRAIN_ONLY,
    ExportFormat,
    ExportSummary,
    export_dataset,
    export_row,
)
from tomflywheel.datasets._fetch import (
    ENV_FETCH_BASE_URL,
    FetchedFile,
    FetchProgress,
    FetchSummary,
    fetch_dataset,
    fetch_files,
    get_source,
)
from tomflywheel.datasets._import import (
    DEFAULT_DATASETS_DIR,
    DatasetInfo,
    ImporterInfo,
    ImportSummary,
    OptionInfo,
    default_output,
    import_dataset,
    importer_info,
    list_datasets,
    list_importers,
    load_benchmark,
)
from tomflywheel.datasets._licenses import (
    GENERATED_SUFFIX,
    LICENSES,
    License,
    license_of,
    training_forbidden,
)
from tomflywheel.datasets._mapping import Mapping, load_mapping
from tomflywheel.datasets._registry import IMPORTERS, Importer
from tomflywheel.datasets._sentences import import_sentences, is_sentences_file
from tomflywheel.datasets._sources import (
    SOURCES,
    UNPINNED,
    PinnedFile,
    Source,
    default_fetch_dir,
    is_fetched,
)
from tomflywheel.datasets._splits import load_all_splits
from tomflywheel.datasets._task import TASKS, get_task, register_task, task_for_sample
from tomflywheel.tasks import PromptKind, TaskSpec

__all__ = [
    "CHANGES_DIR",
    "DEFAULT_DATASETS_DIR",
    "ENV_FETCH_BASE_URL",
    "GENERATED_SUFFIX",
    "IMPORTERS",
    "LICENSES",
    "SOURCES",
    "TASKS",
    "TRAIN_ONLY",
    "UNPINNED",
    "DatasetInfo",
    "ExportFormat",
    "ExportSummary",
    "FetchProgress",
    "FetchSummary",
    "FetchedFile",
    "ImportSummary",
    "Importer",
    "ImporterInfo",
    "License",
    "Mapping",
    "OptionInfo",
    "PinnedFile",
    "PromptKind",
    "Source",
    "TaskSpec",
    "default_fetch_dir",
    "default_output",
    "export_dataset",
    "export_row",
    "fetch_dataset",
    "fetch_files",
    "get_source",
    "get_task",
    "import_dataset",
    "import_sentences",
    "importer_info",
    "is_fetched",
    "is_sentences_file",
    "license_of",
    "list_datasets",
    "list_importers",
    "load_all_splits",
    "load_benchmark",
    "load_mapping",
    "register_task",
    "task_for_sample",
    "training_forbidden",
]
