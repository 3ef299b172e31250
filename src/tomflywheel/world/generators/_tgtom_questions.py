"""The 12 tgtom question types for a story, with targeted-vs-random perturbation search.

Each question type draws from its own ``rng_for("tgtom-question", "<seed>:<story>:<type>")``,
so adding or dropping a type never changes another's questions. Counterfactual types first
search for a perturbation that changes the answer (``targeted``) and fall back to a random one;
for Q3 and Q7 ``targeted`` marks a full-depth chain (N - 1 agents) against a shorter fallback,
as the benchmark does. ``chain_depth`` is recorded wherever a chain is asked.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tomflywheel._rng import Draws, rng_for
from tomflywheel.world.generators._tgtom_fast import FastModel
from tomflywheel.world.model import (
    Claim,
    DropMove,
    Edit,
    Exit,
    Move,
    Place,
    QuestionSpec,
    ReplaceClaim,
    SetExits,
    SetMotive,
    Story,
)
from tomflywheel.world.physics import Observation
from tomflywheel.world.verifiers import Answerer

TgtomType = Literal["Q0", "Q1", "Q2", "Q3", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q13"]
"""A tgtom question type."""

TGTOM_QUESTION_TYPES: tuple[TgtomType, ...] = (
    "Q0", "Q1", "Q2", "Q3", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q13",
)  # fmt: skip
"""Higher-order Q0-Q3, counterfactual Q5, Q6, Q7, Q10, causal Q8, common knowledge Q9, Q11, Q13."""

MAX_ATTEMPTS = 100
"""Bounded random search for a perturbation that changes the answer."""


@dataclass(frozen=True, slots=True)
class TgtomQuestion:
    """One generated question: its type, spec and bookkeeping."""

    qtype: str
    spec: QuestionSpec
    targeted: bool | None = None
    chain_depth: int | None = None


@dataclass(frozen=True, slots=True)
class _MoveInfo:
    line: int
    mover: str
    occurrence: int
    help: str | None
    hide: str | None
    witnesses: frozenset[str]


class _Context:
    def __init__(self, story: Story, answerer: Answerer) -> None:
        self.story = story
        self.answerer = answerer
        self.fast = FastModel(story)
        self._reached: dict[int, list[str]] = {}
        self.agents = list(story.agents)
        self.obj = next(e.obj for e in story.events if isinstance(e, Place))
        self.depth = len(self.agents) - 1
        self.exits = {e.agent: line for e, line in _pairs(story) if isinstance(e, Exit)}
        self.claims = [(line, e) for e, line in _pairs(story) if isinstance(e, Claim)]
        self.used = sorted(
            {e.container for e in story.events if isinstance(e, Place | Move)}
            | {e.value for _, e in self.claims}
        )
        graph = answerer.graph()
        seen = {step.line: step.actual for step in graph.steps if isinstance(step, Observation)}
        counts: dict[str, int] = {}
        self.moves: list[_MoveInfo] = []
        for event, line in _pairs(story):
            if isinstance(event, Move):
                occurrence = counts.get(event.agent, 0)
                counts[event.agent] = occurrence + 1
                mask = seen.get(line, 0)
                names = frozenset(a for i, a in enumerate(self.agents) if mask >> i & 1)
                self.moves.append(
                    _MoveInfo(line, event.agent, occurrence, event.help, event.hide, names)
                )

    def belief_changes(self, chain: tuple[str, ...], edit: Edit) -> bool:
        """Whether the edit changes the chain's belief (fast model first, engine to confirm)."""
        if self.fast.belief(chain, edit) == self.fast.belief(chain):
            return False
        return self.belief(chain, edit) != self.belief(chain)

    def ck_changes(self, group: tuple[str, ...], edit: Edit) -> bool:
        """Whether the edit changes the common-knowledge answer (fast model, then the engine)."""
        if not self.fast.ck_changes(group, edit):
            return False
        return self.ck(group, edit) != self.ck(group)

    def reached(self, line: int) -> list[str]:
        """The agents the claim of a line reaches in the fast model (heard and trust it)."""
        if line not in self._reached:
            i = self.fast.claim_at.get(line)
            mask = 0 if i is None else self.fast.base[i]
            self._reached[line] = [a for k, a in enumerate(self.agents) if mask >> k & 1]
        return self._reached[line]

    def belief(self, chain: tuple[str, ...], edit: object = None) -> object:
        return self.answerer.answer(QuestionSpec("belief", self.obj, chain=chain, edit=edit))  # type: ignore[arg-type]

    def ck(self, group: tuple[str, ...], edit: object = None) -> object:
        spec = QuestionSpec("common_knowledge", self.obj, group=group, edit=edit)  # type: ignore[arg-type]
        return self.answerer.answer(spec)


def _pairs(story: Story) -> zip:
    return zip(story.events, story.lines, strict=True)


