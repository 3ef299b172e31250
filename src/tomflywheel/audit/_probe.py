"""A learned shortcut probe: a tiny classifier on surface features only, scored held out.

Each (sample, candidate) pair becomes a row of surface features — was the candidate named
first, last, most often, how often, is it option A, the longest option — crossed with the
question family, so the probe can learn "in this family, the answer is the one named last".
A logistic regression (scikit-learn) is fitted on half of the samples (a stable split by id)
and picks, on the other half, the candidate it scores highest. Accuracy far above chance there
means the set can be answered from the surface.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tomflywheel._rng import stable_seed
from tomflywheel.audit._items import AuditItem

BASE_FEATURES = (
    "named_first",
    "named_last",
    "named_most",
    "mention_share",
    "not_named",
    "first_shown",
    "last_shown",
    "longest",
)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """The probe's held-out picks: for each held-out item, whether its pick was gold."""

    held_out: dict[str, bool]
    """Sample id -> the probe's pick was a correct answer."""
    picks: dict[str, str]
    """Sample id -> the candidate picked."""


def _base(item: AuditItem) -> np.ndarray:
    """One row of base features per candidate of the item."""
    candidates = item.candidates
    positions = item.mentions
    named = [i for i, p in enumerate(positions) if p]
    total = sum(len(p) for p in positions) or 1
    first = min(named, key=lambda i: positions[i][0]) if named else -1
    last = max(named, key=lambda i: positions[i][-1]) if named else -1
    most = max(named, key=lambda i: (len(positions[i]), -positions[i][0])) if named else -1
    shown = list(item.shown or ())
    longest = max(range(len(candidates)), key=lambda i: len(candidates[i]))
    rows = []
    for i, candidate in enumerate(candidates):
        place = shown.index(candidate) if candidate in shown else -1
        rows.append(
            [
                i == first,
                i == last,
                i == most,
                len(positions[i]) / total,
                not positions[i],
                place == 0,
                bool(shown) and place == len(shown) - 1,
                i == longest and bool(shown),
            ]
        )
    return np.asarray(rows, dtype=float)


def _design(items: Sequence[AuditItem], families: list[str]) -> list[np.ndarray]:
    """Per item: base features, then base features crossed with each family's indicator."""
    out = []
    for item in items:
        base = _base(item)
        crossed = np.zeros((base.shape[0], base.shape[1] * len(families)))
        index = families.index(item.family)
        crossed[:, index * base.shape[1] : (index + 1) * base.shape[1]] = base
        out.append(np.hstack([base, crossed]))
    return out


def in_training_half(sample_id: str) -> bool:
    """The stable split: which half of the samples the probe is fitted on."""
    return stable_seed("audit-probe-split", sample_id) % 2 == 0


def run_probe(items: Sequence[AuditItem]) -> ProbeResult | None:
    """Fit on one half, pick on the other; None when there is too little to fit on.

    Only items with a closed answer set of two or more candidates take part.
    """
    usable = [item for item in items if len(item.candidates) >= 2]
    train = [item for item in usable if in_training_half(item.sample.id)]
    test = [item for item in usable if not in_training_half(item.sample.id)]
    if len(train) < 10 or not test:
        return None
    families = sorted({item.family for item in usable})
    x_train = np.vstack(_design(train, families))
    y_train = np.concatenate([[item.is_gold(c) for c in item.candidates] for item in train]).astype(
        int
    )
    if len(set(y_train)) < 2:
        return None
    # scikit-learn takes seconds to import: only a probe that fits pays for it, not every command.
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1.0, max_iter=1000, solver="lbfgs")
    model.fit(x_train, y_train)
    held_out: dict[str, bool] = {}
    picks: dict[str, str] = {}
    for item, rows in zip(test, _design(test, families), strict=True):
        scores = model.decision_function(rows)
        best = int(np.argmax(scores))  # ties go to the first candidate
        picks[item.sample.id] = item.candidates[best]
        held_out[item.sample.id] = item.is_gold(item.candidates[best])
    return ProbeResult(held_out=held_out, picks=picks)
