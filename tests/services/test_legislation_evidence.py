"""What the legislation tools may claim, and from what evidence (QA defects 1-10).

"Does not exist" needs positive evidence: a complete text known to be in force on the day asked
that lacks the article, or a successful Normattiva answer saying so. An upstream failure is
reported as unavailable, never as an absence; a local copy of an act outweighs an upstream "no
such act"; a version starting after today is not today's text.

Two settings, both on the REAL captures: offline (exports imported with `import_files`, the code
path of `it-eli statutes import`, every Normattiva URL on a closed port) and live against
tests/normattiva_server.py (the real HttpClient, no monkeypatching). Today's date is pinned with
`clock.frozen_today` where the answer depends on it.
"""

from __future__ import annotations

import socket
from contextlib import asynccontextmanager

import pytest

from it_eli.services.app import App
from it_eli.runtime.config import load_settings
from it_eli.runtime import clock
from it_eli.sources.normattiva.akn.parser import parse_act
from it_eli.search.statutes.loading import import_files
from it_eli.mcp.tools.registry import call
from tests.normattiva_server import NormattivaServer

from tests.conftest import testdata_dir as _testdata_dir

AKN = "normattiva-akn/"
DL207 = "urn:nir:stato:decreto.legge:2012-12-03;207"
D231 = "urn:nir:stato:decreto.legislativo:2001-06-08;231"
L241 = "urn:nir:stato:legge:1990-08-07;241"
CP = "urn:nir:stato:regio.decreto:1930-10-19;1398"
CC = "urn:nir:stato:regio.decreto:1942-03-16;262"
COST = "urn:nir:stato:costituzione"
OFFLINE_FILES = [
    "vintra73__012G0234_ORIGINALE.xml", "vintra73__012G0234_VIGENZA_20130103.xml",
    "vintra73__012G0234_VIGENZA_20130804.xml", "mcp-legal-it__codice_penale.xml", "mcp-legal-it__costituzione.xml",
    "scabopdf__dlgs_231_2001.xml", "mcp-legal-it__dlgs_231_2001.xml", "mcp-legal-it__legge_241_1990.xml",
    "alessionar__20230331_23G00044_VIGENZA_20230530.xml",
]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def offline_home(tmp_path_factory):
    data = _testdata_dir()
    if not data.is_dir():
        pytest.skip(f"captured upstream data not found at {data}")
    home = tmp_path_factory.mktemp("evidence_home")
    settings = _offline_settings(home)
    rep = import_files(settings, [str(data / AKN / n) for n in OFFLINE_FILES])
    assert rep.errors == [] and rep.acts == len(OFFLINE_FILES)
    return home


def _offline_settings(home, **extra):
    dead = f"http://127.0.0.1:{_closed_port()}"
    env = {"IT_ELI_HOME": str(home), "IT_ELI_NORMATTIVA_URL": dead, "IT_ELI_NORMATTIVA_API_URL": dead + "/api",
           "IT_ELI_HTTP_TIMEOUT": "1", "IT_ELI_HTTP_RETRIES": "0", "IT_ELI_THROTTLE_SECONDS": "0",
           "IT_ELI_TESTDATA": str(_testdata_dir())}
    env.update({"IT_ELI_" + k.upper(): str(v) for k, v in extra.items()})
    return load_settings(env)


@asynccontextmanager
async def offline(home, **extra):
    app = App(_offline_settings(home, **extra))
    try:
        yield app
    finally:
        await app.close()


@asynccontextmanager
async def replay(testdata, make_settings, **overrides):
    async with NormattivaServer(testdata, sleep_seconds=3) as srv:
        app = App(make_settings(**srv.settings_overrides(), http_timeout="1", http_retries="0", **overrides))
        try:
            yield srv, app
        finally:
            await app.close()


def _keys(testdata, name):
    return {a.key for a in parse_act((testdata / AKN / name).read_bytes()).articles}


# ---------------------------------------------------------------- 1. a cached version proves only what it covers


