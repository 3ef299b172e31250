"""The ``sentences`` task format (BabyLM zero-shot): sentence sets, one right, scored by log-prob.

One JSONL record per item: ``sentences`` (the full texts), ``completions`` (the part of each
sentence that is scored, its suffix), ``label`` (index of the right sentence) and ``UID`` (the
sub-task). Accuracy is reported per ``UID`` and macro-averaged over them. BLiMP, EWoK and entity
tracking importers (``_blimp.py``, ``_ewok.py``, ``_entity_tracking.py``) build the same samples.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tomflywheel._io import iter_jsonl
from tomflywheel.datasets._common import Loc, get, make_sample, slug, text, text_list
from tomflywheel.datasets._registry import IMPORTERS
from tomflywheel.datasets._task import register_task
from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="sentences",
        description="Sentence sets (BabyLM zero-shot format): the right one scores highest",
        prompt_kind="completion",
        judge="logprob",
        groupings=(("UID",),),
        macro_accuracy_by="UID",
    )
)

REQUIRED = ("sentences", "completions", "label", "UID")


def sentence_sample(
    loc: Loc,
    *,
    id: str,
    dataset: str,
    sentences: Sequence[str],
    completions: Sequence[str],
    label: int,
    uid: str,
    meta: dict[str, Any] | None = None,
) -> Sample:
    """A sample whose options are the sentences; the right one is ``sentences[label]``.

    Raises:
        DataError: Fewer than two sentences, counts that differ, a completion that does not end
            its sentence, a repeated sentence, or a label out of range; names the field.
    """
    if len(sentences) < 2:
        raise loc.error("sentences", f"expected at least 2 sentences, got {len(sentences)}")
    if len(completions) != len(sentences):
        raise loc.error(
            "completions", f"{len(completions)} completions for {len(sentences)} sentences"
        )
    for index, (sentence, completion) in enumerate(zip(sentences, completions, strict=True)):
        if not completion or not sentence.endswith(completion):
            raise loc.error(f"completions[{index}]", f"{completion!r} does not end the sentence")
    if len(set(sentences)) != len(sentences):
        raise loc.error("sentences", "two sentences are the same text")
    if not 0 <= label < len(sentences):
        raise loc.error("label", f"{label} is not an index of the {len(sentences)} sentences")
    contexts = {s[: len(s) - len(c)].strip() for s, c in zip(sentences, completions, strict=True)}
    # The story is what the options follow: their shared context, or (none) the sentences.
    shared = contexts.pop() if len(contexts) == 1 else ""
    return make_sample(
        loc,
        id=id,
        story=shared or "\n".join(sentences),
        question="",
        blank_question=True,
        correct=[sentences[label]],
        wrong=[s for i, s in enumerate(sentences) if i != label],
        meta={
            "dataset": dataset,
            "UID": uid,
            "sentences": list(sentences),
            "completions": list(completions),
            "label": label,
            **(meta or {}),
        },
    )


def jsonl_files(source: Path, *, what: str, suffixes: tuple[str, ...] = (".jsonl",)) -> list[Path]:
    """``source`` when it is a file, else its files with these suffixes, sorted by name.

    Raises:
        DataError: Nothing there.
    """
    source = Path(source)
    if source.is_file():
        return [source]
    if source.is_dir():
        files = sorted(p for p in source.iterdir() if p.suffix in suffixes and p.is_file())
        if files:
            return files
        raise DataError(source, None, None, f"no {what} files here ({', '.join(suffixes)})")
    raise DataError(source, None, None, "no such file or folder")


def is_sentences_file(path: Path) -> bool:
    """The file's first record is of the raw ``sentences`` format (not a normalized sample).

    Raises:
        DataError: The first line is not a JSON object.
    """
    for _, record in iter_jsonl(path):
        return "sentences" in record and "completions" in record and "answer" not in record
    return False


@IMPORTERS.register("sentences")
def import_sentences(source: Path) -> Iterator[Sample]:
    """Records with ``sentences``, ``completions``, ``label`` and ``UID``.

    Other scalar fields of a record are kept in ``meta`` (for groupings).

    Args:
        source: A ``.jsonl`` file, or a folder of them (read in name order).
    """
    for path in jsonl_files(source, what="sentences"):
        stem = slug(path.stem) or "file"
        for count, (number, record) in enumerate(iter_jsonl(path)):
            loc = Loc(path, number)
            for key in REQUIRED:
                if key not in record:
                    raise loc.error(key, "missing")
            extra = {
                key: value
                for key, value in record.items()
                if key not in REQUIRED and isinstance(value, str | int | float | bool)
            }
            yield sentence_sample(
                loc,
                id=f"sentences-{stem}-{count:05d}",
                dataset="sentences",
                sentences=text_list(record, "sentences", loc),
                completions=_completions(record, loc),
                label=get(record, "label", int, loc),
                uid=text(record, "UID", loc),
                meta=extra,
            )


def _completions(record: dict[str, Any], loc: Loc) -> list[str]:
    """Completions may start with a space, so only emptiness is refused (not blankness)."""
    values: list[Any] = get(record, "completions", list, loc)
    for index, value in enumerate(values):
        if not isinstance(value, str) or not value:
            raise loc.error(f"completions[{index}]", f"expected a non-empty string, got {value!r}")
    return values
