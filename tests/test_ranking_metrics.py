"""The ranking metrics on cases small enough to compute by hand."""

from __future__ import annotations

import math

import pytest

from tests.ranking_metrics import evaluate, mrr_at_k, ndcg_at_k, recall_at_k


def test_ndcg_perfect_single_answer_is_one():
    assert ndcg_at_k(["a", "b"], {"a": 2}) == pytest.approx(1.0)


def test_ndcg_answer_at_rank_two():
    # DCG = 2/log2(3); ideal = 2/log2(2) = 2
    assert ndcg_at_k(["x", "a"], {"a": 2}) == pytest.approx((2 / math.log2(3)) / 2)


def test_ndcg_graded_order_matters():
    qrels = {"a": 2, "b": 1}
    ideal = 2 + 1 / math.log2(3)
    assert ndcg_at_k(["a", "b"], qrels) == pytest.approx(1.0)
    assert ndcg_at_k(["b", "a"], qrels) == pytest.approx((1 + 2 / math.log2(3)) / ideal)
    # a judged answer that is missing counts in the ideal ranking
    assert ndcg_at_k(["b"], qrels) == pytest.approx(1 / ideal)


def test_ndcg_cuts_at_k():
    ranking = [f"x{i}" for i in range(10)] + ["a"]
    assert ndcg_at_k(ranking, {"a": 1}, k=10) == 0.0
    assert ndcg_at_k(ranking, {"a": 1}, k=11) == pytest.approx(1 / math.log2(12))


def test_ndcg_ignores_grade_zero_and_rejects_empty_qrels():
    assert ndcg_at_k(["z", "a"], {"z": 0, "a": 1}) == pytest.approx(1 / math.log2(3))
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], {"a": 0})


def test_mrr():
    assert mrr_at_k(["a"], {"a": 1}) == 1.0
    assert mrr_at_k(["x", "y", "a", "b"], {"a": 1, "b": 2}) == pytest.approx(1 / 3)
    assert mrr_at_k(["x"] * 10 + ["a"], {"a": 2}, k=10) == 0.0
    assert mrr_at_k([], {"a": 2}) == 0.0


def test_recall():
    assert recall_at_k(["a", "x"], {"a": 2, "b": 1, "c": 0}) == pytest.approx(0.5)
    assert recall_at_k(["x", "y"], {"a": 1}, k=1) == 0.0
    assert recall_at_k(["x", "a"], {"a": 1}, k=2) == 1.0


def test_evaluate_averages_and_counts_zero_result_queries():
    qrels = {"q1": {"a": 2}, "q2": {"b": 1}}
    runs = {"q1": ["a"], "q2": []}
    m = evaluate(runs, qrels)
    assert m["ndcg@10"] == pytest.approx(0.5)
    assert m["mrr@10"] == pytest.approx(0.5)
    assert m["recall@100"] == pytest.approx(0.5)
    assert m["zero"] == pytest.approx(0.5)
    assert m["queries"] == 2
    # a query the run does not mention is a query answered with nothing
    assert evaluate({"q1": ["a"]}, qrels)["zero"] == pytest.approx(0.5)
