"""Labels of samples without a trace, verified and repaired through the world engine.

Imported ToMi, Hi-ToM and tgtom samples (read as ``world check`` reads them) and free text the
story parser reads are re-derived under every rule profile before any check runs
(``world.read_labels``). Only what is wrong under every profile is relabelled:

- a gold no profile's rules give is an *error*: by ``label.contradicted`` it is relabelled with
  the engine's answer, every alias of it kept (``treasure_chest`` and ``treasure chest``), or
  left to the ``engine_label`` check, which rejects it;
- a gold some profile's rules give while the reference profiles disagree is *convention
  dependent*: it is kept as given and marked (``meta.convention``). Under ``auto`` it is never
  rewritten; a profile named explicitly (``--profile default``) resolves it: a gold that profile
  does not give is relabelled with its answer (or rejected, ``label_convention``).

An error whose answer itself depends on a convention is relabelled with the answer of the
convention the rest of its dataset clearly follows (:data:`FOLLOWED_SHARE` of its
convention-dependent golds; under ``auto``), so a corrected copy of a benchmark is repaired
toward its own rules, not toward the original's; else with the answer profile's answer. A label
an answer's other written form is missing from, where its dataset lists both (``green_bucket``,
``green bucket``), gets it back. Every change is recorded in ``meta.label_repair`` (old and new
label, why, profile, kind); the story is never touched.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Literal

from tomflywheel.config import FilterSettings
from tomflywheel.errors import ConfigError
from tomflywheel.filter.checks._context import CheckContext
from tomflywheel.filter.checks._registry import check, failed, passed, skipped
from tomflywheel.filter.records import Candidate, engine_reads
from tomflywheel.schema import CheckResult, Sample
from tomflywheel.world import PROFILES, LabelReading, answer_text, read_labels

_WORDS = re.compile(r"[\W_]+")

RepairKind = Literal["error", "convention", "alias"]
"""Why a label changed: no profile gives the gold; an explicit profile resolved a convention;
an alias of the answer was missing."""
REPAIRED = "repaired: "
"""How the detail of an ``engine_label`` result on a relabelled sample starts."""
CONVENTION = "convention: "
_ALIAS_WHY = "alias: its dataset lists every answer in both written forms, this one lacked one"
"""How the detail of an ``engine_label`` result on a convention-dependent gold starts."""


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


def writes_aliases(sample: Sample) -> bool:
    """Whether an open answer lists a written form with ``_`` and its spaced twin."""
    golds = sample.answer.correct_answers
    return not sample.answer.wrong_answers and any(
        "_" in gold and gold.replace("_", " ") in golds for gold in golds
    )


def answer_forms(new: str, old: list[str], *, aliases: bool) -> list[str]:
    """The written forms of an open answer: as the engine names it, then its aliases.

    The old gold's forms of the same answer are kept (``Treasure Chest``), and the spaced twin of
    a form with ``_`` is added when the dataset lists both (``aliases``) or the old gold did.
    """
    forms = [new, *(form for form in old if form != new and _key(form) == _key(new))]
    spaced = new.replace("_", " ")
    if spaced != new and spaced not in forms and (aliases or len(old) > 1):
        forms.append(spaced)
    return forms


def relabelled(
    sample: Sample,
    reading: LabelReading,
    *,
    profile: str | None = None,
    kind: RepairKind = "error",
    aliases: bool = False,
    why: str | None = None,
) -> Sample | None:
    """The sample with ``profile``'s answer (default: the reading's) as its gold; None: cannot be.

    Open QA: the answer in every written form (:func:`answer_forms`). Choice QA: the option
    naming the answer becomes the correct one and the old gold a wrong one; None when no option
    names it or several answers are correct. ``meta.label_repair`` records the change.
    """
    used = profile or reading.profile
    answer = reading.answer_under(used) if profile is not None else reading.answer
    if answer is None:
        return None
    new = answer_text(answer)
    old = list(sample.answer.correct_answers)
    if sample.answer.wrong_answers:
        match = [w for w in sample.answer.wrong_answers if _key(w) == _key(new)]
        if len(old) != 1 or not match:
            return None
        wrong = [old[0] if w == match[0] else w for w in sample.answer.wrong_answers]
        correct = [match[0]]
    else:
        correct = answer_forms(new, old, aliases=aliases or writes_aliases(sample))
        wrong = []
    if correct == old:
        return None
    meta: dict[str, Any] = dict(sample.meta)
    if reading.reader == "tgtom" and "gold" in meta:
        meta["gold"] = answer  # tgtom's reading compares the structured gold
    meta["label_repair"] = {
        "old": old,
        "new": correct,
        "why": why or reading.detail,
        "profile": used,
        "kind": kind,
    }
    data = sample.model_dump(mode="json")
    data["answer"] = {"correct_answers": correct, "wrong_answers": wrong}
    data["meta"] = meta
    return Sample.model_validate(data)


def _dataset(candidate: Candidate) -> str:
    sample = candidate.sample
    return str(sample.meta.get("dataset", "?")) if sample is not None else "?"


FOLLOWED_SHARE = 0.8
"""The share of a dataset's convention-dependent golds one reference profile must give for the
dataset to follow its convention (else its errors take the answer profile's answer)."""


def _followed(candidates: Iterable[Candidate]) -> dict[str, str]:
    """Per dataset, the reference profile its convention-dependent golds clearly follow."""
    tally: dict[str, Counter[str]] = {}
    golds: Counter[str] = Counter()
    for candidate in candidates:
        reading = candidate.reading
        if reading is None or reading.status != "convention":
            continue
        dataset = _dataset(candidate)
        golds[dataset] += 1
        counter = tally.setdefault(dataset, Counter())
        counter.update(name for name in reading.supports if name in reading.reference)
    followed = {}
    for dataset, counter in tally.items():
        ranked = sorted(counter.items(), key=lambda pair: (-pair[1], pair[0]))
        if ranked and ranked[0][1] >= FOLLOWED_SHARE * golds[dataset]:
            followed[dataset] = ranked[0][0]
    return followed


def _convention_mark(reading: LabelReading) -> dict[str, Any]:
    """``meta.convention``: whose rules give the gold, what each reference profile derives."""
    return {
        "follows": list(reading.supports),
        "answers": {
            name: answer_text(answer)
            for name, answer in reading.answers
            if name in reading.reference
        },
        "profile": reading.profile,
    }


def _marked(candidate: Candidate) -> Candidate:
    """A convention-dependent sample with ``meta.convention`` set (kept as given otherwise)."""
    reading, sample = candidate.reading, candidate.sample
    if reading is None or sample is None or reading.status != "convention":
        return candidate
    meta = {**sample.meta, "convention": _convention_mark(reading)}
    return replace(candidate, sample=sample.model_copy(update={"meta": meta}))


def _target(reading: LabelReading, profile: str | None, followed: str | None) -> str | None:
    """The profile whose answer a label takes, or None when it is kept (see the module doc)."""
    if reading.status == "contradicted":
        if profile is None and reading.dependent and followed is not None:
            return followed
        return reading.profile
    if reading.status == "convention" and profile is not None and profile not in reading.supports:
        return profile
    return None


def read_engine_labels(candidates: list[Candidate], settings: FilterSettings) -> list[Candidate]:
    """Every candidate with the engine's reading of its label, errors relabelled (see above).

    A relabelled sample is read again and kept only when the profile it was relabelled toward
    now gives its gold; the candidate keeps its record and input hash (resumes key on the input
    as given).
    """
    profile = answer_profile(settings)
    eligible = [c for c in candidates if engine_reads(c)]
    readings = read_labels([c.sample for c in eligible if c.sample is not None], profile=profile)
    read = {c.index: replace(c, reading=r) for c, r in zip(eligible, readings, strict=True)}
    aliased = {_dataset(c) for c in eligible if c.sample is not None and writes_aliases(c.sample)}
    followed = _followed(read.values())
    repair = settings.label.contradicted == "repair"
    for index, candidate in list(read.items()):
        reading = candidate.reading
        if reading is None or reading.status == "unreadable":
            continue
        dataset = _dataset(candidate)
        target = _target(reading, profile, followed.get(dataset))
        fixed = None
        if target is not None and repair:
            kind: RepairKind = "error" if reading.status == "contradicted" else "convention"
            fixed = _repaired(candidate, target, kind, profile, aliases=dataset in aliased)
        elif target is None and dataset in aliased:
            own = reading.profile if reading.profile in reading.supports else reading.supports[0]
            fixed = _repaired(candidate, own, "alias", profile, aliases=True)
        read[index] = _marked(fixed or candidate)
    return [read.get(c.index, c) for c in candidates]


def _repaired(
    candidate: Candidate, target: str, kind: RepairKind, profile: str | None, *, aliases: bool
) -> Candidate | None:
    """The candidate relabelled toward ``target``'s answer, when that profile then gives it."""
    if candidate.sample is None or candidate.reading is None:
        return None
    explicit = target if target != candidate.reading.profile else None
    why = _ALIAS_WHY if kind == "alias" else None
    sample = relabelled(
        candidate.sample, candidate.reading, profile=explicit, kind=kind, aliases=aliases, why=why
    )
    if sample is None:
        return None
    again = next(read_labels([sample], profile=profile))
    if target not in again.supports:
        return None
    repair = sample.meta["label_repair"]
    return replace(candidate, sample=sample, reading=again, label_repair=repair)


def _reading(candidate: Candidate, context: CheckContext) -> LabelReading | None:
    """The candidate's reading, read now when the run did not (a candidate checked alone)."""
    if candidate.reading is not None or candidate.sample is None:
        return candidate.reading
    profile = answer_profile(context.settings)
    return next(read_labels([candidate.sample], profile=profile))


def repair_detail(repair: dict[str, Any]) -> str:
    """The ``engine_label`` detail of a relabelled sample (starts with :data:`REPAIRED`)."""
    kind = repair.get("kind", "error")
    return (
        f"{REPAIRED}{repair['old']} -> {repair['new']} under {repair['profile']} ({kind}); "
        f"{repair['why']}"
    )


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
            "The gold follows another profile's convention, not the one named with --profile.",
        ),
    },
)
def engine_label_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """The world engine reads a sample without a trace and judges its gold under every profile.

    Verified: the reference profiles all derive the gold. Convention-dependent: passes, saying
    whose rules give it, unless a profile named explicitly does not (then relabelled before the
    checks ran, or rejected as ``label_convention``). Error: relabelled before the checks ran
    (``label.contradicted: repair``; passes, saying so), else rejected with the explanation.
    Unreadable: skipped with why; the label is then the LLM checks' to verify, or unverified.
    """
    if not engine_reads(candidate):
        return skipped("engine_label", "not_applicable")
    reading = _reading(candidate, context)
    if reading is None:
        return skipped("engine_label", "not_applicable")
    if candidate.label_repair is not None:
        return passed("engine_label", repair_detail(candidate.label_repair))
    if reading.status == "verified":
        return passed("engine_label", reading.detail)
    if reading.status == "unreadable":
        return skipped("engine_label", "unreadable", reading.detail)
    profile = answer_profile(context.settings)
    if reading.status == "convention" and (profile is None or profile in reading.supports):
        return passed("engine_label", reading.detail)
    code = "label_convention" if reading.status == "convention" else "label_contradicted"
    detail = reading.detail
    if code == "label_convention":
        detail += f"; --profile {profile} does not give it"
    if context.settings.label.contradicted == "repair" and candidate.reading is not None:
        detail += "; not repaired: no option names the engine's answer"
    return failed("engine_label", code, detail)