async def test_cached_version_proves_absence_only_for_the_days_it_covers(offline_home, testdata):
    # the captures: 1-bis is not in the 2013-01-03 version, and is in the 2013-08-04 one
    assert "1-bis" not in _keys(testdata, "vintra73__012G0234_VIGENZA_20130103.xml")
    assert "1-bis" in _keys(testdata, "vintra73__012G0234_VIGENZA_20130804.xml")
    async with offline(offline_home) as app:
        # between the two cached versions, with Normattiva down: unknown, never "does not exist"
        err, p = await call(app, "it_get_text", {"reference": "d.l. 207/2012", "article": "1-bis", "at_date": "2013-05-01"})
        assert err and p["code"] == "upstream_unavailable", p
        assert "2013-01-03" in p["message"] and "2013-08-04" in p["message"]
        assert "retry later" in p["valid"] and "it-eli statutes import" in p["valid"]
        # on the day the 2013-01-03 version starts, it IS the text: the article was not there yet
        err, p = await call(app, "it_get_text", {"reference": DL207, "article": "1-bis", "at_date": "2013-01-03"})
        assert err and p["code"] == "not_found" and "not yet in force on 2013-01-03" in p["message"], p
        # absent from two consecutive versions: never there in between (repealed articles are kept)
        err, p = await call(app, "it_get_text", {"reference": DL207, "article": "7", "at_date": "2013-05-01"})
        assert err and p["code"] == "not_found", p
        # present in the cached version before the date, not known to cover it: its text, marked stale
        err, p = await call(app, "it_get_text", {"reference": DL207, "article": "1", "at_date": "2013-05-01"})
        assert not err and p["stale"] is True and p["in_force_date"] == "2013-01-03", p
        assert "no cached copy is known to be the text in force on 2013-05-01" in p["version_note"]


async def test_expired_copy_without_the_article_is_not_proof(offline_home):
    async with offline(offline_home, statute_ttl_days=0) as app:
        err, p = await call(app, "it_get_text", {"reference": "art. 999 c.p."})
        assert err and p["code"] == "upstream_unavailable", p
        assert "today" in p["message"] and p["valid"]
        err, p = await call(app, "it_get_text", {"reference": "art. 575 c.p.", "max_chars": 200})
        assert not err and p["stale"] is True and p["heading"] == "Omicidio"
    async with offline(offline_home) as app:  # fresh (within the TTL): the complete act settles it
        err, p = await call(app, "it_get_text", {"reference": "art. 999 c.p."})
        assert err and p["code"] == "not_found" and "995" not in p["message"]


async def test_verifier_does_not_call_an_expired_absence_a_hallucination(offline_home):
    async with offline(offline_home, statute_ttl_days=0) as app:
        err, p = await call(app, "it_verify_citations", {"text": "Si veda l'art. 999 c.p."})
        assert p["status"] != "HALLUCINATION_DETECTED", p


# ---------------------------------------------------------------- 2. a future version is not today's text


async def test_future_version_is_not_served_as_today(testdata, make_settings):
    with clock.frozen_today("2026-11-29"):
        async with replay(testdata, make_settings) as (srv, app):
            err, p = await call(app, "it_get_text", {"reference": "art. 51 TUIR"})
            # the API's latest version starts on 2027-01-01 and today's could not be obtained here
            assert err and p["code"] == "upstream_unavailable", p
            assert p["details"]["later_version_from"] == "2027-01-01"
            assert any("!vig=2026-11-29" in path for _, path, _ in srv.requests) or len(srv.requests) >= 2
            err, p = await call(app, "it_search_statutes", {"query": "provvedimento abrogato"})
            assert not any(h["article"] == "51" for h in p.get("hits", []))  # nor found by search as current
    with clock.frozen_today("2027-06-01"):
        async with replay(testdata, make_settings) as (srv, app):
            err, p = await call(app, "it_get_text", {"reference": "art. 51 TUIR"})
            assert not err and p["in_force_date"] == "2027-01-01" and p["repealed"] is True, p
            # a repealed article is never called plainly "in force"
            # the API's text is the notice "PROVVEDIMENTO ABROGATO DAL D.LGS. 19 GIUGNO 2026, N. 117": read, dated
            assert p["version_note"].startswith("NOT law in force: the whole act repealed by D.LGS. 19 GIUGNO 2026"), \
                p["version_note"]
            assert any(e["by_date"] == "2026-06-19" for e in p["lifecycle"])
            assert "version of 2027-01-01" in p["version_note"] and p["provision_status"] == "repealed"


