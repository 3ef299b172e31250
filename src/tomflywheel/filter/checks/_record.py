"""Checks on a record alone: schema, empty or over-long fields, leaked answers, choice sets."""

from __future__ import annotations

import re

from tomflywheel.asking import mentions, normalize
from tomflywheel.filter.checks._context import CheckContext
from tomflywheel.filter.checks._registry import check, failed, passed, skipped
from tomflywheel.filter.records import Candidate
from tomflywheel.schema import CheckResult

_SENTENCES = re.compile(r"(?<=[.!?])\s+")


@check(
    "schema",
    phase="record",
    reasons={
        "invalid_json": (False, "The line is not JSON."),
        "schema_invalid": (False, "The record is not a valid normalized sample."),
    },
)
def schema_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """The record is JSON and a valid ``Sample`` (id, story, question, answer lists, meta)."""
    if candidate.error is not None:
        reason, detail = candidate.error
        return failed("schema", reason, detail)
    return passed("schema")


@check(
    "fields",
    phase="record",
    reasons={
        "empty_field": (False, "A story, question or option is empty."),
        "field_too_long": (False, "A field is longer than the configured limit."),
    },
)
def fields_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """No empty story, question (except completion tasks) or option; nothing over its limit."""
    sample = candidate.sample
    if sample is None:
        return skipped("fields", "not_applicable")
    limits = context.settings.limits
    if not sample.story.strip():
        return failed("fields", "empty_field", "story is empty")
    if not sample.question.strip() and not candidate.is_completion:
        return failed("fields", "empty_field", "question is empty (not a completion task)")
    for position, option in enumerate(sample.answer.wrong_answers):
        if not normalize(option):
            return failed("fields", "empty_field", f"answer.wrong_answers[{position}] is blank")
    sizes = [("story", sample.story, limits.max_story_chars)]
    sizes.append(("question", sample.question, limits.max_question_chars))
    sizes += [("answer", text, limits.max_answer_chars) for text in sample.options]
    for field, text, limit in sizes:
        if len(text) > limit:
            return failed("fields", "field_too_long", f"{field}: {len(text)} > {limit} chars")
    if len(sample.options) > limits.max_options and sample.answer.wrong_answers:
        detail = f"{len(sample.options)} options > {limits.max_options}"
        return failed("fields", "field_too_long", detail)
    return passed("fields")


def asking_part(question: str) -> str:
    """The sentences of a question that ask (end in ``?``).

    Premises and instructions are left out ("Suppose Aria had said the apple is in the box.
    Where ...?" asks only its last sentence).
    """
    sentences = [s for s in _SENTENCES.split(question.strip()) if s.strip()]
    asking = [s for s in sentences if s.rstrip().endswith("?")]
    return " ".join(asking) if asking else question


@check(
    "answer_leak",
    phase="record",
    reasons={"answer_leak": (True, "The question names the answer.")},
)
def answer_leak_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """The asking sentence of the question does not name a correct answer (as whole words).

    A choice question naming a wrong option too is not a leak ("the box or the basket?"), nor
    one whose gold's words all occur in a wrong option ("Do they know ...?": Know / Do not know).
    """
    sample = candidate.sample
    if sample is None or not sample.question.strip():
        return skipped("answer_leak", "not_applicable")
    asking = asking_part(sample.question)
    wrong_words = [set(normalize(wrong).split()) for wrong in sample.answer.wrong_answers]
    for gold in sample.answer.correct_answers:
        if not mentions(asking, gold):
            continue
        if any(mentions(asking, wrong) for wrong in sample.answer.wrong_answers):
            continue
        if any(set(normalize(gold).split()) <= words for words in wrong_words):
            continue  # "Know" vs "Do not know": naming the predicate reveals nothing
        return failed("answer_leak", "answer_leak", f"the question names the answer {gold!r}")
    return passed("answer_leak")


@check(
    "choices",
    phase="record",
    reasons={
        "gold_in_wrong": (False, "A correct answer is also listed as a wrong one."),
        "duplicate_options": (False, "Two options are the same text."),
    },
)
def choices_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """A choice question's options are distinct and no correct answer is among the wrong ones."""
    sample = candidate.sample
    if sample is None or not sample.answer.wrong_answers:
        return skipped("choices", "not_applicable")
    wrong = {normalize(text): text for text in sample.answer.wrong_answers}
    for gold in sample.answer.correct_answers:
        if normalize(gold) in wrong:
            detail = f"{gold!r} is correct and wrong ({wrong[normalize(gold)]!r})"
            return failed("choices", "gold_in_wrong", detail)
    seen: dict[str, str] = {}
    for text in sample.options:
        key = normalize(text)
        if key in seen:
            return failed("choices", "duplicate_options", f"{seen[key]!r} and {text!r}")
        seen[key] = text
    return passed("choices")
