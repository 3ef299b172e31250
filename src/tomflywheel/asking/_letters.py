"""Parse the option letter(s) a model chose for a choice question.

A single-choice reply may name several options ("A. green_trunk ... The answer is D."):
:func:`named_letters` returns every option it names, in order, so the judge can call it
ambiguous (strict policy) or take the last one named (lenient policy).
"""

from __future__ import annotations

import re
import string

from tomflywheel.asking._match import mentioned_in_order, mentions, normalize

_ALONE = re.compile(r"^\(?([A-Za-z])\)?[.:)]?$")
# The keywords ignore case but the letter must be a capital: "the answer is a bucket" names no
# option A.
_ANSWER_IS = re.compile(
    r"(?i:answer|option|choice)\s*(?i:is|:)?\s*(?i:option\s*)?\(?([A-Z])\)?(?![A-Za-z])"
)
_LEADING = re.compile(r"^\(?([A-Z])(?:\)|\.|:|\s*$)")
_LEADING_ANY_LINE = re.compile(r"^[ \t]*\(?([A-Z])(?:\)|\.|:|[ \t]*$)", re.MULTILINE)
_LIST = re.compile(r"^\(?[A-Z]\)?(?:\s*(?:,|and|&|/)\s*\(?[A-Z]\)?)*\.?$")


def parse_letters(output: str, n_options: int, *, multi: bool = False) -> list[str] | None:
    """The letters chosen, sorted and unique, or ``None`` when no valid letter can be read.

    Accepts ``B``, ``(B)``, ``B.``, ``B) text``, ``Answer: B``, ``The answer is (B)``; for
    multi-choice also ``A, C`` or ``A and C``. A leading ``A`` followed by a word (the article,
    "A bucket") is not read as a letter.

    Args:
        output: The model's text.
        n_options: Number of options shown (valid letters are the first ``n_options``).
        multi: Several letters may be given.
    """
    valid = set(string.ascii_uppercase[:n_options])
    text = output.strip()
    first_line = text.splitlines()[0].strip() if text else ""

    def pick(found: list[str]) -> list[str] | None:
        chosen = sorted({letter.upper() for letter in found})
        if not chosen or not set(chosen) <= valid or (len(chosen) > 1 and not multi):
            return None
        return chosen

    if match := _ALONE.match(first_line):
        return pick([match.group(1)])
    if multi and _LIST.match(first_line):
        return pick(re.findall(r"[A-Z]", re.sub(r"\band\b", ",", first_line)))
    if match := _LEADING.match(first_line):
        return pick([match.group(1)])
    found = [m.group(1).upper() for m in _ANSWER_IS.finditer(text)]
    if found:
        return pick(found if multi else found[:1])
    return None


def letters_from_option_text(output: str, options: list[str]) -> list[str] | None:
    """Fallback: the one option whose text the output equals or mentions (ambiguity gives None)."""
    target = normalize(output)
    exact = [i for i, option in enumerate(options) if normalize(option) == target and target]
    if len(exact) == 1:
        return [string.ascii_uppercase[exact[0]]]
    mentioned = [i for i, option in enumerate(options) if mentions(output, option)]
    if len(mentioned) == 1:
        return [string.ascii_uppercase[mentioned[0]]]
    return None


def named_letters(output: str, n_options: int) -> list[str]:
    """Every valid option letter a reply names, in order of first appearance.

    A letter is named when it stands alone on the first line (``b)``), opens a line (``D.
    blue_crate``) or follows "answer is"/"option"/"choice" anywhere. Out-of-range letters are
    ignored. More than one letter means the reply is ambiguous for a single-choice question.

    Args:
        output: The model's text.
        n_options: Number of options shown.
    """
    valid = set(string.ascii_uppercase[:n_options])
    text = output.strip()
    first_line = text.splitlines()[0].strip() if text else ""
    found: list[tuple[int, str]] = []
    if match := _ALONE.match(first_line):
        found.append((0, match.group(1).upper()))
    found += [(m.start(1), m.group(1)) for m in _LEADING_ANY_LINE.finditer(text)]
    found += [(m.start(1), m.group(1)) for m in _ANSWER_IS.finditer(text)]
    ordered = [letter for _, letter in sorted(found) if letter in valid]
    return list(dict.fromkeys(ordered))


def options_named(output: str, options: list[str]) -> list[str]:
    """Letters of the options whose text a reply equals, else of those it mentions, in order."""
    target = normalize(output)
    exact = [i for i, option in enumerate(options) if target and normalize(option) == target]
    if exact:
        return [string.ascii_uppercase[i] for i in exact[:1]]
    return [string.ascii_uppercase[i] for i in mentioned_in_order(output, options)]
