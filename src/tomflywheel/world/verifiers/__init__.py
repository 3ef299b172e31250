"""The two verifiers (forward tracker, temporal belief graph) and the answer layer over both.

Also the scorer of a predicted temporal belief graph against the true one.

May import: ``model``, ``physics``.
"""

from tomflywheel.world.verifiers._answer import (
    Answerer,
    Verifier,
    answer_many,
    derive_answer,
    describe_event,
)
from tomflywheel.world.verifiers._tbg import BeliefEdge, TemporalBeliefGraph, build_graph
from tomflywheel.world.verifiers._tbg_score import (
    GraphPrediction,
    TBGScore,
    average_scores,
    gold_graph,
    score_tbg,
)
from tomflywheel.world.verifiers._tracker import TrackerResult, track

__all__ = [
    "Answerer",
    "BeliefEdge",
    "GraphPrediction",
    "TBGScore",
    "TemporalBeliefGraph",
    "TrackerResult",
    "Verifier",
    "answer_many",
    "average_scores",
    "build_graph",
    "derive_answer",
    "describe_event",
    "gold_graph",
    "score_tbg",
    "track",
]
