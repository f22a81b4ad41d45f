"""Ranking metrics, pure functions (no I/O), so they can be checked on hand-computed cases.

Conventions (the same for every setup, so the comparison is fair):
- `ranking` is the ranked list of document ids a system returned (best first, no duplicates);
- `qrels` maps document id -> graded relevance (0 = not relevant, 1 = relevant, 2 = the answer);
- nDCG@k uses linear gains (gain = grade, as trec_eval's `ndcg_cut`) and log2(rank + 1) discounts;
  the ideal ranking is built from every judged document, so an answer missing from the results
  costs even when the rest is perfect;
- MRR@k and Recall@k count a document as relevant when its grade is >= 1;
- a query with no relevant document in its qrels is not scored (callers should not pass one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    if not ideal:
        raise ValueError("no relevant document in qrels")
    got = [qrels.get(d, 0) for d in ranking[:k]]
    return dcg(got) / dcg(ideal)


def mrr_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranking[:k]):
        if qrels.get(d, 0) >= 1:
            return 1.0 / (i + 1)
    return 0.0


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int = 100) -> float:
    relevant = {d for d, g in qrels.items() if g >= 1}
    if not relevant:
        raise ValueError("no relevant document in qrels")
    return len(relevant.intersection(ranking[:k])) / len(relevant)


def evaluate(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> dict[str, float]:
    """Mean nDCG@10, MRR@10, Recall@100 and the share of queries with zero results.

    `runs` maps query id -> ranking; every query of `qrels` is scored (a query absent from `runs`
    counts as answered with nothing).
    """
    n = len(qrels)
    if n == 0:
        raise ValueError("no queries")
    tot = {"ndcg@10": 0.0, "mrr@10": 0.0, "recall@100": 0.0, "zero": 0.0}
    for qid, rels in qrels.items():
        ranking = list(runs.get(qid) or [])
        tot["ndcg@10"] += ndcg_at_k(ranking, rels, 10)
        tot["mrr@10"] += mrr_at_k(ranking, rels, 10)
        tot["recall@100"] += recall_at_k(ranking, rels, 100)
        tot["zero"] += 0.0 if ranking else 1.0
    out = {key: value / n for key, value in tot.items()}
    out["queries"] = n
    return out
