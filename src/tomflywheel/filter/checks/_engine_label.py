"""Labels of samples without a trace, verified and repaired through the world engine.

Imported ToMi, Hi-ToM and tgtom samples (read as ``world check`` reads them) and free text the
story parser reads are re-derived under the answer profile before any check runs. A gold the
engine contradicts is, by ``label.contradicted``, relabelled with the engine's answer (the story
is never touched; ``meta.label_repair`` records old and new label, why and profile) or left to
the ``engine_label`` check, which rejects it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from tomflywheel.config import FilterSettings
from tomflywheel.errors import ConfigError
from tomflywheel.filter.checks._context import CheckContext
from tomflywheel.filter.checks._registry import check, failed, passed, skipped
from tomflywheel.filter.records import Candidate, engine_reads
from tomflywheel.schema import CheckResult, Sample
from tomflywheel.world import PROFILES, LabelReading, read_labels

_WORDS = re.compile(r"[\W_]+")


def answer_profile(settings: FilterSettings) -> str | None:
    """The profile labels are derived under (None: each benchmark's own).

    Raises:
        ConfigError: An unknown profile.
    """
    name = settings.answer_profile
    if name == "auto":
        return None
    if name not in PROFILES:
        known = ", ".join(["auto", *sorted(PROFILES)])
        raise ConfigError(f"filter.answer_profile: unknown profile {name!r} (known: {known})")
    return name


def _key(text: str) -> str:
    return " ".join(_WORDS.sub(" ", text.lower()).split())


def relabelled(sample: Sample, reading: LabelReading) -> Sample | None:
    """The sample with the engine's answer as its gold; None when it cannot be (see below).

    Open QA: the answer, plus its spaced form when the old gold listed one (``green_bucket``,
    ``green bucket``). Choice QA: the option naming the engine's answer becomes the correct one
    and the old gold a wrong one; None when no option names it or several answers are correct.
    """
    new = reading.answer_text
    answer = sample.answer
    old = list(answer.correct_answers)
    if answer.wrong_answers:
        match = [w for w in answer.wrong_answers if _key(w) == _key(new)]
        if len(old) != 1 or not match:
            return None
        wrong = [old[0] if w == match[0] else w for w in answer.wrong_answers]
        correct = [match[0]]
    else:
        spaced = new.replace("_", " ")
        correct = [new, spaced] if len(old) > 1 and spaced != new else [new]
        wrong = []
    meta: dict[str, Any] = dict(sample.meta)
    if reading.reader == "tgtom" and "gold" in meta:
        meta["gold"] = reading.answer  # tgtom's reading compares the structured gold
    meta["label_repair"] = {
        "old": old,
        "new": correct,
        "why": reading.detail,
        "profile": reading.profile,
    }
    data = sample.model_dump(mode="json")
    data["answer"] = {"correct_answers": correct, "wrong_answers": wrong}
    data["meta"] = meta
    return Sample.model_validate(data)


def read_engine_labels(candidates: list[Candidate], settings: FilterSettings) -> list[Candidate]:
    """Every candidate with the engine's reading of its label, contradicted ones relabelled.

    A relabelled sample is read again and kept only when the engine now verifies it; the
    candidate keeps its record and input hash (resumes key on the input as given).
    """
    profile = answer_profile(settings)
    eligible = [c for c in candidates if engine_reads(c)]
    readings = read_labels([c.sample for c in eligible if c.sample is not None], profile=profile)
    read = {c.index: replace(c, reading=r) for c, r in zip(eligible, readings, strict=True)}
    if settings.label.contradicted == "repair":
        read.update(_repaired([c for c in read.values() if _contradicted(c)], profile))
    return [read.get(c.index, c) for c in candidates]


def _contradicted(candidate: Candidate) -> bool:
    return candidate.reading is not None and candidate.reading.status == "contradicted"


def _repaired(candidates: list[Candidate], profile: str | None) -> dict[int, Candidate]:
    fixed: dict[int, Candidate] = {}
    for candidate in candidates:
        if candidate.sample is None or candidate.reading is None:
            continue
        sample = relabelled(candidate.sample, candidate.reading)
        if sample is None:
            continue
        again = next(read_labels([sample], profile=profile))
        if again.status == "verified":
            repair = sample.meta["label_repair"]
            fixed[candidate.index] = replace(
                candidate, sample=sample, reading=again, label_repair=repair
            )
    return fixed


def _reading(candidate: Candidate, context: CheckContext) -> LabelReading | None:
    """The candidate's reading, read now when the run did not (a candidate checked alone)."""
    if candidate.reading is not None or candidate.sample is None:
        return candidate.reading
    profile = answer_profile(context.settings)
    return next(read_labels([candidate.sample], profile=profile))


@check(
    "engine_label",
    phase="record",
    reasons={
        "label_contradicted": (
            False,
            "The world engine derives another answer; no profile's rules give the gold (an error).",
        ),
        "label_convention": (
            False,
            "The gold follows another profile's convention, not the answer profile's rules.",
        ),
    },
)
def engine_label_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """The world engine reads a sample without a trace and derives its gold under the profile.

    Verified: both verifiers derive the gold. Contradicted: relabelled before the checks ran
    (``label.contradicted: repair``; passes, saying so), else rejected with the explanation.
    Unreadable: skipped with why; the label is then the LLM checks' to verify, or unverified.
    """
    if not engine_reads(candidate):
        return skipped("engine_label", "not_applicable")
    reading = _reading(candidate, context)
    if reading is None:
        return skipped("engine_label", "not_applicable")
    if candidate.label_repair is not None:
        repair = candidate.label_repair
        detail = f"repaired: {repair['old']} -> {repair['new']} under {repair['profile']}; "
        return passed("engine_label", detail + str(repair["why"]))
    if reading.status == "verified":
        return passed("engine_label", reading.detail)
    if reading.status == "unreadable":
        return skipped("engine_label", "unreadable", reading.detail)
    code = "label_convention" if reading.convention is not None else "label_contradicted"
    detail = reading.detail
    if context.settings.label.contradicted == "repair" and candidate.reading is not None:
        detail += "; not repaired: no option names the engine's answer"
    return failed("engine_label", code, detail)
