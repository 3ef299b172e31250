"""What the audit knows about one sample: its question family, closed answer set and world facts.

A shortcut is judged within a *question family*: the questions of one kind whose answers a mind
may or may not change (ToMi's ``first_order`` holds both its ``_tom`` and ``_no_tom`` items;
BigToM's forward-belief condition both its true- and false-belief stories). Within a family a
balanced set makes "the object is where it really is" right only half the time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tomflywheel.asking import normalize, shuffle_options
from tomflywheel.audit._mentions import mention_positions
from tomflywheel.errors import DataError
from tomflywheel.schema import QAKind, Sample
from tomflywheel.world import Answerer, QuestionSpec, answer_text, sample_spec

_MIND_SUFFIX = re.compile(r"(_\d+)?_(no_)?tom$")
_WORLD_KINDS = ("reality", "memory")


def question_family(sample: Sample) -> str:
    """The family a sample's question belongs to, without the true/false-belief split.

    ``meta.question_family`` when the importer names it; else ``meta.question_type`` without a
    ToMi-style ``[_<agent>]_tom``/``_no_tom`` suffix (``first_order_1_tom`` -> ``first_order``,
    as ToMi's own ``question_family``); else BigToM's direction and variable; else
    ``order_<k>``; else ``all``.
    """
    meta = sample.meta
    if meta.get("question_family"):
        return str(meta["question_family"])
    if meta.get("question_type"):
        return _MIND_SUFFIX.sub("", str(meta["question_type"]))
    if meta.get("direction") and meta.get("variable"):
        return f"{meta['direction']}_{meta['variable']}"
    if meta.get("order") is not None:
        return f"order_{meta['order']}"
    return "all"


@dataclass(frozen=True, slots=True)
class AuditItem:
    """One sample as the heuristics see it."""

    sample: Sample
    family: str
    """``<dataset> · <question family>``."""
    candidates: tuple[str, ...]
    """The closed answer set: the options, else ``meta.candidates``, else (an open location
    question the engine reads) the story's containers; empty when unknown."""
    shown: tuple[str, ...] | None
    """Choice QA: the options in the order evaluation shows them (its seeded shuffle)."""
    golds: frozenset[str]
    """The correct answers, normalized."""
    reality: str | None
    """The asked fact's true final value (the object's real location), when the engine reads
    the story."""
    first_value: str | None
    """The asked fact's first value (where the object was at the beginning)."""
    asks: str | None
    """What the question asks, by the engine: ``reality``, ``memory``, ``belief``, ...;
    ``None`` when the engine cannot read the story."""
    mentions: tuple[tuple[int, ...], ...] = ()
    """For each candidate, the word positions where the story names it."""
    engine_answer: str | None = None
    """The answer the engine derives under its principled ``default`` profile."""

    @property
    def asks_mind(self) -> bool:
        """Whether answering needs someone's mind (not only the world); unknown counts as yes."""
        return self.asks not in _WORLD_KINDS

    @property
    def false_belief(self) -> bool | None:
        """A mind question whose answer is not the real value (``None``: cannot tell)."""
        if self.reality is None or not self.asks_mind or self.asks is None:
            return None
        return normalize(self.reality) not in self.golds

    @property
    def convention_free(self) -> bool | None:
        """The engine's principled answer is the benchmark's gold (``None``: cannot tell).

        Items where they differ depend on the benchmark's labelling convention (ToMi's
        generator lets a third agent's entry update beliefs); a lift on principled data is
        measured on convention-free items.
        """
        return None if self.engine_answer is None else self.is_gold(self.engine_answer)

    def is_gold(self, answer: str | None) -> bool:
        """Whether an answer (text) is a correct one."""
        return answer is not None and normalize(answer) in self.golds


def _candidates(sample: Sample) -> tuple[str, ...]:
    if sample.kind is not QAKind.OPEN:
        return tuple(sample.options)
    listed = sample.meta.get("candidates")
    if isinstance(listed, list) and len(listed) >= 2:
        return tuple(str(c) for c in listed)
    return ()


@dataclass(frozen=True, slots=True)
class _Facts:
    reality: str | None = None
    first_value: str | None = None
    asks: str | None = None
    engine_answer: str | None = None
    containers: tuple[str, ...] = ()
    """A location question's closed answer set: the story's containers."""


def _world_facts(sample: Sample) -> _Facts:
    """What the engine reads in the sample (nothing when it cannot read the story)."""
    try:
        story, spec = sample_spec(sample)
    except (DataError, ValueError, KeyError):
        return _Facts()
    target = spec.edit.apply(story) if spec.edit is not None else story
    answerer = Answerer(target, "default", "graph")
    derived = answerer.answer(spec)
    engine_answer = answer_text(derived) if derived is not None else None
    if spec.attribute not in ("location", "contents") or spec.kind not in (
        "reality",
        "memory",
        "belief",
    ):
        return _Facts(asks=spec.kind, engine_answer=engine_answer)
    facts = [
        answerer.answer(QuestionSpec(kind, spec.subject, spec.attribute)) for kind in _WORLD_KINDS
    ]
    reality, first = (value if isinstance(value, str) else None for value in facts)
    containers = story.containers() if spec.attribute == "location" else ()
    return _Facts(reality, first, spec.kind, engine_answer, containers)


def _engine_candidates(containers: tuple[str, ...], golds: frozenset[str]) -> tuple[str, ...]:
    """The story's containers as an open location question's answer set.

    As ToMi's importer lists them: only when they hold the gold and are at least two.
    """
    if len(containers) < 2 or not golds & {normalize(c) for c in containers}:
        return ()
    return containers


def audit_item(sample: Sample) -> AuditItem:
    """The audit's view of one sample."""
    facts = _world_facts(sample)
    shown = tuple(shuffle_options(sample).options) if sample.kind is not QAKind.OPEN else None
    golds = frozenset(normalize(g) for g in sample.answer.correct_answers)
    candidates = _candidates(sample) or _engine_candidates(facts.containers, golds)
    return AuditItem(
        sample=sample,
        family=f"{sample.meta.get('dataset') or 'custom'} · {question_family(sample)}",
        candidates=candidates,
        shown=shown,
        golds=golds,
        reality=facts.reality,
        first_value=facts.first_value,
        asks=facts.asks,
        engine_answer=facts.engine_answer,
        mentions=mention_positions(sample.story, candidates),
    )


def audit_items(samples: Iterable[Sample]) -> list[AuditItem]:
    """The audit's view of every sample, in order."""
    return [audit_item(sample) for sample in samples]
