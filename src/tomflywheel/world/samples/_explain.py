"""What each plausible answer to a question corresponds to: reality, memory, beliefs, distractors.

For a story and a question, every value a model might answer is mapped to the reasons it could
be chosen: the true current value (reality), the first value (memory), each agent's belief at
every order up to the question's (every nested chain of the story's agents up to that depth,
consecutive names distinct, breadth first and capped), values someone claimed, containers
named only in distractor sentences, and every other entity of the story (only when nothing
else explains it). The feedback stage classifies a wrong answer with :func:`classify_answer`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tomflywheel.world.language import answer_text
from tomflywheel.world.model import (
    Claim,
    Enter,
    Exit,
    Move,
    Noise,
    Place,
    QuestionSpec,
    Read,
    SetState,
    Story,
)
from tomflywheel.world.verifiers import Answerer

ReasonKind = Literal["reality", "memory", "belief", "claim", "distractor", "entity"]
"""Why a value is a plausible answer."""

AnswerClass = Literal[
    "correct",
    "reality_bias",
    "stale_memory",
    "order_confusion",
    "claim_confusion",
    "distractor",
    "hallucination",
    "other_entity",
]
"""How a model's answer relates to the story (see :func:`classify_answer`)."""

MAX_CHAINS = 2000
"""Nested chains explored per question (breadth first: all short chains come first)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason a value is a plausible answer."""

    kind: ReasonKind
    text: str
    chain: tuple[str, ...] = ()
    """For beliefs: whose belief ("A thinks B thinks": ``(A, B)``)."""
    line: int | None = None
    """For claims and distractors: the story line."""


def _chains(
    agents: tuple[str, ...], depth: int, must: tuple[str, ...], cap: int
) -> list[tuple[str, ...]]:
    chains: list[tuple[str, ...]] = []
    layer: list[tuple[str, ...]] = [(agent,) for agent in agents]
    for _ in range(depth):
        chains += layer[: max(0, cap - len(chains))]
        if len(chains) >= cap:
            break
        layer = [(*chain, agent) for chain in layer for agent in agents if agent != chain[-1]]
    for size in range(1, len(must) + 1):  # the question's own chain and its parts always
        for start in range(len(must) - size + 1):
            part = must[start : start + size]
            if part not in chains:
                chains.append(part)
    return chains


def _describe(chain: tuple[str, ...]) -> str:
    if len(chain) == 1:
        return f"{chain[0]}'s belief (order 1)"
    return " thinks ".join(chain) + f" believes (order {len(chain)})"


def explain_answers(
    story: Story, spec: QuestionSpec, *, max_chains: int = MAX_CHAINS
) -> dict[str, list[Reason]]:
    """Every plausible answer value with its reasons, under the principled default profile."""
    target = spec.edit.apply(story) if spec.edit is not None else story
    answerer = Answerer(target, "default", "graph")
    fact = spec.fact
    out: dict[str, list[Reason]] = {}

    def add(value: object, reason: Reason, *, only_new: bool = False) -> None:
        if isinstance(value, str) and not (only_new and value in out):
            out.setdefault(value, []).append(reason)

    add(
        answerer.answer(QuestionSpec("reality", spec.subject, spec.attribute)),
        Reason("reality", "true current location (reality)"),
    )
    add(
        answerer.answer(QuestionSpec("memory", spec.subject, spec.attribute)),
        Reason("memory", "first location (memory)"),
    )
    depth = max(1, spec.order if spec.kind in ("belief", "intent") else 1)
    graph = answerer.graph()
    for chain in _chains(target.agents, depth, spec.chain, max_chains):
        add(graph.belief(chain, fact), Reason("belief", _describe(chain), chain))
    _mentions(target, spec, add)
    return out


def _mentions(story: Story, spec: QuestionSpec, add: Callable[..., None]) -> None:
    used: set[str] = set()
    for event in story.events:
        if isinstance(event, Place | Move):
            used.add(event.container)
        elif isinstance(event, SetState | Read):
            used.add(event.value)
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Claim) and (event.subject, event.attribute) == spec.fact:
            who = "publicly" if event.listener is None else f"privately to {event.listener}"
            add(event.value, Reason("claim", f"claimed by {event.speaker} {who}", line=line))
        elif isinstance(event, Noise):
            for name in event.mentions:
                if name not in used:
                    add(
                        name, Reason("distractor", "named only in a distractor sentence", line=line)
                    )
    for kind, names in _entities(story).items():
        for name in names:
            add(name, Reason("entity", f"mentioned in the story ({kind})"), only_new=True)


def _entities(story: Story) -> dict[str, list[str]]:
    found: dict[str, dict[str, None]] = {
        "agent": {},
        "room": {},
        "container": {},
        "object": {},
    }
    for event in story.events:
        if isinstance(event, Enter | Exit):
            found["room"].setdefault(event.room, None)
        if isinstance(event, Place | Move):
            found["container"].setdefault(event.container, None)
            found["object"].setdefault(event.obj, None)
        elif isinstance(event, Claim):
            found["container"].setdefault(event.value, None)
        elif isinstance(event, SetState | Read):
            found["object"].setdefault(event.value, None)
            found["container"].setdefault(event.subject, None)
    for agent in story.agents:
        found["agent"].setdefault(agent, None)
    return {kind: list(names) for kind, names in found.items()}


def answer_explanations(
    story: Story, spec: QuestionSpec, *, max_chains: int = MAX_CHAINS
) -> dict[str, list[str]]:
    """Every plausible answer value with readable reasons (see :func:`explain_answers`)."""
    return {
        value: [reason.text for reason in reasons]
        for value, reasons in explain_answers(story, spec, max_chains=max_chains).items()
    }


def classify_answer(
    story: Story, spec: QuestionSpec, answer: str, gold: str | None = None
) -> AnswerClass:
    """Classify a model's answer to a location question.

    ``correct`` when it equals the gold (default: the engine's answer); else, in order:
    ``reality_bias`` (the true location), ``stale_memory`` (the first location),
    ``order_confusion`` (some agent's belief at another order or of another chain),
    ``claim_confusion`` (a value someone claimed), ``distractor`` (a container named only in a
    distractor), ``other_entity`` (another name from the story), ``hallucination`` (none).
    """
    reasons = explain_answers(story, spec)
    if gold is None:
        gold = answer_text(Answerer(story, "default", "graph").answer(spec))
    answer = answer.strip()
    if gold is not None and answer == gold:
        return "correct"
    kinds = {reason.kind for reason in reasons.get(answer, [])}
    for kind, label in (
        ("reality", "reality_bias"),
        ("memory", "stale_memory"),
        ("belief", "order_confusion"),
        ("claim", "claim_confusion"),
        ("distractor", "distractor"),
        ("entity", "other_entity"),
    ):
        if kind in kinds:
            return label  # type: ignore[return-value]
    return "hallucination"
