"""A JSONL dataset as a Hugging Face ``datasets`` folder or a Parquet file, with its card.

Columns: ``id``, ``story``, ``question``, ``correct_answers``, ``wrong_answers``, ``dataset``,
``split``, ``question_type`` and ``meta`` (the whole ``meta`` as a JSON string: its values vary
by dataset and Arrow needs one type per column, so nothing is lost or coerced). A dataset card
(``README.md``) beside the file that lists it, as the filter writes one beside every admitted
training set, is copied along, without the lines about files only the training folder holds
(between the :data:`TRAIN_ONLY` markers); so is the list of the labels the filter changed
(``label_changes/<name>.jsonl``), which the card points to. What is written gets the usual
permissions (``0o666`` / ``0o777`` less the umask), not a temporary file's private ones.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tomflywheel._io import atomic_write_text, require_writable
from tomflywheel.errors import PathError, UserInputError
from tomflywheel.schema import Sample, read_samples

ExportFormat = Literal["hf", "parquet"]
CARD_NAME = "README.md"
CHANGES_DIR = "label_changes"
"""The folder, beside admitted data and in its export, of the files listing changed labels."""
TRAIN_ONLY = ("<!-- training folder only -->", "<!-- /training folder only -->")
"""The markers around a card's lines about files an export does not carry (rejects, verdicts)."""
_TRAIN_ONLY_BLOCK = re.compile(
    re.escape(TRAIN_ONLY[0]) + r".*?" + re.escape(TRAIN_ONLY[1]) + r"\n?", re.S
)


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """What an export wrote."""

    samples: int
    path: Path
    """The dataset folder (``hf``) or the Parquet file."""
    card: Path | None
    """The copied dataset card, when the source had one."""
    changes: Path | None = None
    """The copied list of changed labels, when the source has one."""


def export_row(sample: Sample) -> dict[str, Any]:
    """One sample as a flat row (``meta`` kept whole as JSON)."""
    meta = sample.meta
    return {
        "id": sample.id,
        "story": sample.story,
        "question": sample.question,
        "correct_answers": list(sample.answer.correct_answers),
        "wrong_answers": list(sample.answer.wrong_answers),
        "dataset": str(meta.get("dataset", "")),
        "split": str(meta.get("split", "")),
        "question_type": str(meta.get("question_type", "")),
        "meta": json.dumps(meta, sort_keys=True, ensure_ascii=False),
    }


def export_dataset(source: Path, *, fmt: ExportFormat, to: Path) -> ExportSummary:
    """Write ``source`` (a samples JSONL) under ``to`` as ``fmt``.

    ``hf`` writes a ``datasets`` folder at ``to`` (``load_from_disk`` reads it back); ``parquet``
    writes ``to/<source stem>.parquet``. Nothing is left half-written: each is built in a
    temporary place beside ``to`` and moved into place.

    Raises:
        UserInputError: ``source`` is missing; ``to`` is a file, cannot be made, or is a
            non-empty folder (``hf``).
        DataError: A line of ``source`` is malformed (file, line and field named).
    """
    source = Path(source)
    if not source.is_file():
        raise UserInputError(f"{source}: no such dataset file")
    to = require_writable(to)
    if to.exists() and not to.is_dir():
        raise PathError(to, None, None, "not a folder (expected the folder to export into)")
    rows = [export_row(sample) for sample in read_samples(source)]
    if fmt == "hf" and to.exists() and any(to.iterdir()):
        raise UserInputError(f"{to}: not empty; choose a new or empty folder for the dataset")
    to.parent.mkdir(parents=True, exist_ok=True)
    dataset = _as_dataset(rows)
    if fmt == "hf":
        with tempfile.TemporaryDirectory(dir=to.parent, prefix=f".{to.name}.") as tmp:
            built = Path(tmp) / "dataset"
            dataset.save_to_disk(str(built))
            _public(built)
            if to.exists():
                to.rmdir()  # empty (checked above)
            os.replace(built, to)
        path = to
    else:
        to.mkdir(parents=True, exist_ok=True)
        path = to / f"{source.stem}.parquet"
        with tempfile.NamedTemporaryFile(dir=to, prefix=f".{path.name}.", delete=False) as tmp:
            partial = Path(tmp.name)
        try:
            dataset.to_parquet(str(partial))
            _public(partial)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
    card = _copy_card(source, to, path.name if fmt == "parquet" else "data-*.arrow")
    return ExportSummary(samples=len(rows), path=path, card=card, changes=_copy_changes(source, to))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _public(path: Path) -> None:
    """Give a temporary file or folder (and what it holds) the permissions of a new one."""
    mask = _umask()
    if path.is_dir():
        for inner in path.rglob("*"):
            inner.chmod((0o777 if inner.is_dir() else 0o666) & ~mask)
        path.chmod(0o777 & ~mask)
    else:
        path.chmod(0o666 & ~mask)


def _as_dataset(rows: list[dict[str, Any]]) -> Any:
    # `datasets` (and pyarrow) load only when an export runs: the CLI starts without them.
    from datasets import Dataset, Features, Sequence, Value, disable_progress_bars

    disable_progress_bars()
    text = Value("string")
    features = Features(
        {
            "id": text,
            "story": text,
            "question": text,
            "correct_answers": Sequence(text),
            "wrong_answers": Sequence(text),
            "dataset": text,
            "split": text,
            "question_type": text,
            "meta": text,
        }
    )
    columns = {name: [row[name] for row in rows] for name in features}
    return Dataset.from_dict(columns, features=features)


def _copy_card(source: Path, to: Path, data_files: str) -> Path | None:
    """Copy the card beside ``source`` when it lists ``source``, naming the exported files."""
    card = source.parent / CARD_NAME
    listed = f"data_files: {source.name}\n"
    if not card.is_file() or listed not in (text := card.read_text("utf-8")):
        return None
    target = to / CARD_NAME
    text = _TRAIN_ONLY_BLOCK.sub("", text.replace(listed, f"data_files: {data_files}\n"))
    atomic_write_text(target, text)
    return target


def _copy_changes(source: Path, to: Path) -> Path | None:
    """Copy ``label_changes/<stem>.jsonl`` from beside ``source``, at the same relative path."""
    changes = source.parent / CHANGES_DIR / f"{source.stem}.jsonl"
    if not changes.is_file():
        return None
    target = to / CHANGES_DIR / changes.name
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".", delete=False) as tmp:
        partial = Path(tmp.name)
    try:
        shutil.copyfile(changes, partial)
        _public(partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target
