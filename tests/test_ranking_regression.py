"""Ranking regression: it_eli as shipped must not fall below benchmarks/ranking/expected.json on the
CI-fast subset (a few real acts cut into articles + the 88 casehold decisions)."""

from __future__ import annotations

import json

import pytest

from benchmarks.ranking.data import testdata_dir as _testdata
from benchmarks.ranking.run import EXPECTED, check, run


@pytest.fixture(scope="module")
def results():
    if not (_testdata() / "normattiva-akn").is_dir() or not (_testdata() / "casehold").is_dir():
        pytest.skip(f"ranking test data not found at {_testdata()} (set IT_ELI_TESTDATA to ../shared/data)")
    return run(small=True, only=["it_eli", "fts5", "bm25s"])


def test_it_eli_meets_its_expected_figures(results):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    expected["small"] = {c: {"it_eli": s["it_eli"]} for c, s in expected["small"].items()}
    assert check(results, expected) == []


def test_it_eli_is_far_ahead_of_the_reference_fts5(results):
    for name, col in results.items():
        me, fts5 = col["setups"]["it_eli"], col["setups"]["fts5"]
        assert me["ndcg@10"] >= 1.2 * fts5["ndcg@10"], name
        assert me["zero"] < fts5["zero"], name
