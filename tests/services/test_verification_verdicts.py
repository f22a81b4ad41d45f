"""Verification defects found by QA, each pinned by what a user would see.

1. an unreachable (or failing) Normattiva never turns into "does not exist";
2. `it-eli verify ... | head` ends quietly;
3. the overall status never reads as a pass when nothing was confirmed or something needs review;
4. every case citation is extracted, and what cannot be checked is a typed gap;
5-6. criminal-law styles (n. 7, cpv.) keep their act, lettere and numeri are checked;
7. EU and regional acts are out_of_corpus with the right place to look;
8. standard descriptions are not called mismatches, real mismatches still are.

Live paths run against local servers replaying the real captures (tests/normattiva_server.py,
the SentenzeWeb/GA server of tests/mcp/test_caselaw_live_tools.py); "unreachable" is a closed port.
"""

from __future__ import annotations

import contextlib

import os
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from tests.offline_home import offline_env
from it_eli.services.app import App
from it_eli.law.scanner.scan import extract_citations
from it_eli.runtime.config import load_settings
from it_eli.search.statutes import import_files
from it_eli.services.verification.verifier import verify_text
from it_eli.services.verification.report import GAP_KINDS
from it_eli.services.verification.article_parts import check_items

EXPORTS = [
    "mcp-legal-it__codice_penale.xml", "scabopdf__codice_penale.xml", "mcp-legal-it__costituzione.xml",
    "mcp-legal-it__legge_241_1990.xml", "mcp-legal-it__dlgs_231_2001.xml", "scabopdf__legge_gelli_bianco.xml",
    "vintra73__012G0234_ORIGINALE.xml", "vintra73__012G0234_VIGENZA_20130103.xml",
    "vintra73__012G0234_VIGENZA_20130804.xml", "vintra73__012G0234_VIGENZA_20131031.xml",
    "vintra73__012G0234_VIGENZA_20160203.xml", "vintra73__012G0234_VIGENZA_20160806.xml",
]


def _import(home: Path, testdata: Path) -> None:
    rep = import_files(load_settings(offline_env(home)), [str(testdata / "normattiva-akn" / f) for f in EXPORTS])
    assert not rep.errors, rep.errors


@pytest.fixture(scope="module")
def qa_home(tmp_path_factory, testdata) -> Path:
    home = tmp_path_factory.mktemp("qa_home")
    _import(home, testdata)
    return home


def _app(home: Path, **env: str) -> App:
    e = offline_env(home)
    e.update({"IT_ELI_" + k.upper(): v for k, v in env.items()})
    return App(load_settings(e))


# ---------------------------------------------------------------- 1. upstream failure is never "does not exist"

# (text, at_date): the local copy cannot settle them (an unseen amendment may lie between the cached
# versions; or, with TTL 0, the cached copy is past its freshness window), so only Normattiva can.
UNSETTLED = [
    ("Si contesta l'art. 452-quinquiesdecies c.p.", "2026-05-10", {}),
    ("Si applica l'art. 1-bis del d.l. 3 dicembre 2012, n. 207.", "2013-02-01", {}),
    ("Si richiama l'art. 999 c.p.", None, {"statute_ttl_days": "0"}),
    ("Si veda l'art. 21-undecies l. 241/1990.", None, {"statute_ttl_days": "0"}),
]


@pytest.mark.parametrize("text,at,env", UNSETTLED, ids=["cp-at-date", "dl-at-date", "cp-stale", "l241-stale"])
async def test_unreachable_normattiva_is_a_gap_not_a_hallucination(qa_home, text, at, env):
    a = _app(qa_home, **env)  # every upstream on a closed port, offline=false
    try:
        res = await verify_text(a, text, at_date=at)
        c = res.citations[0]
        assert c.status == "upstream_unavailable", c.detail
        assert "does not exist" not in c.detail and not res.is_error
        assert res.status == "NOTHING_VERIFIED" and res.gaps[0].kind == "upstream_unavailable"
        off = await verify_text(a, text, at_date=at, offline=True)  # offline agrees: a gap
        assert off.citations[0].status == "upstream_unavailable"
    finally:
        await a.close()


async def test_failing_normattiva_is_a_gap_not_a_hallucination(tmp_path, testdata):
    """The server is up but answers 503 everywhere: still unavailable, never not_found."""
    from tests.normattiva_server import NormattivaServer

    _import(tmp_path / "home", testdata)
    async with NormattivaServer(testdata) as srv:
        srv.set_fault("http503")
        a = _app(tmp_path / "home", statute_ttl_days="0", http_timeout="5", normattiva_url=srv.portal_url,
                 normattiva_api_url=srv.api_url)
        try:
            for text, at, _ in UNSETTLED:
                res = await verify_text(a, text, at_date=at)
                assert res.citations[0].status == "upstream_unavailable", (text, res.citations[0].detail)
                assert not res.is_error
            assert srv.requests  # it did ask
        finally:
            await a.close()


