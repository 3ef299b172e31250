"""Answers to question specs from either verifier, many questions per story walk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from tomflywheel.world.model import (
    INTENT,
    LOCATION,
    Answer,
    Claim,
    Edit,
    Enter,
    Event,
    Fact,
    Look,
    Move,
    Place,
    QuestionSpec,
    Read,
    SetState,
    Story,
    intent_answer,
    intent_subject,
)
from tomflywheel.world.physics import (
    Percept,
    Profile,
    WorldState,
    edit_percepts,
    get_profile,
    percepts,
)
from tomflywheel.world.verifiers._tbg import TemporalBeliefGraph, build_graph
from tomflywheel.world.verifiers._tracker import track

Verifier = Literal["tracker", "graph"]
"""The two verifiers: the forward tracker and the temporal belief graph."""


def as_story(events: Story | Sequence[Event]) -> Story:
    """A story from a story or a plain list of events (lines numbered 1, 2, ...)."""
    return events if isinstance(events, Story) else Story(tuple(events))


def describe_event(event: Event) -> str:
    """An event restated plainly (moves without motive, as tgtom's Q8 answers do)."""
    if isinstance(event, Move):
        return f"{event.agent} moved the {event.obj} to the {event.container}"
    if isinstance(event, Place):
        return f"The {event.obj} is in the {event.container}"
    if isinstance(event, Claim):
        where = (
            f"is in the {event.value}" if event.attribute == LOCATION else f"holds {event.value}"
        )
        if event.listener is None:
            return f"{event.speaker} publicly claimed the {event.subject} {where}"
        return f"{event.speaker} privately told {event.listener} the {event.subject} {where}"
    if isinstance(event, SetState):
        return f"The {event.subject} is full of {event.value}"
    if isinstance(event, Read):
        return f"{event.agent} read the label of the {event.subject}, which says {event.value}"
    if isinstance(event, Look):
        return f"{event.agent} looked inside the {event.subject}"
    if isinstance(event, Enter):
        return f"{', '.join(event.agents)} entered the {event.room}"
    return event.type


def event_kind(event: Event) -> str:
    """Tgtom's kind of a causal event: ``move``, ``place``, ``comm`` or the event type."""
    if isinstance(event, Claim):
        return "comm"
    return event.type


def _chains(spec: QuestionSpec) -> list[tuple[str, ...]]:
    if spec.kind in ("belief", "intent"):
        return [spec.chain]
    if spec.kind == "cause":
        return [spec.chain[:1]]
    if spec.kind == "common_knowledge":
        return [*((agent,) for agent in spec.group), spec.group]
    return []


class _Source(Protocol):
    world: WorldState

    def belief(self, chain: tuple[str, ...], fact: Fact) -> str | None: ...

    def cause_step(self, chain: tuple[str, ...], fact: Fact) -> int | None: ...


Found = tuple[list[Percept], WorldState]


class _TrackerSource:
    def __init__(
        self, story: Story, specs: Sequence[QuestionSpec], rules: Profile, found: Found | None
    ) -> None:
        chains = [chain for spec in specs for chain in _chains(spec)]
        self.result = track(story, chains, rules, found=found)
        self.world = self.result.world
        self.belief = self.result.belief
        self.cause_step = self.result.updated


class _GraphSource:
    def __init__(
        self, story: Story, specs: Sequence[QuestionSpec], rules: Profile, found: Found | None
    ) -> None:
        self.graph = build_graph(story, rules, found=found)
        self.world = self.graph.world
        self.belief = self.graph.belief

    def cause_step(self, chain: tuple[str, ...], fact: Fact) -> int | None:
        step = self.graph.anchor(chain, fact)
        return None if step is None else self.graph.steps[step].step


def _answer(story: Story, spec: QuestionSpec, source: _Source) -> Answer:
    fact = spec.fact
    if spec.kind == "memory":
        return source.world.first.get(fact)
    if spec.kind == "reality":
        return source.world.facts.get(fact)
    if spec.kind == "belief":
        return source.belief(spec.chain, fact)
    if spec.kind == "intent":
        motive = (intent_subject(spec.actor or "", spec.occurrence), INTENT)
        return intent_answer(source.belief(spec.chain, motive))
    if spec.kind == "cause":
        chain = spec.chain[:1]
        step = source.cause_step(chain, fact)
        if step is None:
            return None
        event = story.events[step]
        return {
            "line": story.lines[step],
            "kind": event_kind(event),
            "description": describe_event(event),
            "resulting_belief": source.belief(chain, fact),
        }
    own = {source.belief((agent,), fact) for agent in spec.group}
    shared = source.belief(spec.group, fact)
    if len(own) == 1 and shared is not None and shared in own:
        return {"common_knowledge": True, "shared_location": shared}
    return {"common_knowledge": False, "shared_location": None}


class Answerer:
    """Answers questions about one story, walking each (edited) story once per verifier.

    Args:
        story: The story.
        profile: Rule profile name or object.
        verifier: ``tracker`` (forward tracker) or ``graph`` (temporal belief graph).
    """

    def __init__(
        self, story: Story, profile: str | Profile = "default", verifier: Verifier = "graph"
    ) -> None:
        self.story = story
        self.rules = get_profile(profile)
        self.verifier = verifier
        self._variants: dict[object, tuple[Story, Found]] = {}
        self._graphs: dict[object, _GraphSource] = {}

    def _variant(self, edit: Edit | None) -> tuple[Story, Found]:
        if edit not in self._variants:
            if edit is None:
                self._variants[None] = (self.story, percepts(self.story, self.rules))
            else:
                variant = edit.apply(self.story)
                base = self._variant(None)[1]
                found = edit_percepts(base, self.story, edit, self.rules)
                self._variants[edit] = (variant, found or percepts(variant, self.rules))
        return self._variants[edit]

    def _groups(self, specs: Sequence[QuestionSpec]) -> dict[Edit | None, list[int]]:
        groups: dict[Edit | None, list[int]] = {}
        for position, spec in enumerate(specs):
            groups.setdefault(spec.edit, []).append(position)
        return groups

    def _run(
        self,
        specs: Sequence[QuestionSpec],
        verifier: Verifier,
        groups: dict[Edit | None, list[int]] | None = None,
    ) -> list[Answer]:
        answers: list[Answer] = [None] * len(specs)
        for edit, positions in (groups or self._groups(specs)).items():
            chosen = [specs[p] for p in positions]
            variant, found = self._variant(edit)
            source: _Source
            if verifier == "tracker":
                source = _TrackerSource(variant, chosen, self.rules, found)
            else:
                if edit not in self._graphs:
                    self._graphs[edit] = _GraphSource(variant, chosen, self.rules, found)
                source = self._graphs[edit]
            for position, spec in zip(positions, chosen, strict=True):
                answers[position] = _answer(variant, spec, source)
        return answers

    def answer_all(self, specs: Sequence[QuestionSpec]) -> list[Answer]:
        """Answer every spec with this answerer's verifier (specs sharing an edit share a walk)."""
        return self._run(specs, self.verifier)

    def answer_both(self, specs: Sequence[QuestionSpec]) -> tuple[list[Answer], list[Answer]]:
        """Answer every spec with the forward tracker and with the temporal belief graph.

        Both read the same percepts (who is where, who sees and hears what); each propagates
        beliefs its own way.
        """
        groups = self._groups(specs)
        return self._run(specs, "tracker", groups), self._run(specs, "graph", groups)

    def answer(self, spec: QuestionSpec) -> Answer:
        """Answer one spec."""
        return self._run([spec], self.verifier)[0]

    def graph(self, spec: QuestionSpec | None = None) -> TemporalBeliefGraph:
        """The temporal belief graph of the story, edited as ``spec`` says (cached)."""
        edit = spec.edit if spec is not None else None
        if edit not in self._graphs:
            variant, found = self._variant(edit)
            self._graphs[edit] = _GraphSource(variant, [], self.rules, found)
        return self._graphs[edit].graph


def answer_many(
    events: Story | Sequence[Event],
    specs: Sequence[QuestionSpec],
    profile: str | Profile = "default",
    *,
    verifier: Verifier = "tracker",
) -> list[Answer]:
    """Answer many questions about one story, walking each (edited) story once.

    Args:
        events: The story (or its events).
        specs: The questions; those sharing a counterfactual edit share one walk.
        profile: Rule profile name or object.
        verifier: ``tracker`` (forward tracker) or ``graph`` (temporal belief graph).
    """
    return Answerer(as_story(events), profile, verifier).answer_all(specs)


def derive_answer(
    events: Story | Sequence[Event],
    spec: QuestionSpec,
    profile: str | Profile = "default",
    *,
    verifier: Verifier = "tracker",
) -> Answer:
    """The answer to one question, by one verifier, under a rule profile.

    Args:
        events: The story (or its events).
        spec: The question.
        profile: Rule profile name (``default``, ``tomi``, ``hitom``, ``tgtom``) or object.
        verifier: ``tracker`` (forward tracker, the default) or ``graph``.

    Returns:
        A value (container) for memory, reality and belief questions; ``{help_target,
        hide_target}`` or None for intent; ``{line, kind, description, resulting_belief}`` for
        cause; ``{common_knowledge, shared_location}`` for common knowledge.
    """
    return answer_many(events, [spec], profile, verifier=verifier)[0]
