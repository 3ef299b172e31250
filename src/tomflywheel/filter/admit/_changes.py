"""Every admitted label the filter changed, listed beside the data, and the conventions it kept.

``label_changes/<name>.jsonl`` holds the changes. A curator who ships the data ships this file
with it (``datasets export`` copies it), so a reader of the card can see each changed answer:
the sample, old and new answers, why, under which profile, and the kind of change (an error no
profile's rules give, a convention resolved by the profile the user named, an alias restored).
Rebuilt from the admitted file with the manifest, so it has the same bytes for the same data.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tomflywheel._io import read_jsonl, write_jsonl_atomic
from tomflywheel.datasets import CHANGES_DIR
from tomflywheel.schema import Sample


def changes_file(name: str) -> str:
    """The change file of a training set, relative to its folder."""
    return f"{CHANGES_DIR}/{name}.jsonl"


def label_changes(samples: Sequence[Sample]) -> list[dict[str, Any]]:
    """One record per admitted sample whose label the filter changed (``meta.label_repair``)."""
    changes = []
    for sample in samples:
        repair = sample.meta.get("label_repair")
        if not isinstance(repair, dict):
            continue
        changes.append(
            {
                "id": sample.id,
                "dataset": sample.meta.get("dataset"),
                "kind": repair.get("kind", "error"),
                "old": repair.get("old"),
                "new": repair.get("new"),
                "profile": repair.get("profile"),
                "why": repair.get("why"),
            }
        )
    return changes


def change_summary(changes: Sequence[dict[str, Any]], name: str) -> dict[str, Any]:
    """The manifest's ``label_changes`` entry: the file, how many, how many of each kind."""
    kinds = Counter(str(change["kind"]) for change in changes)
    return {
        "file": changes_file(name) if changes else None,
        "count": len(changes),
        "by_kind": dict(sorted(kinds.items())),
    }


def convention_summary(samples: Sequence[Sample]) -> dict[str, Any]:
    """Admitted samples whose gold depends on a convention (``meta.convention``), by follower."""
    follows = Counter(
        ", ".join(mark.get("follows", [])) or "?"
        for sample in samples
        if isinstance(mark := sample.meta.get("convention"), dict)
    )
    return {"count": sum(follows.values()), "follows": dict(sorted(follows.items()))}


def admitted_labels(train_dir: Path, name: str) -> dict[str, Any]:
    """Rebuild ``label_changes/<name>.jsonl`` from the admitted file; the manifest's entries.

    Returns ``label_changes`` (:func:`change_summary`) and ``conventions``
    (:func:`convention_summary`). No change, no file (an earlier one is removed, so the folder
    never lists stale changes).
    """
    admitted = Path(train_dir) / f"{name}.jsonl"
    samples = (
        list(read_jsonl(admitted, Sample, tolerate_partial_tail=True)) if admitted.exists() else []
    )
    changes = label_changes(samples)
    path = Path(train_dir) / changes_file(name)
    if changes:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_jsonl_atomic(path, changes)
    else:
        path.unlink(missing_ok=True)
    return {
        "label_changes": change_summary(changes, name),
        "conventions": convention_summary(samples),
    }