async def test_normattiva_answering_settles_it(tmp_path, testdata):
    """With Normattiva answering (real exports), the same citations are decided: a complete export
    received for the date that lacks the article is positive evidence."""
    from tests.normattiva_server import NormattivaServer

    _import(tmp_path / "home", testdata)
    async with NormattivaServer(testdata) as srv:
        a = _app(tmp_path / "home", statute_ttl_days="0", http_timeout="5", normattiva_url=srv.portal_url,
                 normattiva_api_url=srv.api_url)
        try:
            res = await verify_text(a, "Si veda l'art. 21-undecies l. 241/1990.")
            c = res.citations[0]
            assert c.status == "not_found" and c.served_from == "normattiva_portal", c.detail
            assert c.nearest[0] == "21-decies" and res.status == "HALLUCINATION_DETECTED"
            res = await verify_text(a, "Si veda l'art. 21-octies l. 241/1990.")
            assert res.citations[0].status == "verified"
            # the export Normattiva serves for 2026-05-10 lacks it; the one for 2026-06-10 has it
            res = await verify_text(a, "Si contesta l'art. 452-quinquiesdecies c.p.", at_date="2026-05-10")
            assert res.citations[0].status == "not_found", res.citations[0].detail
            res = await verify_text(a, "Si contesta l'art. 452-quinquiesdecies c.p.", at_date="2026-06-10")
            assert res.citations[0].status == "verified", res.citations[0].detail
        finally:
            await a.close()


# ---------------------------------------------------------------- 2. a closed pipe is not an error


