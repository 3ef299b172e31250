"""Records are appended as their replies arrive; a finished stage puts its file in dataset order.

Appending in arrival order means a kill loses nothing the server answered; sorting once the
stage is done (an atomic rewrite, only when the order differs) keeps the final files
deterministic: a resumed run ends with the very bytes of an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.schema import Judgment, Prediction, Sample

R = TypeVar("R", Prediction, Judgment)


def restore_dataset_order(
    path: Path, samples: Sequence[Sample], read: Callable[[Path], list[R]]
) -> bool:
    """Sort a stage's records by (sample position in the dataset, trial); returns if it moved any.

    Records of samples not in ``samples`` go last, in their file order.

    Args:
        path: ``prediction.jsonl`` or ``judgment.jsonl``.
        samples: The dataset, in its order.
        read: The artifact reader of that file (``read_predictions``, ``read_judgments``).
    """
    records = read(path)
    position = {sample.id: n for n, sample in enumerate(samples)}

    def key(record: R) -> tuple[int, int]:
        return position.get(record.sample_id, len(position)), record.trial

    ordered = sorted(records, key=key)  # stable: duplicates and strangers keep their order
    if all(a is b for a, b in zip(ordered, records, strict=True)):
        return False
    write_jsonl_atomic(path, ordered)
    return True
