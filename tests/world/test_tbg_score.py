import pytest

from tomflywheel.datasets import load_benchmark
from tomflywheel.world.checks import tgtom_items
from tomflywheel.world.verifiers import GraphPrediction, average_scores, gold_graph, score_tbg


@pytest.fixture(scope="module")
def gold(benchmarks):
    story = next(tgtom_items(load_benchmark("tgtom", benchmarks / "tgtom"))).story
    return gold_graph(story)


def test_the_gold_graph_of_tgtom_story_0_matches_its_comm_log(gold):
    trusted = sorted((s, t, line) for s, t, line, r in gold.edges if r == "trusted")
    # higher_order_beliefs_v10.jsonl: Harper's claim (line 22) updated Scarlett, Ava, Olivia and
    # Logan; Olivia's (line 24) only Scarlett.
    assert trusted == [
        ("Harper", "Ava", 22),
        ("Harper", "Logan", 22),
        ("Harper", "Olivia", 22),
        ("Harper", "Scarlett", 22),
        ("Olivia", "Scarlett", 24),
    ]
    assert gold.final_beliefs["Scarlett"] == "green_drawer"


def test_a_perfect_prediction_scores_one_and_distance_zero(gold):
    score = score_tbg(gold, gold)
    assert (score.fna, score.tna, score.edge_f1_temporal, score.nsd, score.exact) == (1, 1, 1, 0, 1)


def test_a_wrong_line_hurts_temporal_but_not_static_edge_scores(gold):
    shifted = {
        (s, t, line + 1, r) if r == "deceptive" else (s, t, line, r) for s, t, line, r in gold.edges
    }
    pred = GraphPrediction(gold.final_beliefs, frozenset(shifted), None)
    score = score_tbg(pred, gold)
    deceptive = sum(1 for *_, r in gold.edges if r == "deceptive")
    kept = len(gold.edges) - deceptive
    assert score.edge_precision_temporal == pytest.approx(kept / len(gold.edges))
    assert score.edge_f1_static == 1.0
    assert score.nsd == pytest.approx(2 * deceptive / (len(gold.edges) + deceptive))
    assert score.tna == 0.0  # no trajectory: every cell counts as wrong


def test_empty_cases_follow_the_benchmark_conventions(gold):
    empty = GraphPrediction({}, frozenset(), ())
    score = score_tbg(empty, gold)
    assert (score.fna, score.edge_f1_temporal, score.exact) == (0.0, 0.0, 0.0)
    none = GraphPrediction({}, frozenset(), None)
    assert score_tbg(none, GraphPrediction({}, frozenset(), None)).edge_f1_temporal == 1.0


def test_prediction_rows_are_read_from_the_benchmark_format(gold):
    row = {
        "final_beliefs": dict(gold.final_beliefs),
        "edges": [
            {"source_agent": s, "target_agent": t, "line": line, "relation_type": r}
            for s, t, line, r in gold.edges
        ],
        "belief_trajectory": list(gold.trajectory),
    }
    pred = GraphPrediction.from_dict(row)
    average = average_scores(
        [score_tbg(pred, gold), score_tbg(GraphPrediction({}, frozenset()), gold)]
    )
    assert average.exact == 0.5
    assert average.fna == 0.5