def _q0(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    return [TgtomQuestion("Q0", QuestionSpec("reality", c.obj))]


def _q1(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    return [TgtomQuestion("Q1", QuestionSpec("belief", c.obj, chain=(a,))) for a in c.agents]


def _q2(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    chain = tuple(rng.sample(c.agents, c.depth))
    return [TgtomQuestion("Q2", QuestionSpec("belief", c.obj, chain=chain), None, len(chain))]


def _intent(c: _Context, rng: Draws, qtype: str) -> list[TgtomQuestion]:
    """Q3 (as told) and Q7 (motive flipped): a chain that witnessed the move, full depth if any."""
    if not c.moves:
        return []
    flip = qtype == "Q7"

    def pool(move: _MoveInfo) -> list[str]:
        if not flip:
            return sorted(move.witnesses - {move.mover})
        present = {a for a in c.agents if c.exits.get(a, 10**9) > move.line}
        return sorted(present - {move.mover, move.help})

    full = [move for move in c.moves if len(pool(move)) >= c.depth]
    if full:
        move = rng.choice(full)
        chain = tuple(rng.sample(pool(move), c.depth))
    else:
        move = max(c.moves, key=lambda m: len(pool(m)))
        if len(pool(move)) < 2:
            return []
        chain = tuple(rng.sample(pool(move), len(pool(move))))
    edit = SetMotive(move.line, move.hide, move.help) if flip else None
    spec = QuestionSpec(
        "intent", c.obj, chain=chain, actor=move.mover, occurrence=move.occurrence, edit=edit
    )
    return [TgtomQuestion(qtype, spec, bool(full), len(chain))]


def _q5(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    if not c.moves:
        return []
    base = c.fast.first_order()
    changed = []
    for move in c.moves:
        after = c.fast.first_order(DropMove(move.line))
        changed += [
            (move, agent)
            for agent, before, now in zip(c.agents, base, after, strict=True)
            if agent != move.mover and now != before
        ]
    while changed:
        move, agent = rng.choice(changed)
        if c.belief_changes((agent,), DropMove(move.line)):
            break
        changed.remove((move, agent))
    if not changed:
        move = rng.choice(c.moves)
        agent = rng.choice([a for a in c.agents if a != move.mover])
    spec = QuestionSpec("belief", c.obj, chain=(agent,), actor=move.mover, edit=DropMove(move.line))
    return [TgtomQuestion("Q5", spec, bool(changed), 1)]


def _claim_search(
    c: _Context,
    rng: Draws,
    pick: Callable[[int], tuple[str, ...]],
    changes: Callable[[tuple[str, ...], Edit], bool],
    *,
    feasible: bool = True,
) -> tuple[int, Claim, str, tuple[str, ...], bool] | None:
    viable = [(line, claim) for line, claim in c.claims if any(x != claim.value for x in c.used)]
    if not viable:
        return None
    alts = {claim.value: [x for x in c.used if x != claim.value] for _, claim in viable}
    for _ in range(MAX_ATTEMPTS if feasible else 0):
        line, claim = rng.choice(viable)
        alt = rng.choice(alts[claim.value])
        who = pick(line)
        if who and changes(who, ReplaceClaim(line, alt)):
            return line, claim, alt, who, True
    line, claim = rng.choice(viable)
    alt = rng.choice(alts[claim.value])
    return line, claim, alt, tuple(rng.sample(c.agents, c.depth)), False


def _q6(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    def pick(line: int) -> tuple[str, ...]:
        # Only a chain of agents that all heard and trust the claim can change with it.
        reached = c.reached(line)
        return tuple(rng.sample(reached, c.depth)) if len(reached) >= c.depth else ()

    feasible = any(len(c.reached(line)) >= c.depth for line, _ in c.claims)
    found = _claim_search(c, rng, pick, c.belief_changes, feasible=feasible)
    if found is None:
        return []
    line, claim, alt, chain, targeted = found
    spec = QuestionSpec(
        "belief", c.obj, chain=chain, actor=claim.speaker, edit=ReplaceClaim(line, alt)
    )
    return [TgtomQuestion("Q6", spec, targeted, len(chain))]


def _q13(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    def group(line: int) -> tuple[str, ...]:
        return tuple(rng.sample(c.agents, rng.randint(3, min(4, len(c.agents)))))

    def changes(members: tuple[str, ...], edit: Edit) -> bool:
        assert isinstance(edit, ReplaceClaim)
        return c.fast.claim_can_matter(members, edit.line) and c.ck_changes(members, edit)

    feasible = any(
        any(c.fast.last_of.get(m) == i for m in range(len(c.agents)))
        or bin(c.fast.base[i]).count("1") >= 3
        for i, record in enumerate(c.fast.records)
        if record.kind == "claim"
    )
    found = _claim_search(c, rng, group, changes, feasible=feasible)
    if found is None:
        return []
    line, claim, alt, members, targeted = found
    if not targeted:
        members = members[: rng.randint(3, min(4, len(c.agents)))]
    spec = QuestionSpec(
        "common_knowledge", c.obj, group=members, actor=claim.speaker, edit=ReplaceClaim(line, alt)
    )
    return [TgtomQuestion("Q13", spec, targeted, len(members))]


def _q8(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    agent = rng.choice(c.agents)
    return [TgtomQuestion("Q8", QuestionSpec("cause", c.obj, chain=(agent,)), None, 1)]


def _q9(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    members = tuple(rng.sample(c.agents, rng.randint(3, min(5, len(c.agents)))))
    spec = QuestionSpec("common_knowledge", c.obj, group=members)
    return [TgtomQuestion("Q9", spec, None, len(members))]


def _q10(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    """Swap two exits; ask a chain of all agents but one (order does not change the answer).

    Every (pair, left-out agent) is scored by the fast model in one pass per pair; the question
    is drawn from those the engine confirms change the answer.
    """
    exited = [a for a in c.agents if a in c.exits]
    if len(exited) < 2:
        return []
    base = c.fast.all_but_one()
    changed = []
    for a, b in itertools.combinations(exited, 2):
        after = c.fast.all_but_one_swapped(a, b)
        left_out = [c.agents[k] for k, value in enumerate(after) if value != base[k]]
        if left_out:
            edit = SetExits(((a, c.exits[b]), (b, c.exits[a])))
            changed += [(edit, out) for out in left_out]
    while changed:
        edit, out = rng.choice(changed)
        chain = tuple(rng.sample([a for a in c.agents if a != out], c.depth))
        if c.belief(chain, edit) != c.belief(chain):
            spec = QuestionSpec("belief", c.obj, chain=chain, edit=edit)
            return [TgtomQuestion("Q10", spec, True, len(chain))]
        changed.remove((edit, out))
    a, b = rng.sample(exited, 2)
    edit = SetExits(((a, c.exits[b]), (b, c.exits[a])))
    chain = tuple(rng.sample(c.agents, c.depth))
    return [
        TgtomQuestion(
            "Q10", QuestionSpec("belief", c.obj, chain=chain, edit=edit), False, len(chain)
        )
    ]


def _q11(c: _Context, rng: Draws) -> list[TgtomQuestion]:
    """Move one agent's exit; ask whether a set without that agent shares common knowledge.

    Moving the exit of an agent outside the set can only change what the set believes through
    the trust of that agent's claims, so the search tries speakers first.
    """
    exited = [a for a in c.agents if a in c.exits]
    last = c.story.lines[-1]
    if not exited or last <= 3:
        return []
    speakers = sorted({claim.speaker for _, claim in c.claims} & set(exited))

    lines: dict[str, list[int]] = {}  # agent -> the lines its exit may move to
    others: dict[str, list[str]] = {}  # agent -> everyone else

    def draw(pool: list[str]) -> tuple[SetExits, tuple[str, ...]]:
        agent = rng.choice(pool)
        if agent not in lines:
            lines[agent] = [n for n in range(3, last) if n != c.exits[agent]] or [3]
            others[agent] = [a for a in c.agents if a != agent]
        line = rng.choice(lines[agent])
        rest = others[agent]
        members = tuple(rng.sample(rest, rng.randint(3, min(4, len(rest)))))
        return SetExits(((agent, line),)), members

    for _ in range(MAX_ATTEMPTS if speakers else 0):
        edit, members = draw(speakers)
        if c.ck_changes(members, edit):
            spec = QuestionSpec("common_knowledge", c.obj, group=members, edit=edit)
            return [TgtomQuestion("Q11", spec, True, len(members))]
    edit, members = draw(exited)
    spec = QuestionSpec("common_knowledge", c.obj, group=members, edit=edit)
    return [TgtomQuestion("Q11", spec, False, len(members))]


_BUILDERS: dict[str, Callable[[_Context, Draws], list[TgtomQuestion]]] = {
    "Q0": _q0,
    "Q1": _q1,
    "Q2": _q2,
    "Q3": lambda c, rng: _intent(c, rng, "Q3"),
    "Q5": _q5,
    "Q6": _q6,
    "Q7": lambda c, rng: _intent(c, rng, "Q7"),
    "Q8": _q8,
    "Q9": _q9,
    "Q10": _q10,
    "Q11": _q11,
    "Q13": _q13,
}


def tgtom_questions(
    story: Story,
    *,
    seed: int,
    index: int,
    types: tuple[str, ...] = TGTOM_QUESTION_TYPES,
    answerer: Answerer | None = None,
) -> list[TgtomQuestion]:
    """The questions of the given types for a tgtom-style story (qtype set on each spec).

    Raises:
        KeyError: Unknown question type.
    """
    context = _Context(story, answerer or Answerer(story, "default", "graph"))
    out: list[TgtomQuestion] = []
    for qtype in types:
        rng = Draws(rng_for("tgtom-question", f"{seed}:{index}:{qtype}"))
        for item in _BUILDERS[qtype](context, rng):
            spec = item.spec
            labelled = QuestionSpec(
                spec.kind,
                spec.subject,
                spec.attribute,
                spec.chain,
                spec.group,
                spec.actor,
                spec.occurrence,
                spec.edit,
                qtype,
            )
            out.append(TgtomQuestion(qtype, labelled, item.targeted, item.chain_depth))
    return out