# ---------------------------------------------------------------- 3. Normattiva's "not yet in force" placeholder


async def test_not_yet_in_force_placeholder_is_not_a_text(testdata, make_settings):
    async with replay(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "art. 416-bis c.p.", "at_date": "1981-01-01"})
        assert err and p["code"] == "not_found", p
        assert "not yet in force on 1981-01-01" in p["message"] and "1982-09-29" in p["message"]
        assert "NON ANCORA" not in p["message"]
        assert app.statutes.article_candidates(CP, "416-bis") == []  # the placeholder is not stored


async def test_act_before_its_own_date_is_not_in_force(offline_home):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_text", {"reference": L241, "article": "2", "at_date": "1985-01-01"})
        assert err and p["code"] == "not_found" and "not yet in force" in p["message"], p


# ---------------------------------------------------------------- 4. a local copy outweighs an upstream "no such act"


async def test_act_held_locally_is_never_called_non_existent(testdata, make_settings):
    async with replay(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "c.c.", "article": "2043"})
        assert not err and p["served_from"] == "normattiva_api"
        # the replayed API answers 'atto non trovato' for this URN and the portal has no c.c. export
        err, p = await call(app, "it_get_text", {"reference": "art. 2 c.c."})
        assert err and p["code"] == "upstream_unavailable", p
        assert "local index holds this act" in p["message"] and p["valid"]
        err, p = await call(app, "it_get_act", {"reference": L241})
        assert not err
        # no export of L. 241/1990 before 2026-04-21 was captured: the portal answers its Errore page
        err, p = await call(app, "it_get_text", {"reference": "l. 241/1990", "at_date": "2026-01-01", "max_chars": 300})
        assert err and p["code"] == "upstream_unavailable", p
        assert "2026-04-21" in p["message"] and "does not exist" not in p["message"]
        # an act Normattiva does not know, with nothing local: still not_found
        err, p = await call(app, "it_get_act", {"reference": "urn:nir:stato:legge:1990-08-07;9999"})
        assert err and p["code"] == "not_found"


# ---------------------------------------------------------------- 5. an article that cannot be read is refused


@pytest.mark.parametrize("reference,article,citation,start", [
    ("art. 12 allegato II.12 d.lgs. 36/2023", "allegato-ii.12-art-12",
     "art. 12 allegato II.12 D.Lgs. 31 marzo 2023, n. 36", None),
    ("art. 25 bis 1 D.Lgs. 231/2001", "25-bis.1", "art. 25-bis.1 D.Lgs. 8 giugno 2001, n. 231",
     "1. In relazione alla commissione dei delitti contro l'industria"),
    ("Cost. art. 1", "1", "art. 1 Cost.", "L'Italia e' una Repubblica democratica"),
    ("c.p. art. 575", "575", "art. 575 c.p.", "Chiunque cagiona la morte di un uomo"),
    ("d.lgs. 231/2001, art. 25-undecies, comma 2", "25-undecies", "art. 25-undecies D.Lgs. 8 giugno 2001, n. 231", None),
    ("articolo 3 della Costituzione", "3", "art. 3 Cost.", "Tutti i cittadini"),
])
async def test_article_in_the_reference_is_read_not_dropped(offline_home, reference, article, citation, start):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_text", {"reference": reference, "max_chars": 2000})
    assert not err, p
    assert p["article"] == article and p["human_readable_citation"] == citation
    assert p["total_chars"] < 50_000  # one article, never the whole act
    assert start is None or p["text"].startswith(start), p["text"][:100]


