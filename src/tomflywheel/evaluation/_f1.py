"""Macro-F1 over answer labels, computed from judgments (OpenToM reports it; accuracy hides skew).

A judgment becomes a (gold label, predicted label) pair:

- gold: ``meta.label`` when the sample has that key (a class such as ``original`` / ``new`` for
  OpenToM's fine location questions; ``None`` there means no class, and the sample is left out,
  as the official evaluator drops it), else the first correct answer (the option text);
- predicted: the gold label when the verdict is correct; for a wrong choice answer, the option
  it named; for a wrong open answer, the candidate (``meta.candidates``, labelled by
  ``meta.candidate_labels``) sharing the largest share of its words, ``none`` on a tie (the
  official lexical-overlap rule), or ``other`` without candidates;
- unjudged, errors and unreadable answers give no label: left out and counted, as the official
  evaluator leaves out "corrupted" generations.

Macro-F1 averages the per-label F1 over every label seen as gold or prediction (sklearn's
``f1_score(average="macro")``; a label never predicted right scores 0).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from tomflywheel.asking import normalize_tokens
from tomflywheel.schema import Judgment, Prediction, QAKind, Sample, Verdict


def macro_f1(pairs: Iterable[tuple[str, str | None]]) -> dict[str, Any]:
    """Macro-F1 of (gold, predicted) label pairs; a ``None`` prediction is left out and counted.

    Returns:
        ``macro_f1`` (``None`` with no scored pair), ``n`` scored pairs, ``left_out``, and
        ``per_label``: precision, recall, F1 and support of each label.
    """
    scored: list[tuple[str, str]] = []
    left_out = 0
    for gold, predicted in pairs:
        if predicted is None:
            left_out += 1
        else:
            scored.append((gold, predicted))
    gold_count = Counter(gold for gold, _ in scored)
    predicted_count = Counter(predicted for _, predicted in scored)
    hits = Counter(gold for gold, predicted in scored if gold == predicted)
    per_label = {}
    f1s = []
    for label in sorted(set(gold_count) | set(predicted_count)):
        precision = hits[label] / predicted_count[label] if predicted_count[label] else 0.0
        recall = hits[label] / gold_count[label] if gold_count[label] else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        f1s.append(f1)
        per_label[label] = {
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "support": gold_count[label],
        }
    value = sum(f1s) / len(f1s) if f1s else None
    return {
        "macro_f1": round(value, 4) if value is not None else None,
        "n": len(scored),
        "left_out": left_out,
        "per_label": per_label,
    }


def _overlap(answer: str, place: str) -> float:
    """Share of ``place``'s words found in ``answer`` (the official ``compute_lexical_overlap``)."""
    place_words = normalize_tokens(place.replace("'s", ""))
    answer_words = set(normalize_tokens(answer.replace("'s", "")))
    if not place_words:
        return 0.0
    return sum(word in answer_words for word in dict.fromkeys(place_words)) / len(place_words)


def _open_label(sample: Sample, answer: str) -> str:
    candidates = sample.meta.get("candidates") or []
    labels = sample.meta.get("candidate_labels") or []
    if not candidates or len(labels) != len(candidates):
        return "other"
    scores = [_overlap(answer, str(candidate)) for candidate in candidates]
    best = max(scores)
    winners = [i for i, score in enumerate(scores) if score == best]
    return str(labels[winners[0]]) if len(winners) == 1 else "none"


def _choice_label(judgment: Judgment, prediction: Prediction | None) -> str | None:
    answer = judgment.answer
    if answer is None:
        return None
    shown = prediction.options if prediction is not None else None
    if shown and answer in shown:  # the log-prob judge records the option text
        return answer
    letters = answer.split(",")
    if not shown or len(letters) != 1 or len(letters[0]) != 1:
        return None
    index = ord(letters[0].upper()) - ord("A")
    return shown[index] if 0 <= index < len(shown) else None


def predicted_label(
    sample: Sample, judgment: Judgment, prediction: Prediction | None
) -> str | None:
    """The label a judged answer names (see the module doc); ``None``: no readable label."""
    if judgment.verdict is Verdict.CORRECT:
        return gold_label(sample)
    if judgment.verdict is not Verdict.INCORRECT:
        return None
    if sample.kind is not QAKind.OPEN:
        return _choice_label(judgment, prediction)
    if judgment.answer is None or not judgment.answer.strip():
        return None
    return _open_label(sample, judgment.answer)


def gold_label(sample: Sample) -> str | None:
    """``meta.label`` when present (``None`` there: no class), else the first correct answer."""
    if "label" in sample.meta:
        label = sample.meta["label"]
        return None if label is None else str(label)
    return sample.answer.correct_answers[0]


def macro_f1_by(
    fields: tuple[str, ...],
    samples: dict[str, Sample],
    predictions: list[Prediction],
    judgments: list[Judgment],
) -> dict[str, dict[str, Any]]:
    """Macro-F1 within each value of each ``meta`` field (``{field: {value: result}}``).

    Labels differ between question families, so F1 is only computed inside a group; samples
    whose field is ``None`` or whose gold label is ``None`` are not scored.
    """
    by_key = {(p.sample_id, p.trial): p for p in predictions}
    out: dict[str, dict[str, Any]] = {}
    for field in fields:
        groups: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        for judgment in judgments:
            sample = samples[judgment.sample_id]
            value, gold = sample.meta.get(field), gold_label(sample)
            if value is None or gold is None:
                continue
            prediction = by_key.get((judgment.sample_id, judgment.trial))
            groups[str(value)].append((gold, predicted_label(sample, judgment, prediction)))
        out[field] = {value: macro_f1(pairs) for value, pairs in sorted(groups.items())}
    return out