def _cli(home: Path, *args: str, shell_tail: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(offline_env(home))
    env["IT_ELI_LOG_LEVEL"] = "WARNING"
    cmd = " ".join([sys.executable, "-m", "it_eli", "verify", *args]) + shell_tail
    return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_verify_piped_into_head_exits_quietly(qa_home, tmp_path, fmt):
    big = tmp_path / "big.txt"
    big.write_text("".join(f"Si applica l'art. {n} c.p. e l'art. {n} Cost.\n" for n in range(1, 400)), encoding="utf-8")
    p = _cli(qa_home, str(big), "--offline", "--format", fmt, shell_tail=" | head -2; exit ${PIPESTATUS[0]}")
    assert len(p.stdout.splitlines()) == 2
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr, p.stderr
    assert p.returncode in (0, 1, 3)  # the verdict's code, not a crash (120 / 1 with a traceback)


# ---------------------------------------------------------------- 3. statuses that read as what they are


async def test_review_and_nothing_checked_never_read_as_a_pass(qa_home):
    a = _app(qa_home)
    try:
        res = await verify_text(a, "La condotta integra l'art. 575 c.p. (furto).", offline=True)
        assert res.status == "NEEDS_REVIEW" and res.needs_review and res.summary.to_review == 1
        assert res.summary.verified == 0 and not res.is_error and res.notes
        mixed = await verify_text(a, "Si applicano l'art. 3 Cost. e l'art. 575 c.p. (furto).", offline=True)
        assert mixed.status == "NEEDS_REVIEW"
        # through the MCP tool (same code path as the server): Cassazione only, SentenzeWeb down
        from it_eli.mcp.tools.registry import call

        is_error, out = await call(a, "it_verify_citations", {"text": "Cass. civ., sez. III, n. 1234/2020."})
        assert not is_error and out["status"] == "NOTHING_VERIFIED" and out["summary"]["checked"] == 0
        assert out["gaps"][0]["kind"] == "upstream_unavailable"
    finally:
        await a.close()


@pytest.mark.parametrize("text,code,head", [
    ("La condotta integra l'art. 575 c.p. (furto).", 3, "NEEDS_REVIEW"),
    ("Il sindaco era imputato ex art. 323 c.p.", 3, "NEEDS_REVIEW"),
    ("Si richiama l'art. 2043 c.c.", 3, "NOTHING_VERIFIED"),
    ("Si applicano l'art. 575 c.p. e l'art. 2043 c.c.", 0, "VERIFIED_WITH_GAPS"),
    ("Si applica l'art. 575 c.p.", 0, "VERIFIED"),
])
def test_cli_exit_codes_follow_the_status(qa_home, tmp_path, text, code, head):
    f = tmp_path / "t.txt"
    f.write_text(text, encoding="utf-8")
    p = _cli(qa_home, str(f), "--offline")
    assert p.returncode == code and p.stdout.startswith(head + ":"), p.stdout
    if code:
        assert "NOT A PASS" in p.stdout.splitlines()[0]


# ---------------------------------------------------------------- 4. every case citation, typed


CASE_CITATIONS = [
    ("Cass. pen. sez. I n. 99999/2020", "CASS", "99999", 2020),
    ("Trib. Milano, sez. I, 12 gennaio 2020, n. 345", "TRIB", "345", 2020),
    ("C.d.S. sez. V n. 1/2020", "CDS", "1", 2020),
    ("TAR Lazio sez. II n. 1234/2021", "TAR", "1234", 2021),
    ("Cass. civ., Sez. III, 12-02-2021, n. 404", "CASS", "404", 2021),
    ("Cass. pen., sez. VI, 2019, n. 123", "CASS", "123", 2019),
    ("ordinanza n. 207/2018 della Consulta", "COST", "207", 2018),
    ("Corte d'appello di Milano, sez. II, sent. n. 100/2019", "APP", "100", 2019),
    ("Corte dei conti, sez. giur. Lazio, sent. n. 12/2020", "CCONTI", "12", 2020),
    ("CGUE, 16 luglio 2020, causa C-311/18, Schrems II", "CGUE", "C-311/18", 2020),
    ("Corte EDU, 8 gennaio 2013, Torreggiani c. Italia", "CEDU", None, 2013),
    ("Corte di giustizia tributaria di primo grado di Milano, sent. n. 12/2023", "TRIBUTARIA", "12", 2023),
    ("Trib. UE, 10 novembre 2021, causa T-612/17", "CGUE", "T-612/17", 2021),
]


@pytest.mark.parametrize("text,court,number,year", CASE_CITATIONS, ids=[c[1] + "-" + c[0][:18] for c in CASE_CITATIONS])
def test_case_citations_are_extracted(text, court, number, year):
    got = [c for c in extract_citations("Come deciso da " + text + ", il ricorso va respinto.") if c.kind == "case"]
    assert len(got) == 1, got
    c = got[0]
    assert (c.court, c.decision_number, c.decision_year) == (court, number, year)


async def test_case_citations_are_checked_or_typed_gaps(qa_home):
    """Offline: those it_eli can check say why they were not (offline), the others say they are
    outside what it covers, with the place to look; it_coverage lists the same courts."""
    from it_eli.mcp.tools.registry import call

    a = _app(qa_home)
    try:
        text = "Si applica l'art. 575 c.p.; " + "; ".join(t for t, *_ in CASE_CITATIONS) + "."
        res = await verify_text(a, text, offline=True)
        cases = [c for c in res.citations if c.kind == "case"]
        assert len(cases) == len(CASE_CITATIONS)
        assert res.status == "VERIFIED_WITH_GAPS"  # the decisions are listed as gaps, not dropped
        by_court = {c.court: c for c in cases}
        fallbacks = {g.citation: g.fallback for g in res.gaps}
        live = [c for c in cases if c.court in ("CASS", "CDS", "TAR")]
        assert len(live) == 5
        for c in live:  # nothing was tried: not an outage to retry, a gap that says why
            assert c.status == "not_checked_offline" and c.status in GAP_KINDS and "offline" in c.detail, c
            assert "without offline" in fallbacks[c.raw] and "retry" not in fallbacks[c.raw], fallbacks[c.raw]
        assert by_court["COST"].status == "out_of_corpus"  # no Court index built in this home
        _, cov = await call(a, "it_coverage", {})
        not_covered = " ".join(g["what"] for g in cov["not_covered"])
        for court, where, named in [("TRIB", "court's own site", "Tribunale"), ("APP", "court's own site", "Corte d'appello"),
                                    ("CCONTI", "corteconti", "Corte dei conti"), ("CGUE", "curia.europa.eu", "CGUE"),
                                    ("CEDU", "hudoc", "Corte EDU"), ("TRIBUTARIA", "giustiziatributaria", "tributari")]:
            c = by_court[court]
            assert c.status == "out_of_corpus" and c.status in GAP_KINDS, (court, c.status)
            assert where in fallbacks[c.raw], (court, fallbacks[c.raw])
            assert named in not_covered, named
    finally:
        await a.close()


@contextlib.asynccontextmanager
async def _live_courts_app(testdata, home: Path, **env: str):
    """An app whose Cassazione and GA upstreams are the local replay of the real captures."""
    from tests.mcp.test_caselaw_live_tools import Upstream

    up = Upstream(testdata)
    server = TestServer(up.app())
    await server.start_server()
    up.server = server
    try:
        a = _app(home, sentenzeweb_url=up.base + "/sncass", ga_url=up.base, ga_document_url=up.base,
                 http_timeout="5", **env)
        try:
            yield a
        finally:
            await a.close()
    finally:
        await server.close()


async def test_cassazione_and_ga_are_checked_live(testdata, tmp_path):
    async with _live_courts_app(testdata, tmp_path / "home") as a:
        res = await verify_text(a, "Cass. pen. sez. I n. 99999/2020; TAR Lazio sez. II n. 11314/2026; "
                                   "C.d.S. sez. V n. 1/2020.")
        got = [(c.court, c.status, c.served_from) for c in res.citations]
        assert got[0] == ("CASS", "out_of_corpus", None)  # SentenzeWeb answered: not in its window
        assert got[1] == ("TAR", "verified", "ga")  # on the GA portal's page (real capture)
        assert got[2] == ("CDS", "out_of_corpus", None)
        assert res.summary.live_lookups == 3 and res.status == "VERIFIED_WITH_GAPS"


async def test_a_small_answer_budget_never_changes_a_verdict(testdata, tmp_path):
    """The budget cuts what the MCP tool sends, never what verification reads: with 1,000 characters a
    search answer holds a hit or two, and the decision SentenzeWeb did return must still be verified."""
    async with _live_courts_app(testdata, tmp_path / "home", max_answer_chars="1000") as a:
        res = await verify_text(a, "Cass. civ. sez. III n. 26016/2026; TAR Lazio sez. II n. 11314/2026.")
        assert [(c.court, c.status) for c in res.citations] == [("CASS", "verified"), ("TAR", "verified")]


# ---------------------------------------------------------------- 5-6. criminal-law styles, lettere and numeri


def test_numero_and_capoverso_keep_the_act():
    def key(t):
        return [(c.article, c.act.code if c.act else None, c.comma, c.numero) for c in extract_citations(t)]

    assert key("Aggravante ex art. 61 n. 7 c.p.") == [("61", "cp", None, "7")]
    assert key("Reato continuato ex art. 81 cpv. c.p.") == [("81", "cp", "2", None)]
    assert key("Si contestano gli artt. 110, 81 cpv. e 640 c.p.") == [("110", "cp", None, None), ("81", "cp", "2", None),
                                                                      ("640", "cp", None, None)]
    assert key("art. 61, nn. 1 e 4, c.p.") == [("61", "cp", None, "1,4")]
    assert key("art. 625, primo comma, n. 2, c.p.") == [("625", "cp", "1", "2")]
    # an act's coordinates are not a numero
    assert [c.numero for c in extract_citations("art. 21 n. 241/1990 e art. 3 n. 231 del 2001")] == [None, None]


async def test_criminal_styles_are_verified(qa_home):
    a = _app(qa_home)
    try:
        res = await verify_text(a, "Si contestano gli artt. 110, 81 cpv. e 640 c.p. con l'aggravante dell'art. 61 n. 7 c.p.",
                                offline=True)
        assert [(c.article, c.status) for c in res.citations] == [
            ("110", "verified"), ("81", "verified"), ("640", "verified"), ("61", "verified")]
        # "cpv." is comma 2, now checked: the c.p.'s unnumbered paragraphs are its commi
        assert res.status == "VERIFIED" and res.citations[3].numero == "7"
    finally:
        await a.close()


def test_check_items_reads_the_articles_own_lists():
    text = "1. L'ente risponde:\na) da persone apicali;\nb) da sottoposti alla lettera a).\n2. L'ente non risponde."
    assert check_items(text, "1", "b", None) == ("ok", "lett. b)")
    assert check_items(text, "1", "c", None)[0] == "absent"
    assert check_items(text, "2", "a", None)[0] == "absent"  # it is in comma 1
    assert check_items("1. Principio di legalita'.", "1", "a", None)[0] == "absent"
    assert check_items(text, None, None, "3")[0] == "unknown"  # no numbered items at all: not checkable
    cp61 = "Aggravano il reato:\n1° l'avere agito per motivi abietti;\n5) l'avere profittato;\n7° l'avere cagionato"
    assert check_items(cp61, None, None, "7")[0] == "ok" and check_items(cp61, None, None, "12")[0] == "absent"
    # a cross-reference is not a list item
    assert check_items("1. Si applica l'articolo 5, comma 1, lettera a).", None, "a", None)[0] == "absent"


async def test_lettere_are_checked_and_shown(qa_home):
    a = _app(qa_home)
    try:
        res = await verify_text(a, "Ai sensi dell'art. 2, comma 1, lett. a), d.lgs. 231/2001 e dell'art. 5, comma 1, "
                                   "lett. b), d.lgs. 231/2001.", offline=True)
        bad, good = res.citations
        assert bad.status == "not_found" and bad.lettera == "a" and "no lettere" in bad.detail
        assert good.status == "verified" and good.lettera == "b" and "lett. b)" in good.detail
        assert res.status == "HALLUCINATION_DETECTED"
        res = await verify_text(a, "Si richiama l'art. 1, comma 2, n. 3 della legge 24/2017.", offline=True)
        assert res.citations[0].status == "lettera_not_checkable" and res.status == "VERIFIED_WITH_GAPS"
        assert res.gaps[0].kind == "lettera_not_checkable" and res.summary.partly_verified == 1
    finally:
        await a.close()


# ---------------------------------------------------------------- 7. EU and regional acts


async def test_eu_and_regional_acts_are_out_of_corpus_with_the_right_source(qa_home):
    a = _app(qa_home)
    try:
        res = await verify_text(a, "Il trattamento è lecito ex art. 6 del Regolamento (UE) 2016/679 (art. 6 GDPR), "
                                   "l'art. 8 CEDU è rispettato e il piano segue l'art. 5 l.r. Lombardia 11 marzo 2005, "
                                   "n. 12.", offline=True)
        assert [c.status for c in res.citations] == ["out_of_corpus"] * 4
        fb = [g.fallback for g in res.gaps]
        assert "eur-lex" in fb[0].lower() and "eur-lex" in fb[1].lower() and "hudoc" in fb[2].lower()
        assert "bulletin" in fb[3] and not any("normattiva.it" in f for f in fb)
        assert "no act is named" not in " ".join(c.detail for c in res.citations)
    finally:
        await a.close()


# ---------------------------------------------------------------- 8. descriptions


FITTING = [
    "art. 3 Cost. (principio di uguaglianza)", "art. 25 Cost. (principio di legalità)",
    "art. 27 Cost. (presunzione di non colpevolezza)", "art. 110 c.p. (concorso di persone nel reato)",
    "art. 1 l. 24/2017 (legge Gelli-Bianco)", "art. 56 c.p. (tentativo)", "art. 3 Cost. (eguaglianza formale)",
    "art. 2 c.p. (irretroattività della legge penale)", "art. 22 l. 241/1990 (accesso ai documenti amministrativi)",
    "art. 575 c.p. (codice Rocco)",
]
WRONG = [  # (citation, the article the description does fit)
    ("art. 575 c.p. (furto)", "624"), ("art. 3 Cost. (sciopero)", "40"), ("art. 13 Cost. (diritto di sciopero)", "40"),
    ("art. 6 d.lgs. 231/2001 (reati societari)", "25-ter"), ("art. 52 c.p. (sequestro di persona)", "605"),
]


async def test_standard_descriptions_fit_and_real_mismatches_stay(qa_home):
    a = _app(qa_home)
    try:
        for text in FITTING:
            c = (await verify_text(a, text, offline=True)).citations[0]
            assert c.status == "verified", (text, c.status, c.detail)
        for text, right in WRONG:
            res = await verify_text(a, text, offline=True)
            c = res.citations[0]
            assert c.status == "content_mismatch" and f"art. {right}" in c.range_hint, (text, c.status, c.detail)
            assert res.status == "NEEDS_REVIEW"
        # fits no article of the act: to review, but not called a mismatch
        res = await verify_text(a, "art. 81 Cost. (pareggio di bilancio)", offline=True)
        assert res.citations[0].status == "content_unconfirmed" and res.status == "NEEDS_REVIEW"
    finally:
        await a.close()


def test_a_ga_number_that_starts_like_its_year_is_not_cut():
    """The GA client splits the portal's '202620261' into n. 20261/2026; the verifier must not cut
    the year off the number a second time (n. 1/2026)."""
    from it_eli.sources.ga.portal import GaHit
    from it_eli.services.verification.decisions import _ga_number

    hit = GaHit(number="20261", year=2026, portal_number="202620261", source_url="https://www.giustizia-amministrativa.it/")
    assert _ga_number(hit) == "20261"
    assert _ga_number(GaHit(ecli="ECLI:IT:TARLAZ:2026:11314SENT", number="11314", year=2026, source_url="x")) == "11314"
