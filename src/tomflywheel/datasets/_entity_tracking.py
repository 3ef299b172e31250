"""Entity tracking importer (Kim & Schuster 2023, BabyLM's zero-shot version).

Records with ``input_prefix`` (boxes, their contents and the operations applied), ``options``
(candidate completions, the first one right) and ``numops`` (how many operations). The UID is
``<file stem>_<numops>_ops``, as the BabyLM pipeline groups it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, get, slug, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._sentences import jsonl_files, sentence_sample
from tomflywheel.datasets._task import register_task
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="entity_tracking",
        description="Entity tracking (Kim & Schuster 2023): box contents after operations",
        prompt_kind="completion",
        judge="logprob",
        groupings=(("UID",), ("numops",)),
        macro_accuracy_by="UID",
    )
)


@IMPORTERS.register("entity_tracking")
def import_entity_tracking(source: Path) -> Iterator[Sample]:
    """Entity tracking JSONL: ``input_prefix`` + each of ``options``; ``options[0]`` is right.

    Args:
        source: A ``.jsonl`` file, or a folder of them (read in name order).
    """
    for path in jsonl_files(source, what="entity tracking"):
        stem = slug(path.stem) or "file"
        for count, (number, record) in enumerate(iter_jsonl(path)):
            loc = Loc(path, number)
            prefix = text(record, "input_prefix", loc)
            options: list[object] = get(record, "options", list, loc)
            for index, option in enumerate(options):
                if not isinstance(option, str) or not option.strip():
                    raise loc.error(
                        f"options[{index}]", f"expected a non-empty string, got {option!r}"
                    )
            numops = get(record, "numops", int, loc)
            yield sentence_sample(
                loc,
                id=f"entity_tracking-{stem}-{count:05d}",
                dataset="entity_tracking",
                sentences=[prefix + str(option) for option in options],
                completions=[str(option) for option in options],
                label=0,
                uid=f"{path.stem}_{numops}_ops",
                meta={"numops": numops, "source_line": number},
            )
