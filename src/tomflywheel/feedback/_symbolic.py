"""Symbolic diagnosis: what a wrong answer corresponds to in the story's events.

The world engine maps every plausible answer to its reasons (reality, first location, each
agent's belief at every order, claims, distractor-only names, other entities); the model's answer
is read back to one of those values and classified. A value no reason supports, and that is not
in the story, is a hallucination.
"""

from __future__ import annotations

from tomflywheel.asking import mentions, normalize
from tomflywheel.errors import DataError
from tomflywheel.feedback._mining import BadCase
from tomflywheel.schema import Diagnosis, ErrorCategory, QAKind, Verdict
from tomflywheel.world import QuestionSpec, Reason, Story, explain_answers, sample_spec

LOCATION_KINDS = frozenset({"reality", "memory", "belief"})
"""Question kinds whose answers are locations the engine can explain."""

_CATEGORY_OF_REASON = (
    ("reality", ErrorCategory.REALITY_BIAS),
    ("memory", ErrorCategory.STALE_MEMORY),
    ("belief", ErrorCategory.ORDER_CONFUSION),
    ("claim", ErrorCategory.KNOWLEDGE_ACCESS),
    ("distractor", ErrorCategory.DISTRACTOR),
    ("entity", ErrorCategory.UNSUPPORTED),
)


def answered_text(case: BadCase) -> str | None:
    """What the model answered, as text: the chosen option's text for choice QA."""
    prediction, judgment = case.prediction, case.judgment
    if prediction.options and judgment.answer:
        letters = [part.strip() for part in judgment.answer.split(",")]
        chosen = [
            prediction.options[ord(letter) - 65]
            for letter in letters
            if len(letter) == 1 and 0 <= ord(letter) - 65 < len(prediction.options)
        ]
        if chosen:
            return chosen[0]
        return judgment.answer  # log-prob answers are option texts already
    return prediction.raw_output


def runner_up(case: BadCase) -> str | None:
    """For a right-but-unsure log-prob answer: the option it nearly chose."""
    scores = case.prediction.option_logprobs or []
    options = case.prediction.options or []
    if len(scores) < 2:
        return None
    ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return options[ranked[1]]


UNSURE_PHRASES = ("not sure", "don t know", "do not know", "unknown", "cannot", "can t", "unclear")


def is_non_answer(output: str, story: Story, spec: QuestionSpec) -> bool:
    """Whether an output that names no location is a non-answer (format), not an invented place.

    A non-answer restates the question (names the object or an agent), hedges, or rambles.
    """
    text = normalize(output)
    if any(phrase in text for phrase in UNSURE_PHRASES) or len(text.split()) > 6:
        return True
    return any(mentions(output, name) for name in (spec.subject, *story.agents))


def resolve_value(output: str, values: list[str]) -> str | None:
    """The story value the output names: equal after normalization, else the longest mentioned."""
    target = normalize(output)
    for value in values:
        if normalize(value) == target:
            return value
    named = [value for value in values if mentions(output, value)]
    return max(named, key=lambda v: (len(normalize(v)), v)) if named else None


def classify(
    story: Story, spec: QuestionSpec, value: str
) -> tuple[ErrorCategory, list[ErrorCategory], list[Reason]]:
    """Primary category, other fitting categories, and the reasons behind them."""
    reasons = explain_answers(story, spec).get(value, [])
    kinds = {reason.kind for reason in reasons}
    fitting = [category for kind, category in _CATEGORY_OF_REASON if kind in kinds]
    beliefs = [r for r in reasons if r.kind == "belief"]
    if beliefs and all(len(r.chain) == spec.order for r in beliefs):
        # The right depth but someone else's mind.
        fitting = [
            ErrorCategory.PERSPECTIVE_CONFUSION if c is ErrorCategory.ORDER_CONFUSION else c
            for c in fitting
        ]
    if not fitting:
        return ErrorCategory.HALLUCINATION, [], reasons
    return fitting[0], fitting[1:], reasons


def symbolic_diagnosis(case: BadCase) -> Diagnosis | None:
    """Diagnose a case from the story's events; ``None`` when the engine cannot read the story."""
    base = {
        "dataset": case.dataset,
        "sample_id": case.sample.id,
        "trial": case.prediction.trial,
        "reason": case.reason,
        "method": "symbolic",
        "question_type": _str(case.sample.meta.get("question_type")),
        "order": _int(case.sample.meta.get("order")),
    }
    output = runner_up(case) if case.reason == "unsure" else answered_text(case)
    if case.reason != "unsure" and (
        case.judgment.match_type == "unparsable" or not (output or "").strip()
    ):
        return Diagnosis(
            **base,
            category=ErrorCategory.FORMAT,
            model_answer=output,
            evidence=f"no answer could be read from {(case.prediction.raw_output or '')[:80]!r}",
            explanation="The reply gives no readable option or location.",
        )
    if case.reason != "unsure" and case.judgment.verdict is Verdict.AMBIGUOUS:
        # Its reading may be the gold; the fault is naming several answers, not the judge.
        return Diagnosis(
            **base,
            category=ErrorCategory.FORMAT,
            model_answer=output,
            evidence=f"names several answers: {(case.prediction.raw_output or '')[:80]!r}",
            explanation="The reply names several answers, which the strict answer policy "
            "scores as wrong.",
        )
    try:
        story, spec = sample_spec(case.sample)
    except DataError:
        return None
    if spec.kind not in LOCATION_KINDS or output is None:
        return None
    if case.sample.kind is not QAKind.OPEN and case.prediction.options:
        values = list(case.prediction.options)
    else:
        # The asked object and the agents are not answers to "where": leave them out.
        not_answers = {spec.subject, *story.agents}
        values = [v for v in explain_answers(story, spec) if v not in not_answers]
    value = resolve_value(output, values)
    if value is None:
        category = (
            ErrorCategory.FORMAT
            if is_non_answer(output, story, spec)
            else (ErrorCategory.HALLUCINATION)
        )
        restates = category is ErrorCategory.FORMAT
        return Diagnosis(
            **base,
            category=category,
            model_answer=output.strip()[:120],
            evidence="names no location" if restates else "names nothing in the story",
            explanation=_sentence(spec, output.strip()[:60], []),
        )
    if case.reason != "unsure" and normalize(value) in {
        normalize(gold) for gold in case.sample.answer.correct_answers
    }:
        return Diagnosis(
            **base,
            category=None,
            model_answer=value,
            failure="the answer matches the gold: a judging problem, not a model error",
        )
    category, also, reasons = classify(story, spec, value)
    base["order"] = base["order"] if base["order"] is not None else spec.order
    return Diagnosis(
        **base,
        category=category,
        also=also,
        model_answer=value,
        evidence="; ".join(reason.text for reason in reasons) or "not in the story",
        explanation=_sentence(spec, value, reasons),
    )


def _sentence(spec: QuestionSpec, value: str, reasons: list[Reason]) -> str:
    asked = f"order-{spec.order} belief" if spec.kind == "belief" else spec.kind
    if not reasons:
        return f"Asked for the {asked}, the model answered {value!r}, which the story never names."
    return f"Asked for the {asked}, the model answered {value!r}: the {reasons[0].text}."


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
