"""Check an LLM judge's reply against itself: its verdict, its reason and the answer it read.

The judge's structured reply carries the answer it read in the output, a reason and the
verdict. A verdict is kept only when nothing in the reply contradicts it:

- the reason must not argue the other way ("The answer is incorrect." beside ``correct``);
- the answer it read must appear in the model's output (it may not invent one);
- that answer, matched against the gold answers by the rules, must not contradict the verdict:
  ``correct`` with an answer that names a wrong option or candidate (or no answer at all), or
  ``incorrect`` with an answer that equals a gold. An answer the rules cannot place (a
  paraphrase) leaves the judge's verdict standing: that is what the judge is asked for.

A contradiction makes the judgment ``unjudged`` with the evidence, never a score.
"""

from __future__ import annotations

import re
from typing import Literal

from tomflywheel.asking._match import match_text, mentions, normalize
from tomflywheel.schema import Sample

_NEGATIVE = re.compile(
    r"\b(incorrect|not correct|wrong|does ?n[o']t match|not the same|does ?n[o']t mean|"
    r"not mean|differs?|mismatch)",
    re.IGNORECASE,
)
_POSITIVE = re.compile(r"\b(correct|matches|same as|means the same)\b", re.IGNORECASE)


def reason_polarity(reason: str) -> Literal["correct", "incorrect", "neutral"]:
    """What a judge's reason argues, read from its wording (negations first)."""
    if _NEGATIVE.search(reason):
        return "incorrect"
    if _POSITIVE.search(reason):
        return "correct"
    return "neutral"


def inconsistency(
    sample: Sample, output: str, *, answer: str, reason: str, correct: bool
) -> str | None:
    """Why a judge's reply contradicts itself, or ``None`` when it holds together.

    Args:
        sample: The judged sample (golds, wrong options, ``meta.candidates``).
        output: The evaluated model's raw output.
        answer: The answer the judge read in the output.
        reason: The judge's reason.
        correct: The judge's verdict.
    """
    said = "correct" if correct else "incorrect"
    polarity = reason_polarity(reason)
    if polarity != "neutral" and polarity != said:
        return f"the judge said {said} but its reason argues {polarity}: {reason!r}"
    if answer.strip() and not mentions(output, answer) and normalize(answer) not in ("", "none"):
        return f"the judge read {answer!r}, which is not in the output"
    golds = sample.answer.correct_answers
    gold_norms = {normalize(g) for g in golds}
    others = [
        str(w)
        for w in [*sample.answer.wrong_answers, *(sample.meta.get("candidates") or [])]
        if normalize(str(w)) not in gold_norms
    ]
    names_gold = match_text(answer, golds, partial=False) is not None
    names_wrong = any(mentions(answer, w) for w in others)
    if correct and not names_gold and (names_wrong or not normalize(answer)):
        return f"the judge said correct but the answer it read, {answer!r}, is no gold answer"
    if not correct and names_gold and not names_wrong:
        return f"the judge said incorrect but the answer it read, {answer!r}, is a gold answer"
    return None