@pytest.mark.parametrize("args", [
    {"reference": "art. dodici c.p."},
    {"reference": "art. 25 bis xyz D.Lgs. 231/2001"},
    {"reference": "Cost.", "article": "-1"},
    {"reference": "Cost.", "article": "0"},
    {"reference": "c.p.", "article": "abc"},
    {"reference": "c.p.", "article": "XVIII"},  # roman numerals: only the Costituzione's transitional provisions
])
async def test_unreadable_article_is_invalid_arg(offline_home, args):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_text", args)
    assert err and p["code"] == "invalid_arg", p
    assert "25-bis.1" in p["valid"] and "duodevicies" in p["valid"]


# ---------------------------------------------------------------- 6. search: one current text per article


async def test_search_returns_the_current_version_and_counts_articles(offline_home, tmp_path):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_search_statutes", {"query": "reati ambientali", "act": "d.lgs. 231/2001", "limit": 50})
        assert not err
        hits = [(h["article"], h["in_force_date"]) for h in p["hits"]]
        assert hits[0] == ("25-undecies", "2026-06-02")
        assert len({a for a, _ in hits}) == len(hits) and {d for _, d in hits} == {"2026-06-02"}
        err, old = await call(app, "it_search_statutes", {"query": "reati ambientali", "act": "d.lgs. 231/2001",
                                                           "at_date": "2026-02-01", "limit": 50})
        assert not err and old["hits"][0]["article"] == "25-undecies" and old["hits"][0]["in_force_date"] == "2026-01-24"
        assert {h["in_force_date"] for h in old["hits"]} == {"2026-01-24"}
    # the total counts articles: the same as with only the current version cached
    single = _offline_settings(tmp_path / "one")
    assert not import_files(single, [str(_testdata_dir() / AKN / "mcp-legal-it__dlgs_231_2001.xml")]).errors
    app = App(single)
    try:
        err, one = await call(app, "it_search_statutes", {"query": "reati ambientali", "act": "d.lgs. 231/2001"})
    finally:
        await app.close()
    assert one["total"] == p["total"]


# ---------------------------------------------------------------- 7. the Costituzione by its dated URN


async def test_costituzione_urn_with_date_is_served_locally(offline_home):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_text", {"reference": "urn:nir:stato:costituzione:1947-12-27~art3"})
        assert not err and p["urn"] == COST and p["served_from"] == "local_index", p
        assert p["text"].startswith("Tutti i cittadini")
        err, r = await call(app, "it_resolve", {"reference": "urn:nir:stato:costituzione:1947-12-27~art3"})
        assert not err and r["act_urn"] == COST and r["human_readable_citation"] == "art. 3 Cost."
        assert r["eli_uri"].startswith("https://www.normattiva.it/eli/id/1947/12/27/047U0001/")


# ---------------------------------------------------------------- 8. real article numbers


@pytest.mark.parametrize("args", [
    {"reference": "Costituzione", "article": "XVIII"},
    {"reference": "Cost.", "article": "disp. trans. XVIII"},
    {"reference": "XVIII disp. trans. Cost."},
])
async def test_costituzione_transitional_provisions_in_roman_figures(offline_home, args):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_text", args)
    assert not err and p["article"] == "disp-trans-18", p
    assert p["human_readable_citation"] == "disp. trans. XVIII Cost."
    assert p["text"].startswith("La presente Costituzione e' promulgata")


@pytest.mark.parametrize("args", [
    {"reference": "urn:nir:stato:decreto.legislativo:2001-06-08;231~art25duodevicies"},
    {"reference": "d.lgs. 231/2001", "article": "25-duodevicies"},
    {"reference": "d.lgs. 231/2001", "article": "25 duodevicies"},
    {"reference": "art. 25-duodevicies d.lgs. 231/2001"},
])
async def test_latin_ordinals_beyond_quinquiesdecies(offline_home, args):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_text", args)
    assert not err and p["article"] == "25-duodevicies", p
    assert p["heading"].startswith("Riciclaggio di beni culturali")


# ---------------------------------------------------------------- 9. the original text


