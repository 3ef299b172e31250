"""BLiMP importer (nyu-mll/blimp): minimal pairs, the grammatical sentence should score higher.

One ``<UID>.jsonl`` per paradigm, records with ``sentence_good``, ``sentence_bad``, ``UID``,
``field``, ``linguistics_term`` and ``pair_id`` (BabyLM's supplement files have only the two
sentences: the file's stem is then the UID). Each sentence is scored whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, slug, text
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._sentences import jsonl_files, sentence_sample
from tomflywheel.datasets._task import register_task
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="blimp",
        description="BLiMP (Warstadt et al. 2020): grammatical vs ungrammatical minimal pairs",
        prompt_kind="completion",
        judge="logprob",
        groupings=(("UID",), ("field",), ("linguistics_term",)),
        macro_accuracy_by="UID",
    )
)


@IMPORTERS.register("blimp")
def import_blimp(source: Path) -> Iterator[Sample]:
    """BLiMP's JSONL files: label 0 is ``sentence_good``.

    Args:
        source: One ``<UID>.jsonl`` file, or the folder of them (read in name order).
    """
    for path in jsonl_files(source, what="BLiMP"):
        for count, (number, record) in enumerate(iter_jsonl(path)):
            loc = Loc(path, number)
            good = text(record, "sentence_good", loc)
            bad = text(record, "sentence_bad", loc)
            uid = text(record, "UID", loc) if "UID" in record else path.stem
            field = record.get("field", "supplement")
            if field == "syntax_semantics":  # BLiMP spells this one field two ways
                field = "syntax/semantics"
            pair = record.get("pair_id", count)
            yield sentence_sample(
                loc,
                id=f"blimp-{slug(uid)}-{pair}",
                dataset="blimp",
                sentences=[good, bad],
                completions=[good, bad],
                label=0,
                uid=uid,
                meta={
                    "field": str(field),
                    "linguistics_term": str(record.get("linguistics_term", "supplement")),
                    "source_line": number,
                },
            )
