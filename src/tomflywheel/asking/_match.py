"""Text matching for open answers: the exact -> normalized -> contained -> prefix -> suffix cascade.

Normalization keeps letters and digits only (so ``green_bucket`` and ``The green bucket.`` both
become ``green bucket``) and drops the articles *a*, *an*, *the* as whole words (never inside a
word: ``theatre`` stays). The later steps are looser and are recorded, so metrics can show how
much each contributed:

- contained: the gold answer appears as a whole-word span inside the output ("It is in the
  green bucket now.");
- prefix: the output is the beginning of the gold answer, cut short (``green`` for
  ``green bucket``, e.g. an output stopped by max_tokens);
- suffix: the output is the end of the gold answer (``bucket`` for ``green bucket``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

MatchType = Literal["exact", "normalized", "contained", "prefix", "suffix"]
CASCADE: tuple[MatchType, ...] = ("exact", "normalized", "contained", "prefix", "suffix")
ARTICLES = frozenset({"a", "an", "the"})
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalize_tokens(text: str) -> list[str]:
    """Lower-cased words of letters and digits, articles removed."""
    return [word for word in _NON_WORD.sub(" ", text.lower()).split() if word not in ARTICLES]


def normalize(text: str) -> str:
    """Letters and digits only, lower case, articles removed, single spaces."""
    return " ".join(normalize_tokens(text))


_ANSWER_LINE = re.compile(r"^[ \t]*answer[ \t]*:", re.IGNORECASE | re.MULTILINE)


def final_answer(output: str) -> str:
    """What follows a reply's last line-opening ``Answer:``, or the whole reply without one.

    A model taught rationales (``train.rationale``) reasons first, naming every place and
    person of the story, then gives ``Answer: <answer>`` on its own line: only that is its
    answer. A reply cut off before the marker gave none, and is judged whole.
    """
    markers = list(_ANSWER_LINE.finditer(output))
    return output[markers[-1].end() :].strip() if markers else output


def _contains(haystack: list[str], needle: list[str]) -> bool:
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


@dataclass(frozen=True, slots=True)
class TextMatch:
    """The first cascade step at which an output matched a gold answer."""

    match_type: MatchType
    gold: str


def match_text(
    output: str, golds: Sequence[str], *, strict: bool = False, partial: bool = True
) -> TextMatch | None:
    """Run the cascade over every gold answer.

    Args:
        output: The model's text.
        golds: Acceptable answers.
        strict: Exact matches only.
        partial: Allow the prefix and suffix steps (a cut-short or partial answer).
    """
    stripped = output.strip()
    for gold in golds:
        if stripped == gold.strip():
            return TextMatch("exact", gold)
    if strict:
        return None
    out_tokens = normalize_tokens(output)
    if not out_tokens:
        return None
    gold_tokens = [(gold, normalize_tokens(gold)) for gold in golds]
    gold_tokens = [(gold, tokens) for gold, tokens in gold_tokens if tokens]
    checks = (
        ("normalized", lambda g: out_tokens == g),
        ("contained", lambda g: _contains(out_tokens, g)),
        ("prefix", lambda g: len(out_tokens) < len(g) and g[: len(out_tokens)] == out_tokens),
        ("suffix", lambda g: len(out_tokens) < len(g) and g[-len(out_tokens) :] == out_tokens),
    )
    if not partial:
        checks = checks[:2]
    for match_type, check in checks:
        for gold, tokens in gold_tokens:
            if check(tokens):
                return TextMatch(match_type, gold)  # type: ignore[arg-type]
    return None


def mentions(output: str, candidate: str) -> bool:
    """Whether ``candidate`` appears as a whole-word span in ``output`` (normalized)."""
    tokens = normalize_tokens(candidate)
    return bool(tokens) and _contains(normalize_tokens(output), tokens)


def first_word(output: str) -> str:
    """The first word of an output, normalized (articles are kept: they can be the answer)."""
    words = _NON_WORD.sub(" ", output.lower()).split()
    return words[0] if words else ""


def mentioned_in_order(output: str, texts: Sequence[str]) -> list[int]:
    """Indices of the ``texts`` an output mentions (whole words), by first appearance.

    A text inside a longer mentioned one (``box`` in ``red box``) is not counted on its own.
    """
    words = normalize_tokens(output)
    found = []
    for i, text in enumerate(texts):
        tokens = normalize_tokens(text)
        width = len(tokens)
        at = next(
            (k for k in range(len(words) - width + 1) if words[k : k + width] == tokens), None
        )
        if tokens and at is not None:
            found.append((at, i, tokens))
    kept = [
        (at, i)
        for at, i, tokens in found
        if not any(
            len(other) > len(tokens) and _contains(other, tokens) for _, j, other in found if j != i
        )
    ]
    return [i for _, i in sorted(kept)]
