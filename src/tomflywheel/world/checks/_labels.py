"""Each normalized sample's label as the engine reads it: verified, convention, error, unreadable.

The benchmark checks answer a whole file and report agreement; a curator needs the verdict on
every sample. Imported ToMi, Hi-ToM and tgtom samples are read as ``world check`` reads them
(their importers' ``meta`` fields); any other sample is read from its trace, or its story and
question texts are parsed. Every rule profile answers every question, so a gold is judged
against all of them:

- *verified*: the answer profile derives it, and the reference profiles (the answer profile, the
  principled ``default`` and the benchmark's own) all agree;
- *convention*: some profile's rules give the gold, but the reference profiles disagree about
  the answer, so the label depends on a convention (ToMi's second-order labels after a third
  agent's entry): it is never counted verified, and only the user can resolve it;
- *contradicted*: no profile's rules give the gold, an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from itertools import groupby
from typing import Literal

from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.world.checks._check import (
    _READINGS,
    DEFAULT_PROFILES,
    Benchmark,
    _same,
)
from tomflywheel.world.checks._item import CheckItem, Unparsed
from tomflywheel.world.language import answer_text
from tomflywheel.world.model import Answer, QuestionSpec, Story
from tomflywheel.world.physics import PROFILES, get_profile
from tomflywheel.world.samples import grammar_of, sample_spec
from tomflywheel.world.verifiers import Answerer

LabelStatus = Literal["verified", "convention", "contradicted", "unreadable"]
"""What the engine says about a gold: every reference profile derives it, the profiles disagree
and one of them gives it, none gives it, or the engine cannot read the sample."""

_NEEDS: dict[Benchmark, tuple[str, ...]] = {
    "tomi": ("question_type",),
    "hitom": ("order", "deception", "source_id", "twin_gold"),
    "tgtom": ("question_type", "story_id", "agents", "tgtom_fields", "object", "answer_kind"),
}
"""The ``meta`` fields each benchmark's importer writes and its reading needs."""
_EXPLAINS_ERRORS = frozenset({"hitom"})
"""Benchmarks whose cause function explains any gap from the story (ToMi's only names the
convention behind one, so it would mislabel an error)."""
_REPLAY_ERRORS = (KeyError, ValueError, IndexError, TypeError, AttributeError)
_NON_WORD = re.compile(r"[\W_]+")
_ARTICLES = frozenset({"a", "an", "the"})


@dataclass(frozen=True, slots=True)
class LabelReading:
    """The engine's reading of one sample's gold."""

    sample_id: str
    status: LabelStatus
    profile: str
    """The rule profile the answer was derived under."""
    reader: str
    """How the sample was read: ``tomi``, ``hitom``, ``tgtom`` (the benchmark's own fields),
    ``trace`` (``meta.trace``) or ``text`` (story and question parsed)."""
    answer: Answer = None
    """The derived answer (None when unreadable)."""
    detail: str = ""
    """Verified: what both verifiers derive; convention or contradicted: the explanation;
    unreadable: why."""
    supports: tuple[str, ...] = ()
    """The profiles whose rules give the gold, by name (empty: an error, or unreadable)."""
    answers: tuple[tuple[str, Answer], ...] = ()
    """Every profile's answer (forward tracker), by profile name; a profile whose walk fails is
    left out."""
    reference: tuple[str, ...] = ()
    """The profiles a label must satisfy to be verified: the answer profile, ``default`` and the
    benchmark's (or trace's) own, by name."""

    @property
    def answer_text(self) -> str:
        """The derived answer as one canonical line (``green_bucket``, ``help: X; hide: none``)."""
        return answer_text(self.answer)

    @property
    def convention(self) -> str | None:
        """A profile other than the answer profile whose rules give the gold (None: none does)."""
        return next((name for name in self.supports if name != self.profile), None)

    @property
    def dependent(self) -> bool:
        """Whether the reference profiles disagree about the answer (a convention decides it)."""
        return len({answer_text(a) for name, a in self.answers if name in self.reference}) > 1

    def answer_under(self, profile: str) -> Answer:
        """The answer ``profile``'s rules derive (None when its walk failed or it is unread)."""
        return dict(self.answers).get(profile)


def benchmark_of(sample: Sample) -> Benchmark | None:
    """The benchmark whose importer made a sample (its ``meta`` has that reading's fields)."""
    grammar = grammar_of(sample.meta)
    if grammar is None or isinstance(sample.meta.get("trace"), dict):
        return None
    if all(key in sample.meta for key in _NEEDS[grammar]):
        return grammar
    return None


