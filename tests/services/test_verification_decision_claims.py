"""What a text says of a Constitutional Court decision is checked against the decision's record
(issue 23): a real number with an invented holding never passes, the answer quotes the
dispositivo, a true claim fits, and a citation with no claim only "exists"."""

from __future__ import annotations

from pathlib import Path

import pytest

from it_eli.runtime.config import load_settings
from it_eli.services.app import App
from it_eli.services.verification.verifier import verify_text
from tests.decision_claim_cases import CASES, contradicted_scores, verdicts_of
from tests.offline_home import offline_env

ISSUE_TEXT = ("La Corte costituzionale, con ordinanza n. 5 del 2001, ha dichiarato l'illegittimità costituzionale "
              "dell'art. 2052 c.c.")
BIELLA = "Ordina la restituzione degli atti alla Commissione tributaria provinciale di Biella."


@pytest.fixture(scope="module")
def cost_home(tmp_path_factory, testdata) -> Path:
    """The Court's 12 real decisions indexed (the statutes are not needed: a claim is about the decision)."""
    from it_eli.search.decisions.build import build_index

    home = tmp_path_factory.mktemp("claims_home")
    build_index(load_settings(offline_env(home)), [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    return home


@pytest.fixture
async def app(cost_home):
    a = App(load_settings(offline_env(cost_home)))
    yield a
    await a.close()


async def test_an_invented_holding_is_not_a_pass_and_the_dispositivo_is_quoted(app):
    res = await verify_text(app, ISSUE_TEXT, offline=True)
    assert res.status == "NEEDS_REVIEW" and res.needs_review and not res.is_error
    (d,) = [c for c in res.citations if c.kind == "case"]
    assert d.status == "content_mismatch" and BIELLA in d.detail
    verdicts = {k.claim: k for k in d.claims}
    assert verdicts["outcome"].verdict == "contradicted" and BIELLA in verdicts["outcome"].record
    assert verdicts["provision"].verdict == "contradicted" and "504" in verdicts["provision"].record
    assert verdicts["type"].verdict == "fits"


async def test_the_mcp_answer_carries_each_claim_with_the_records_words(app):
    from it_eli.mcp.tools.registry import call

    is_error, out = await call(app, "it_verify_citations", {"text": ISSUE_TEXT, "offline": True})
    assert not is_error and out["status"] == "NEEDS_REVIEW"
    case = next(c for c in out["citations"] if c["kind"] == "case")
    outcome = next(k for k in case["claims"] if k["claim"] == "outcome")
    assert outcome["verdict"] == "contradicted" and BIELLA in outcome["record"]


@pytest.mark.parametrize("cid,text,number,want,status", CASES, ids=[c[0] for c in CASES])
async def test_each_labelled_claim_gets_its_verdict(app, cid, text, number, want, status):
    res = await verify_text(app, text, offline=True)
    decisions = [c for c in res.citations if c.kind != "statute"]
    assert decisions and decisions[0].ecli == f"ECLI:IT:COST:2001:{number}", [c.raw for c in res.citations]
    got: dict[str, list[str]] = {}
    for k in decisions[0].claims:
        got.setdefault(k.claim, []).append(k.verdict)
    assert got == want and decisions[0].status == status, decisions[0].detail
    if status == "content_mismatch":
        assert res.status not in ("VERIFIED", "VERIFIED_WITH_GAPS")
    if not want.get("outcome"):  # "exists" is not "verified": the answer says what was not checked
        assert "claims no outcome" in decisions[0].detail


async def test_no_wrong_claim_is_ever_called_a_fit(app):
    scores = contradicted_scores(await verdicts_of(app))
    assert scores["wrong_called_fit"] == 0
    assert scores["precision"] == 1.0 and scores["recall"] == 1.0, scores
    assert scores["true_fits"] == scores["true_total"], scores
