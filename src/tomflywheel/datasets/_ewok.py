"""EWoK importer (ewok-core): a context and two targets, the plausible target should score higher.

Records (JSONL, or the release's CSV) with ``Context1``, ``Target1``, ``Target2``, ``Domain``,
``ContextType``, ``ContextDiff`` and ``TargetDiff``. As in the BabyLM pipeline, the item is
``Context1`` followed by each target; ``Target1`` is the right one; ``Domain`` is the UID.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, read_csv_dicts, slug, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._sentences import jsonl_files, sentence_sample
from tomflywheel.datasets._task import register_task
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="ewok",
        description="EWoK (Ivanova et al. 2024): world knowledge, a context and two targets",
        prompt_kind="completion",
        judge="logprob",
        groupings=(("UID",), ("context_type",), ("context_contrast",), ("target_contrast",)),
        macro_accuracy_by="UID",
    )
)

COLUMNS = ("Context1", "Target1", "Target2", "Domain", "ContextType", "ContextDiff", "TargetDiff")


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.suffix == ".csv":
        yield from read_csv_dicts(path, COLUMNS)
    else:
        yield from iter_jsonl(path)


@IMPORTERS.register("ewok")
def import_ewok(source: Path) -> Iterator[Sample]:
    """EWoK items: ``Context1 Target1`` (right) vs ``Context1 Target2``; the targets are scored.

    Args:
        source: A ``.jsonl`` or ``.csv`` file, or a folder of them (read in name order).
    """
    for path in jsonl_files(source, what="EWoK", suffixes=(".jsonl", ".csv")):
        stem = slug(path.stem) or "file"
        for count, (number, record) in enumerate(_records(path)):
            loc = Loc(path, number)
            context = text(record, "Context1", loc)
            targets = [text(record, "Target1", loc), text(record, "Target2", loc)]
            yield sentence_sample(
                loc,
                id=f"ewok-{stem}-{count:05d}",
                dataset="ewok",
                sentences=[f"{context} {target}" for target in targets],
                completions=[f" {target}" for target in targets],
                label=0,
                uid=text(record, "Domain", loc),
                meta={
                    "context_type": text(record, "ContextType", loc),
                    "context_contrast": text(record, "ContextDiff", loc),
                    "target_contrast": text(record, "TargetDiff", loc),
                    "source_line": number,
                },
            )
