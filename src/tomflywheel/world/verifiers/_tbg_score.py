"""The TBG scorer: a predicted temporal belief graph against the true one.

Metrics per story (as the temporal-belief-graph benchmark defines them), averaged over stories
with None values skipped:

- FNA, final node accuracy: share of agents whose predicted final belief equals the gold one.
- TNA, time-respecting node accuracy: share of (agent, step) cells, steps 1..T, that match; the
  predicted trajectory is indexed like the gold one (entry 0 ignored); missing steps, or a
  missing trajectory, count as wrong.
- Edge precision / recall / F1, temporal (the whole ``(source, target, line, relation)`` must
  match) and static (line ignored); set semantics; both empty: 1; empty prediction: 0; empty
  gold with a non-empty prediction: P 0, R 1, F1 0.
- NSD, normalized structural distance: ``|symmetric difference| / |union|`` of the temporal edge
  sets (0 is best); the exact reconstruction rate is the share of stories with NSD 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tomflywheel.world.model import LOCATION, Place, Story
from tomflywheel.world.physics import Profile
from tomflywheel.world.verifiers._tbg import BeliefEdge, build_graph

Edge = tuple[str, str, int, str]


@dataclass(frozen=True, slots=True)
class GraphPrediction:
    """A temporal belief graph in the benchmark's prediction format."""

    final_beliefs: dict[str, str | None]
    edges: frozenset[Edge]
    trajectory: tuple[dict[str, str | None], ...] | None = None

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> GraphPrediction:
        """Read a prediction row.

        The row has ``final_beliefs``, ``edges`` (``source_agent``, ``target_agent``, ``line``,
        ``relation_type``) and optionally ``belief_trajectory``.
        """
        edges = frozenset(
            (
                str(edge.get("source_agent")),
                str(edge.get("target_agent")),
                int(edge.get("line", -1)),
                str(edge.get("relation_type")),
            )
            for edge in row.get("edges") or ()
        )
        trajectory = row.get("belief_trajectory")
        return cls(
            dict(row.get("final_beliefs") or {}),
            edges,
            tuple(dict(step) for step in trajectory) if trajectory is not None else None,
        )


def gold_graph(
    story: Story, profile: str | Profile = "tgtom", obj: str | None = None
) -> GraphPrediction:
    """The true graph of a story (about its first placed object unless ``obj`` is given)."""
    graph = build_graph(story, profile)
    if obj is None:
        obj = next(event.obj for event in story.events if isinstance(event, Place))
    trajectory = tuple(graph.trajectory((obj, LOCATION)))
    edges = frozenset(_edge(edge) for edge in graph.edges)
    return GraphPrediction(dict(trajectory[-1]), edges, trajectory)


def _edge(edge: BeliefEdge) -> Edge:
    return (edge.source, edge.target, edge.line, edge.relation)


@dataclass(frozen=True, slots=True)
class TBGScore:
    """Scores of one story (or averages over stories; None where nothing was scored)."""

    fna: float | None
    tna: float | None
    edge_precision_temporal: float | None
    edge_recall_temporal: float | None
    edge_f1_temporal: float | None
    edge_precision_static: float | None
    edge_recall_static: float | None
    edge_f1_static: float | None
    nsd: float | None
    exact: float | None
    """1.0 when NSD is 0 (averaged: the exact reconstruction rate)."""


def _prf(pred: set, gold: set) -> tuple[float, float, float]:
    if not pred and not gold:
        return 1.0, 1.0, 1.0
    if not pred:
        return 0.0, 0.0, 0.0
    if not gold:
        return 0.0, 1.0, 0.0
    hit = len(pred & gold)
    precision, recall = hit / len(pred), hit / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if hit else 0.0
    return precision, recall, f1


def score_tbg(pred: GraphPrediction, gold: GraphPrediction) -> TBGScore:
    """Score one predicted graph against the gold graph of the same story."""
    agents = sorted(gold.final_beliefs)
    fna = (
        sum(pred.final_beliefs.get(a) == gold.final_beliefs[a] for a in agents) / len(agents)
        if agents
        else None
    )
    tna = None
    if gold.trajectory is not None and len(gold.trajectory) > 1:
        cells = hits = 0
        for step in range(1, len(gold.trajectory)):
            for agent in agents:
                cells += 1
                if pred.trajectory is not None and step < len(pred.trajectory):
                    hits += pred.trajectory[step].get(agent) == gold.trajectory[step].get(agent)
        tna = hits / cells if cells else None
    pt, rt, ft = _prf(set(pred.edges), set(gold.edges))
    static_pred = {(s, t, r) for s, t, _, r in pred.edges}
    static_gold = {(s, t, r) for s, t, _, r in gold.edges}
    ps, rs, fs = _prf(static_pred, static_gold)
    union = pred.edges | gold.edges
    nsd = len(pred.edges ^ gold.edges) / len(union) if union else 0.0
    return TBGScore(fna, tna, pt, rt, ft, ps, rs, fs, nsd, 1.0 if nsd == 0 else 0.0)


def average_scores(scores: Iterable[TBGScore]) -> TBGScore:
    """Average each metric over stories, skipping None values."""
    items = list(scores)
    names = TBGScore.__dataclass_fields__
    means: dict[str, float | None] = {}
    for name in names:
        values = [getattr(score, name) for score in items if getattr(score, name) is not None]
        means[name] = sum(values) / len(values) if values else None
    return TBGScore(**means)