def read_labels(samples: Iterable[Sample], *, profile: str | None = None) -> Iterator[LabelReading]:
    """The engine's reading of each sample's gold, one per sample, in order.

    Consecutive samples of one benchmark are read together, and the questions of one story are
    answered in one walk (ToMi's six questions per story), as ``world check`` does.

    Args:
        samples: Normalized samples (imported, the engine's own, or any whose text parses).
        profile: Rule profile to derive under; None: each benchmark's own (``tomi``, ...), a
            trace's own, else ``default``.

    Raises:
        ConfigError: Unknown profile.
    """
    if profile is not None:
        get_profile(profile)
    for benchmark, group in groupby(samples, key=benchmark_of):
        batch = list(group)
        if benchmark is None:
            yield from (_read_text(sample, profile) for sample in batch)
        else:
            yield from _read_benchmark(benchmark, batch, profile)


def _read_benchmark(
    benchmark: Benchmark, batch: list[Sample], profile: str | None
) -> Iterator[LabelReading]:
    reading = _READINGS[benchmark]
    own = DEFAULT_PROFILES[benchmark]
    rules = get_profile(profile or own)
    try:
        items = list(reading.items(batch))
    except DataError:
        # A field the reading needs is malformed: read each sample from its text instead.
        yield from (_read_text(sample, profile) for sample in batch)
        return
    # The questions of one story are answered in one walk, wherever they stand in the input.
    by_story: dict[int, dict[int, CheckItem]] = {}
    for position, item in enumerate(items):
        if isinstance(item, CheckItem):  # one parse per story text (``with_stories``)
            by_story.setdefault(id(item.story), {})[position] = item
    derived: dict[int, tuple[Answer, Answer]] = {}
    others: dict[int, dict[str, Answer]] = {}
    for group in by_story.values():
        parsed = list(group.values())
        specs = [item.spec for item in parsed]
        both = Answerer(parsed[0].story, rules, "tracker").answer_both(specs)
        derived.update(zip(group, zip(*both, strict=True), strict=True))
        walks = _other_answers(parsed[0].story, specs, rules.name)
        for index, position in enumerate(group):
            others[position] = {name: answers[index] for name, answers in walks.items()}
    reference = _reference(rules.name, own)
    for position, (sample, item) in enumerate(zip(batch, items, strict=True)):
        if isinstance(item, Unparsed):
            where = f"line {item.line}: " if item.line is not None else "question: "
            yield LabelReading(
                sample.id, "unreadable", rules.name, benchmark, None, where + item.reason
            )
            continue
        tracker, graph = derived[position]
        if tracker != graph:
            detail = _disagreement(tracker, graph)
            yield LabelReading(sample.id, "unreadable", rules.name, benchmark, None, detail)
            continue
        answers = {rules.name: tracker, **others[position]}
        context = _Context(
            rules.name,
            reference,
            answer_text(item.gold),
            partial(reading.cause, item, tracker, rules),
        )
        yield _judged(
            sample.id,
            benchmark,
            answers,
            partial(_same, item),
            context,
            explains_errors=benchmark in _EXPLAINS_ERRORS,
        )


def _reference(profile: str, own: str) -> tuple[str, ...]:
    """The profiles a verified label must satisfy: the answer profile, ``default``, the own."""
    return tuple(sorted({profile, "default", own}))


def _other_answers(story: Story, specs: list[QuestionSpec], used: str) -> dict[str, list[Answer]]:
    """Every other profile's answers to the specs, one tracker walk each (failed walks left out)."""
    found: dict[str, list[Answer]] = {}
    for name in sorted(PROFILES):
        if name == used:
            continue
        try:
            found[name] = Answerer(story, name, "tracker").answer_all(specs)
        except _REPLAY_ERRORS:
            continue
    return found


@dataclass(frozen=True, slots=True)
class _Context:
    """What judging one gold needs besides the answers: profiles, the gold, the cause."""

    profile: str
    reference: tuple[str, ...]
    gold: str
    cause: Callable[[], str]
    """The benchmark's explanation of a gap between the gold and the answer profile's answer."""


