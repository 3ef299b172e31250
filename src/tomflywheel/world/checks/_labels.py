"""Each normalized sample's label as the engine reads it: verified, contradicted (why), unreadable.

The benchmark checks answer a whole file and report agreement; a curator needs the verdict on
every sample. Imported ToMi, Hi-ToM and tgtom samples are read as ``world check`` reads them
(their importers' ``meta`` fields); any other sample is read from its trace, or its story and
question texts are parsed. A contradicted gold is explained: when another rule profile derives
it, the gold follows that profile's convention (ToMi's second-order labels under ``default``);
when none does, it is an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
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
from tomflywheel.world.physics import PROFILES, Profile, get_profile
from tomflywheel.world.samples import grammar_of, sample_spec
from tomflywheel.world.verifiers import Answerer

LabelStatus = Literal["verified", "contradicted", "unreadable"]
"""What the engine says about a gold: it derives it, derives another answer, or cannot read."""

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
    """Verified: what both verifiers derive; contradicted: the explanation; unreadable: why."""
    convention: str | None = None
    """Contradicted: a profile whose rules give the gold (the label follows its convention);
    None: no profile does, the gold is an error."""

    @property
    def answer_text(self) -> str:
        """The derived answer as one canonical line (``green_bucket``, ``help: X; hide: none``)."""
        return answer_text(self.answer)


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
    rules = get_profile(profile or DEFAULT_PROFILES[benchmark])
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
    for group in by_story.values():
        parsed = list(group.values())
        both = Answerer(parsed[0].story, rules, "tracker").answer_both(
            [item.spec for item in parsed]
        )
        derived.update(zip(group, zip(*both, strict=True), strict=True))
    for position, (sample, item) in enumerate(zip(batch, items, strict=True)):
        if isinstance(item, Unparsed):
            where = f"line {item.line}: " if item.line is not None else "question: "
            yield LabelReading(
                sample.id, "unreadable", rules.name, benchmark, None, where + item.reason
            )
            continue
        tracker, graph = derived[position]
        yield _judge_item(sample.id, benchmark, item, tracker, graph, rules)


def _judge_item(
    sample_id: str,
    benchmark: Benchmark,
    item: CheckItem,
    tracker: Answer,
    graph: Answer,
    rules: Profile,
) -> LabelReading:
    if tracker != graph:
        detail = _disagreement(tracker, graph)
        return LabelReading(sample_id, "unreadable", rules.name, benchmark, None, detail)
    if _same(item, tracker):
        detail = f"both verifiers derive {answer_text(tracker)!r} under {rules.name}"
        return LabelReading(sample_id, "verified", rules.name, benchmark, tracker, detail)
    convention = _convention(item.story, item.spec, rules.name, lambda answer: _same(item, answer))
    cause = _READINGS[benchmark].cause(item, tracker, rules)
    explained = convention is not None or benchmark in _EXPLAINS_ERRORS
    detail = _contradiction(
        answer_text(item.gold), tracker, rules.name, convention, cause if explained else ""
    )
    return LabelReading(
        sample_id, "contradicted", rules.name, benchmark, tracker, detail, convention
    )


def _convention(
    story: Story, spec: QuestionSpec, used: str, matches: Callable[[Answer], bool]
) -> str | None:
    """The first other profile (by name) whose answer matches the gold."""
    for name in sorted(PROFILES):
        if name == used:
            continue
        try:
            answer = Answerer(story, name, "tracker").answer(spec)
        except _REPLAY_ERRORS:
            continue
        if matches(answer):
            return name
    return None


def _contradiction(
    gold: str, derived: Answer, profile: str, convention: str | None, cause: str
) -> str:
    said = f"gold {gold!r}, the engine derives {answer_text(derived)!r} under {profile}"
    if convention is not None:
        text = f"convention: the gold follows the {convention} profile's rules; {said}"
    else:
        text = f"error: no profile's rules give the gold; {said}"
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
    name = profile or (str(sample.meta["trace"].get("profile", "default")) if traced else "default")
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

    def matches(answer: Answer) -> bool:
        return _norm(answer_text(answer)) in golds

    if matches(tracker):
        detail = f"both verifiers derive {answer_text(tracker)!r} under {name}"
        return LabelReading(sample.id, "verified", name, reader, tracker, detail)
    convention = _convention(story, spec, name, matches)
    detail = _contradiction(sample.answer.correct_answers[0], tracker, name, convention, "")
    return LabelReading(sample.id, "contradicted", name, reader, tracker, detail, convention)


def _spec_of(sample: Sample) -> tuple[Story, QuestionSpec] | str:
    """The story and spec of a sample, or why none could be read (the first grammar's error)."""
    try:
        return sample_spec(sample)
    except DataError as err:
        return _reason(err)
    except _REPLAY_ERRORS as err:
        return f"not a story the engine reads: {err}"


def _reason(error: DataError) -> str:
    where = f"line {error.line}: " if error.line is not None else ""
    field = "question: " if error.field == "question" else ""
    return f"{field or where}{error.reason}"