async def test_originale_returns_the_first_version(testdata, make_settings):
    async with replay(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "eli/id/1990/08/18/090G0294/ORIGINAL", "article": "1"})
        assert not err and p["original"] is True and p["served_from"] == "normattiva_api", p  # URN via the act page
        err, p = await call(app, "it_get_text", {"reference": L241 + "~art1@originale"})
        assert not err and p["original"] is True and p["served_from"] == "local_index", p
        assert (p["in_force_date"], p["valid_to"]) == ("1990-09-02", "2005-03-07")  # urn_versione_originale.json
        assert p["version_note"].startswith("original text as published")
        n = len(srv.requests)
        err, q = await call(app, "it_get_text", {"reference": "eli/id/1990/08/18/090G0294/ORIGINAL", "article": "1"})
        assert not err and q["original"] is True and q["text"] == p["text"] and len(srv.requests) == n
        # the current text of the same article is another one
        err, cur = await call(app, "it_get_text", {"reference": L241, "article": "1"})
        assert not err and cur["original"] is False and cur["in_force_date"] != "1990-09-02"
        # the whole act's original: not from the portal's consolidated export
        err, w = await call(app, "it_get_text", {"reference": "eli/id/1990/08/18/090G0294/ORIGINAL"})
        assert err and w["code"] == "not_available" and "@originale" in w["valid"], w


async def test_original_export_cached_is_served_as_original(offline_home):
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_act", {"reference": "eli/id/2012/12/03/012G0234/ORIGINAL"})
        assert not err and p["cached_versions"][-1] == "originale" and p["in_force_date"] is None, p
        assert p["version_note"].startswith("original text as published")
        err, t = await call(app, "it_get_text", {"reference": DL207 + "~art1@originale", "max_chars": 500})
        assert not err and t["original"] is True and t["in_force_date"] is None
        # art. 1-bis came with the conversion law: it is not part of the decree as published
        err, t = await call(app, "it_get_text", {"reference": DL207 + "~art1-bis@originale", "max_chars": 500})
        assert err and t["code"] == "not_found", t
        assert "conver" in (t["message"] + (t.get("valid") or "")).lower(), t


# ---------------------------------------------------------------- 10. references, URLs, valid


@pytest.mark.parametrize("reference", [
    "https://evilnormattiva.it/uri-res/N2Ls?urn:nir:stato:legge:1990-08-07;241",
    "https://user@www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:1990-08-07;241",
    "ftp://www.normattiva.it/eli/id/1990/08/18/090G0294/CONSOLIDATED",
    "https://www.normattiva.it.evil.com/eli/id/1990/08/18/090G0294/CONSOLIDATED",
    "javascript:alert(1)//eli/id/1990/08/18/090G0294/CONSOLIDATED",
    "https://www.normattiva.it/atto/vediMenuExport?foo=1",
])
async def test_reference_urls_must_be_normattiva(testdata, make_settings, reference):
    async with replay(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": reference})
        assert err and p["code"] == "invalid_arg" and p["valid"], p
        assert srv.requests == []


async def test_portal_detail_page_url_is_accepted(offline_home):
    # the act page's own link (normattiva-html/mcp-legal-it__landing_legge_241_1990.html)
    url = ("https://www.normattiva.it/atto/caricaDettaglioAtto?atto.dataPubblicazioneGazzetta=1990-08-18"
           "&atto.codiceRedazionale=090G0294&tipoDettaglio=multivigenza&qId=")
    async with offline(offline_home) as app:
        err, p = await call(app, "it_get_act", {"reference": url})
        assert not err and p["urn"] == L241, p
        err, p = await call(app, "it_get_text", {"reference": url.replace("&", "&amp;"), "article": "2", "max_chars": 100})
        assert not err and p["urn"] == L241 and p["article"] == "2"


@pytest.mark.parametrize("fault", ["http503", "timeout", "waf"])
async def test_upstream_unavailable_says_what_would_work(testdata, make_settings, fault):
    async with replay(testdata, make_settings) as (srv, app):
        srv.set_fault(fault)
        for tool, args in (("it_get_text", {"reference": "c.c.", "article": "2043"}), ("it_get_act", {"reference": L241})):
            err, p = await call(app, tool, args)
            assert err and p["code"] == "upstream_unavailable", p
            assert p["valid"] and "retry" in p["valid"]