def _judged(
    sample_id: str,
    reader: str,
    answers: dict[str, Answer],
    matches: Callable[[Answer], bool],
    context: _Context,
    *,
    explains_errors: bool = False,
) -> LabelReading:
    """The reading of a gold given every profile's answer (see the module doc)."""
    profile = context.profile
    derived = answers[profile]
    supports = tuple(name for name in sorted(answers) if matches(answers[name]))
    found = LabelReading(
        sample_id,
        "verified",
        profile,
        reader,
        derived,
        "",
        supports,
        tuple(sorted(answers.items())),
        context.reference,
    )
    if profile in supports and not found.dependent:
        detail = f"both verifiers derive {answer_text(derived)!r} under {profile}"
        return replace(found, detail=detail)
    if supports:
        cause = _cause(context)
        return replace(found, status="convention", detail=_dependent(found, context.gold, cause))
    cause = _cause(context) if explains_errors else ""
    said = f"gold {context.gold!r}, the engine derives {answer_text(derived)!r} under {profile}"
    detail = f"error: no profile's rules give the gold; {said}"
    if cause and cause != "unexplained":
        detail += f" ({cause})"
    return replace(found, status="contradicted", detail=detail)


def _cause(context: _Context) -> str:
    """The benchmark's explanation, or ``unexplained`` where its reasoning does not apply."""
    try:
        return context.cause()
    except _REPLAY_ERRORS:  # e.g. Hi-ToM's for a question about the world (no chain)
        return "unexplained"


def _dependent(reading: LabelReading, gold: str, cause: str) -> str:
    """Why a gold is convention-dependent: whose rules give it, what the reference derives."""
    named = [name for name in reading.supports if name in reading.reference]
    follows = ", ".join(named or reading.supports)
    derive = ", ".join(
        f"{name} derives {answer_text(reading.answer_under(name))!r}"
        for name in reading.reference
        if any(name == known for known, _ in reading.answers)
    )
    text = f"convention: the gold {gold!r} follows the rules of {follows}; {derive}"
    return f"{text} ({cause})" if cause and cause != "unexplained" else text


def _disagreement(tracker: Answer, graph: Answer) -> str:
    return f"the verifiers disagree: tracker {answer_text(tracker)!r}, graph {answer_text(graph)!r}"


def _norm(text: str) -> str:
    return " ".join(w for w in _NON_WORD.sub(" ", text.lower()).split() if w not in _ARTICLES)


def _read_text(sample: Sample, profile: str | None) -> LabelReading:
    """Read a sample from its trace, or parse its story and question with the grammars."""
    traced = isinstance(sample.meta.get("trace"), dict)
    reader = "trace" if traced else "text"
    spec_of = _spec_of(sample)
    if isinstance(spec_of, str):
        return LabelReading(sample.id, "unreadable", profile or "default", reader, None, spec_of)
    story, spec = spec_of
    own = str(sample.meta["trace"].get("profile", "default")) if traced else "default"
    name = profile or own
    try:
        tracker, graph = (answers[0] for answers in Answerer(story, name).answer_both([spec]))
    except _REPLAY_ERRORS as err:
        return LabelReading(
            sample.id, "unreadable", name, reader, None, f"does not replay: {err!r}"
        )
    if tracker != graph:
        detail = _disagreement(tracker, graph)
        return LabelReading(sample.id, "unreadable", name, reader, None, detail)
    golds = {_norm(text) for text in sample.answer.correct_answers}
    answers = {name: tracker}
    for other, found in _other_answers(story, [spec], name).items():
        answers[other] = found[0]

    def matches(answer: Answer) -> bool:
        return _norm(answer_text(answer)) in golds

    context = _Context(name, _reference(name, own), sample.answer.correct_answers[0], lambda: "")
    return _judged(sample.id, reader, answers, matches, context)


def _spec_of(sample: Sample) -> tuple[Story, QuestionSpec] | str:
    """The story and spec of a sample, or why none could be read (the first grammar's error).

    When no grammar is named by the sample (every one was tried), the reason says so instead of
    naming the first grammar as if the sample were of its benchmark.
    """
    try:
        return sample_spec(sample)
    except DataError as err:
        tried = grammar_of(sample.meta) is None and not isinstance(sample.meta.get("trace"), dict)
        return _reason(err, tried=tried)
    except _REPLAY_ERRORS as err:
        return f"not a story the engine reads: {err}"


_GRAMMAR_PREFIX = re.compile(r"^[\w-]+: (?=cannot parse )")


def _reason(error: DataError, *, tried: bool = False) -> str:
    where = f"line {error.line}: " if error.line is not None else ""
    field = "question: " if error.field == "question" else ""
    reason = error.reason
    if tried:
        reason = "no grammar reads it: " + _GRAMMAR_PREFIX.sub("", reason)
    return f"{field or where}{reason}"
