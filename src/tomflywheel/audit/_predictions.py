"""The audit of a model's answers: which shortcut explains them best, and its reality bias.

Agreement of a heuristic is the share of items (where it applies and the answer can be read)
on which the model gave the heuristic's answer, right or wrong. The reality-bias rate is the
share of false-belief targets (someone's belief differs from where the object really is) on
which the model named the real location.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tomflywheel.asking import LETTERS, mentions, normalize
from tomflywheel.audit._heuristics import HEURISTICS, fit_set
from tomflywheel.audit._items import AuditItem
from tomflywheel.schema import Judgment, Prediction
from tomflywheel.stats import accuracy


def answered(item: AuditItem, prediction: Prediction, judgment: Judgment | None) -> str | None:
    """The model's answer as text (a candidate where the set is closed), or None if unreadable."""
    if prediction.error is not None:
        return None
    options = prediction.options or []
    chosen = (judgment.answer or "") if judgment is not None else ""
    if prediction.option_logprobs:
        return chosen or None  # log-prob answers are option texts
    if options:
        letters = [part.strip() for part in chosen.split(",") if part.strip()]
        if len(letters) == 1 and letters[0] in LETTERS[: len(options)]:
            return options[LETTERS.index(letters[0])]
        return None
    output = prediction.raw_output or ""
    if not item.candidates:
        return normalize(output) or None
    exact = [c for c in item.candidates if normalize(c) == normalize(output)]
    named = exact or [c for c in item.candidates if mentions(output, c)]
    return named[0] if len(named) == 1 else None


def audit_predictions(
    items: Sequence[AuditItem],
    predictions: Sequence[Prediction],
    judgments: Sequence[Judgment],
) -> dict[str, Any]:
    """Agreement of the model's answers with each heuristic, the best one, and reality bias.

    Args:
        items: The evaluated samples as audit items.
        predictions: The model's predictions (first trial of each sample is used).
        judgments: Their judgments (for the parsed letter or option).
    """
    by_id = {item.sample.id: item for item in items}
    verdicts = {(j.sample_id, j.trial): j for j in judgments}
    fit = fit_set(items)
    agree: dict[str, list[int]] = {name: [0, 0] for name in HEURISTICS.names()}
    bias = [0, 0]
    for prediction in predictions:
        item = by_id.get(prediction.sample_id)
        if item is None or prediction.trial != 0:
            continue
        answer = answered(item, prediction, verdicts.get((prediction.sample_id, 0)))
        if answer is None:
            continue
        for name in agree:
            guess = HEURISTICS.get(name)(item, fit)
            if guess is not None:
                agree[name][1] += 1
                agree[name][0] += normalize(guess) == normalize(answer)
        if item.false_belief and item.reality is not None:
            bias[1] += 1
            bias[0] += normalize(answer) == normalize(item.reality)
    table = {name: accuracy(c, n) for name, (c, n) in agree.items() if n}
    best = max(table, key=lambda name: (table[name]["accuracy"] or 0.0, name), default=None)
    return {
        "agreement": table,
        "best_explained_by": best,
        "reality_bias": accuracy(*bias),
    }
