"""Surface: what a set looks like to a model, apart from what it asks.

Training data that teaches the right skill in the wrong surface teaches the surface too: stories
with bAbI line numbers where the measured sets have none, container names where the measured
set wants a letter (BigToM's replies collapsed that way), prompts of another length. A
:class:`SurfaceProfile` sums a set up; :func:`surface_gaps` names where two sets differ.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from tomflywheel.asking import normalize
from tomflywheel.schema import QAKind, Sample
from tomflywheel.world import is_numbered

AnswerFormat = Literal["open", "choice", "multi_choice", "yes_no", "completion"]

NUMBERED_GAP = 0.25
"""Shares of numbered stories further apart than this are a gap."""
FORMAT_GAP = 0.25
"""An answer format this much more common in the measured set than in the data is a gap."""
LENGTH_RATIO = 1.5
"""Mean prompt lengths further apart than this factor are a gap."""


def answer_format(sample: Sample) -> AnswerFormat:
    """How a sample is answered: yes/no, a letter (choice), several letters, or open text.

    Completion items (an empty question continuing the story) are ``completion``.
    """
    golds = {normalize(g) for g in sample.answer.correct_answers}
    options = {normalize(o) for o in sample.options}
    if golds <= {"yes", "no"} and (sample.kind is QAKind.OPEN or options <= {"yes", "no"}):
        return "yes_no"
    if sample.kind is QAKind.SINGLE_CHOICE:
        return "choice"
    if sample.kind is QAKind.MULTI_CHOICE:
        return "multi_choice"
    return "completion" if not sample.question.strip() else "open"


def prompt_words(sample: Sample) -> int:
    """Words the model reads for a sample: story, question and options."""
    return len(f"{sample.story} {sample.question} {' '.join(sample.options)}".split())


@dataclass(frozen=True, slots=True)
class SurfaceProfile:
    """A set's surface: numbered stories, answer formats and prompt length."""

    n: int
    numbered: float
    """Share of samples whose story lines carry line numbers."""
    formats: dict[str, float]
    """Share of samples per answer format."""
    prompt_words: float
    """Mean words per prompt (story, question, options)."""

    @property
    def answer_format(self) -> AnswerFormat:
        """The most common answer format (ties: the first in name order)."""
        return min(self.formats, key=lambda name: (-self.formats[name], name))  # type: ignore[return-value]

    def as_dict(self) -> dict[str, object]:
        """JSON-able."""
        return {
            "n": self.n,
            "numbered": round(self.numbered, 4),
            "formats": {k: round(v, 4) for k, v in sorted(self.formats.items())},
            "prompt_words": round(self.prompt_words, 1),
        }


def surface_profile(samples: Iterable[Sample]) -> SurfaceProfile | None:
    """The surface of a set (``None`` when it is empty)."""
    n = numbered = words = 0
    formats: Counter[str] = Counter()
    for sample in samples:
        n += 1
        numbered += is_numbered(sample.story)
        formats[answer_format(sample)] += 1
        words += prompt_words(sample)
    if not n:
        return None
    return SurfaceProfile(
        n=n,
        numbered=numbered / n,
        formats={name: count / n for name, count in formats.items()},
        prompt_words=words / n,
    )


def surface_gaps(data: SurfaceProfile, measured: Mapping[str, SurfaceProfile]) -> list[str]:
    """Where training ``data`` differs in surface from each ``measured`` set, in words.

    A gap is a share of numbered stories more than :data:`NUMBERED_GAP` apart, an answer format
    at least :data:`FORMAT_GAP` more common in the measured set than in the data, or mean prompt
    lengths more than :data:`LENGTH_RATIO` times apart.
    """
    gaps = []
    for label, other in sorted(measured.items()):
        if abs(data.numbered - other.numbered) > NUMBERED_GAP:
            gaps.append(
                f"{label}: line numbers on {other.numbered:.0%} of its stories, "
                f"on {data.numbered:.0%} of the data's"
            )
        for name, share in sorted(other.formats.items()):
            mine = data.formats.get(name, 0.0)
            if share - mine >= FORMAT_GAP:
                gaps.append(
                    f"{label}: {share:.0%} of its items are answered {_FORMAT_WORDS[name]}, "
                    f"{mine:.0%} of the data's"
                )
        longer = max(data.prompt_words, other.prompt_words)
        shorter = max(min(data.prompt_words, other.prompt_words), 1e-9)
        if longer / shorter > LENGTH_RATIO:
            gaps.append(
                f"{label}: prompts of {other.prompt_words:.0f} words on average, "
                f"the data's {data.prompt_words:.0f}"
            )
    return gaps


_FORMAT_WORDS = {
    "open": "in open text",
    "choice": "with a letter",
    "multi_choice": "with several letters",
    "yes_no": "yes or no",
    "completion": "by completing the text",
}
