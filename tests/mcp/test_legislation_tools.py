"""Legislation tools through the registry against the local Normattiva replaying REAL captures.

No monkeypatching: the real HttpClient talks to tests/normattiva_server.py at the upstream paths
(portal act page -> caricaAKN -> export; OpenData API POST dettaglio-atto-urn), with its faults.
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import pytest

from it_eli.services.app import App
from it_eli.sources.normattiva.akn.parser import parse_act
from it_eli.mcp.tools.registry import call
from tests.normattiva_server import API_PREFIX, NormattivaServer

L241 = "urn:nir:stato:legge:1990-08-07;241"
D231 = "urn:nir:stato:decreto.legislativo:2001-06-08;231"
CP = "urn:nir:stato:regio.decreto:1930-10-19;1398"
CC = "urn:nir:stato:regio.decreto:1942-03-16;262"
AKN = "normattiva-akn/"


@asynccontextmanager
async def session(testdata, make_settings, **overrides):
    """A local Normattiva plus an App whose upstream URLs point at it."""
    async with NormattivaServer(testdata, sleep_seconds=3) as srv:
        opts = {"http_timeout": "1", "http_retries": "0", **overrides}
        app = App(make_settings(**srv.settings_overrides(), **opts))
        try:
            yield srv, app
        finally:
            await app.close()


def paths(srv, start=0) -> list[str]:
    return [p for _, p, _ in srv.requests[start:]]


def assert_contract(p: dict) -> None:
    assert p["urn"].startswith("urn:nir:stato:")
    assert p["human_readable_citation"] and p["source_url"].startswith("http")
    assert "CC BY 4.0" in p["dataset_note"]


# ---------------------------------------------------------------- whole act via the portal


async def test_get_act_fetches_export_then_serves_locally(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_act", {"reference": "urn:nir:stato:legge:1990;241"})
        assert not err, p
        assert p["served_from"] == "normattiva_portal" and p["stale"] is False
        assert [x.split("?")[0] for x in paths(srv)] == ["/uri-res/N2Ls", "/do/atto/caricaAKN"]
        assert "dataGU=19900818&codiceRedaz=090G0294" in paths(srv)[1]  # the link of the REAL page
        assert p["urn"] == L241 and p["human_readable_citation"] == "L. 7 agosto 1990, n. 241"
        assert p["eli_uri"] == "https://www.normattiva.it/eli/id/1990/08/18/090G0294/CONSOLIDATED/20260421"
        assert p["in_force_date"] == "2026-04-21" and p["article_count"] == 51
        assert "21-septies" in p["article_keys"]
        assert p["source_url"].endswith("/uri-res/N2Ls?" + L241)  # the act's full URN, not the partial one asked
        assert_contract(p)
        n = len(srv.requests)
        err, again = await call(app, "it_get_act", {"reference": "l. 241/1990"})
        assert not err and again["served_from"] == "local_index" and len(srv.requests) == n
        assert again["article_keys"] == p["article_keys"] and again["cached_versions"] == ["2026-04-21"]
        # the article now comes from the local index, no request
        err, art = await call(app, "it_get_text", {"reference": "l. 241/1990", "article": "21 septies"})
        assert not err and art["served_from"] == "local_index" and len(srv.requests) == n
        assert art["article"] == "21-septies" and art["heading"] == "Nullita' del provvedimento"
        assert art["human_readable_citation"] == "art. 21-septies L. 7 agosto 1990, n. 241"
        assert art["eli_uri"] == p["eli_uri"]


async def test_get_act_by_eli(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_act", {"reference": "eli/id/1990/08/18/090G0294/CONSOLIDATED"})
        assert not err and p["urn"] == L241
        assert paths(srv)[0] == "/eli/id/1990/08/18/090G0294/CONSOLIDATED"


# ---------------------------------------------------------------- one article via the OpenData API


async def test_get_text_api_article_stored_then_local(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "c.c.", "article": "2043"})
        assert not err, p
        assert p["served_from"] == "normattiva_api" and p["urn"] == CC
        assert p["heading"] == "Risarcimento per fatto illecito"
        assert p["text"].startswith("Qualunque fatto doloso o colposo, che cagiona ad altri un danno ingiusto")
        assert p["human_readable_citation"] == "art. 2043 c.c."
        assert_contract(p)
        (method, path, headers), = srv.requests
        assert (method, path) == ("POST", API_PREFIX + "/atto/dettaglio-atto-urn")
        err, again = await call(app, "it_get_text", {"reference": CC, "article": "2043"})
        assert not err and again["served_from"] == "local_index" and len(srv.requests) == 1
        assert again["text"] == p["text"]


async def test_missing_article_is_not_found(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": L241, "article": "999"})
        assert err and p["code"] == "not_found", p  # the API's coordinates 404
        await call(app, "it_get_act", {"reference": L241})
        n = len(srv.requests)
        err, p = await call(app, "it_get_text", {"reference": L241, "article": "998"})
        assert err and p["code"] == "not_found" and "51 numbered articles" in p["valid"]
        assert len(srv.requests) == n  # a fresh complete copy answers without the network


async def test_missing_act_is_not_found(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "urn:nir:stato:legge:1990-08-07;9999", "article": "1"})
        assert err and p["code"] == "not_found", p
        err, p = await call(app, "it_get_act", {"reference": "urn:nir:stato:legge:1990-08-07;9999"})
        assert err and p["code"] == "not_found", p  # portal 'Errore' page confirmed by the API
        assert "does not exist" in p["message"]


async def test_ambiguous_urn_takes_the_original_publication(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "urn:nir:stato:legge:2001-12-28;448", "article": "2"})
        assert not err, p
        assert p["served_from"] == "normattiva_api" and p["in_force_date"] == "2002-01-01"
        assert any("original publication" in n and "GU n. 301" in n for n in p["notes"])


async def test_api_answer_unknown_to_api_is_checked_against_the_portal(testdata, make_settings):
    """The API's 'atto non trovato' for an existing act's article (extension forms) is not final."""
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "d.lgs. 231/2001", "article": "25-bis.1"})
        assert not err, p
        assert p["served_from"] == "normattiva_portal" and p["in_force_date"] == "2026-06-02"
        assert any("portal" in n for n in p["notes"])


# ---------------------------------------------------------------- faults


@pytest.mark.parametrize("fault", ["waf", "waf_empty", "http500", "http503", "timeout"])
async def test_faults_give_upstream_unavailable(testdata, make_settings, fault):
    async with session(testdata, make_settings) as (srv, app):
        srv.set_fault(fault)
        err, p = await call(app, "it_get_text", {"reference": "c.c.", "article": "2043"})
        assert err and p["code"] == "upstream_unavailable", p
        err, p = await call(app, "it_get_act", {"reference": L241})
        assert err and p["code"] == "upstream_unavailable", p
        assert not app.statutes.list_acts()


async def test_waf_with_cached_copy_serves_stale(testdata, make_settings):
    async with session(testdata, make_settings, statute_ttl_days="0") as (srv, app):
        assert not (await call(app, "it_get_text", {"reference": "c.c.", "article": "2043"}))[0]
        assert not (await call(app, "it_get_act", {"reference": L241}))[0]
        srv.set_fault("waf")
        err, p = await call(app, "it_get_text", {"reference": "c.c.", "article": "2043"})
        assert not err and p["stale"] is True and p["served_from"] == "local_index"
        assert "could not be reached" in p["version_note"] and p["text"].startswith("Qualunque fatto")
        err, p = await call(app, "it_get_act", {"reference": L241})
        assert not err and p["stale"] is True and p["served_from"] == "local_index"
        err, p = await call(app, "it_get_text", {"reference": L241, "article": "2"})
        assert not err and p["stale"] is True and p["heading"] == "Conclusione del procedimento"


async def test_ttl_freshness(testdata, make_settings):
    async with session(testdata, make_settings, statute_ttl_days="0") as (srv, app):
        await call(app, "it_get_act", {"reference": L241})
        err, p = await call(app, "it_get_act", {"reference": L241})
        assert not err and p["served_from"] == "normattiva_portal"  # expired at once: fetched again
    async with session(testdata, make_settings, statute_ttl_days="30") as (srv, app):
        err, p = await call(app, "it_get_act", {"reference": L241})  # same home: cached above
        assert not err and p["served_from"] == "local_index" and srv.requests == []


async def test_identity_mismatch_never_serves_another_act(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        # the portal answers the L. 241/1990 page for this wrong date (observed behaviour)
        err, p = await call(app, "it_get_act", {"reference": "urn:nir:stato:legge:1991-08-07;241"})
        assert err and p["code"] == "identity_mismatch", p
        assert p["details"]["returned"] == L241
        err, p = await call(app, "it_get_text", {"reference": "urn:nir:stato:legge:1991-08-07;241"})
        assert err and p["code"] == "identity_mismatch"
        assert app.statutes.list_acts() == []


# ---------------------------------------------------------------- point in time


def _export(testdata, name):
    return parse_act((testdata / AKN / name).read_bytes())


async def test_point_in_time_dlgs_231(testdata, make_settings):
    old = _export(testdata, "scabopdf__dlgs_231_2001.xml")  # ELI .../20260124
    new = _export(testdata, "mcp-legal-it__dlgs_231_2001.xml")  # ELI .../20260602
    async with session(testdata, make_settings) as (srv, app):
        for key in ("25-bis.1", "25-undecies"):
            assert old.article(key).text != new.article(key).text
            err, a = await call(app, "it_get_text", {"reference": D231, "article": key, "at_date": "2026-02-01"})
            assert not err, a
            assert a["in_force_date"] == "2026-01-24" and a["text"] == old.article(key).text
            assert a["eli_uri"].endswith("/CONSOLIDATED/20260124") and a["at_date"] == "2026-02-01"
            err, b = await call(app, "it_get_text", {"reference": D231, "article": key, "at_date": "2026-06-05"})
            assert not err and b["in_force_date"] == "2026-06-02" and b["text"] == new.article(key).text
            assert b["eli_uri"].endswith("/CONSOLIDATED/20260602")
        assert "dataVigenza=20260201" in " ".join(paths(srv))
        # an exact version date is then answered locally
        n = len(srv.requests)
        err, c = await call(app, "it_get_text", {"reference": D231, "article": "25-bis.1", "at_date": "2026-01-24"})
        assert not err and c["served_from"] == "local_index" and c["text"] == old.article("25-bis.1").text
        assert len(srv.requests) == n
        err, act = await call(app, "it_get_act", {"reference": D231})
        assert sorted(act["cached_versions"]) == ["2026-01-24", "2026-06-02"]


async def test_point_in_time_codice_penale(testdata, make_settings):
    old = _export(testdata, "scabopdf__codice_penale.xml")  # 20260507
    new = _export(testdata, "mcp-legal-it__codice_penale.xml")  # 20260602
    async with session(testdata, make_settings) as (srv, app):
        err, a = await call(app, "it_get_act", {"reference": "codice penale", "at_date": "2026-05-10"})
        assert not err and a["in_force_date"] == "2026-05-07" and a["article_count"] == len(old.articles)
        assert "452-bis.1" not in a["article_keys"]
        err, b = await call(app, "it_get_act", {"reference": "c.p.", "at_date": "2026-06-10"})
        assert not err and b["in_force_date"] == "2026-06-02" and "452-bis.1" in b["article_keys"]
        for at, exp in (("2026-05-07", old), ("2026-06-02", new)):
            err, t = await call(app, "it_get_text", {"reference": CP, "article": "452-bis", "at_date": at})
            assert not err and t["served_from"] == "local_index" and t["text"] == exp.article("452-bis").text
        assert old.article("452-bis").text != new.article("452-bis").text


async def test_missing_article_hint_gives_the_numbered_range_apart_from_other_provisions(testdata, make_settings):
    """The codice penale's export opens with the approving decree's articles (dec-1 …): the hint
    says the articles run from 1 to 734-bis, not "from dec-1"."""
    async with session(testdata, make_settings) as (srv, app):
        err, a = await call(app, "it_get_act", {"reference": "codice penale", "at_date": "2026-06-10"})
        assert not err, a
        err, p = await call(app, "it_get_text", {"reference": CP, "article": "999", "at_date": "2026-06-10"})
        assert err and p["code"] == "not_found", p
        assert "numbered articles, from 1 to 734-bis" in p["valid"] and "other provisions (dec-1" in p["valid"]


# ---------------------------------------------------------------- paging and formats


async def _collect(app, args, size):
    parts, offset, total = [], 0, None
    while True:
        err, p = await call(app, "it_get_text", {**args, "max_chars": size, "offset": offset})
        assert not err, p
        assert len(p["text"]) <= size and p["offset"] == offset
        total = p["total_chars"]
        parts.append(p["text"])
        if p["next_offset"] is None:
            break
        assert p["next_offset"] == offset + len(p["text"])
        offset = p["next_offset"]
    full = "".join(parts)
    assert len(full) == total
    return full, len(parts)


async def test_paging_never_loses_a_character(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        await call(app, "it_get_act", {"reference": L241})
        whole, pages = await _collect(app, {"reference": L241}, 7919)
        assert pages > 3 and whole.startswith("Art. 1. - Principi generali")
        act = _export(testdata, "mcp-legal-it__legge_241_1990.xml")
        for a in act.articles:
            assert a.text in whole
        xml, _ = await _collect(app, {"reference": L241, "format": "akn_xml"}, 50_000)
        assert xml == (testdata / AKN / "mcp-legal-it__legge_241_1990.xml").read_bytes().decode("utf-8")
        art, pages = await _collect(app, {"reference": L241, "article": "21-septies"}, 97)
        assert pages > 1 and art == act.article("21-septies").text
        err, p = await call(app, "it_get_text", {"reference": L241, "article": "21-septies", "max_chars": 97})
        assert p["commi"] == []  # commi only travel with an unpaged answer
        err, p = await call(app, "it_get_text", {"reference": L241, "article": "21-septies"})
        assert p["commi"] and p["next_offset"] is None


@pytest.mark.parametrize("args", [
    {"reference": "qualcosa di strano"},
    {"reference": ""},
    {"reference": "urn:nir:stato:legge:19x0;241"},
    {"reference": "eli/id/1990/xx/18"},
    {"reference": "https://example.org/uri-res/N2Ls?urn:nir:stato:legge:1990-08-07;241"},
    {"reference": "c.c.", "article": "2043", "at_date": "2999-01-01"},
    {"reference": "c.c.", "article": "2043", "max_chars": 0},
    {"reference": "c.c.", "article": "2043", "format": "pdf"},
])
async def test_bad_input_is_typed(testdata, make_settings, args):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", args)
        assert err and p["code"] == "invalid_arg" and p["valid"], p
        assert srv.requests == []  # refused before any network


async def test_offset_beyond_the_text(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_get_text", {"reference": "c.c.", "article": "2043", "offset": 10_000})
        assert err and p["code"] == "invalid_arg" and "next_offset" in p["valid"]


async def test_list_codes_and_resolve(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_list_codes", {})
        assert not err and any(c["urn"] == CP and c["abbreviation"] == "c.p." for c in p["codes"])
        await call(app, "it_get_act", {"reference": L241})
        err, r = await call(app, "it_resolve", {"act_type": "l.", "year": 1990, "number": 241, "article": "21-septies"})
        assert not err and r["act_urn"] == L241 and r["eli_uri"].endswith("090G0294/CONSOLIDATED/20260421")
        assert json.dumps(r)  # plain builtins


async def test_search_statutes_tool(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        await call(app, "it_get_act", {"reference": L241})
        err, p = await call(app, "it_search_statutes", {"query": "conclusione del procedimento", "act": "l. 241/1990"})
        assert not err and p["hits"][0]["article"] == "2" and "**conclusione**" in p["hits"][0]["snippet"].lower()
        err, p = await call(app, "it_search_statutes", {"query": "omicidio", "act": "c.p."})
        assert err and p["code"] == "not_found"  # not fetched yet: says so, does not fetch
        err, p = await call(app, "it_search_statutes", {"query": "il la di"})
        assert err and p["code"] == "query_error"
        err, p = await call(app, "it_search_statutes", {"query": "procedimento", "limit": 0})
        assert err and p["code"] == "invalid_arg"


@pytest.mark.parametrize(
    "reference,article,citation",
    [
        ("decreto legislativo 8 giugno 2001, n. 231", "25-bis.1", "art. 25-bis.1 D.Lgs. 8 giugno 2001, n. 231"),
        ("legge 7 agosto 1990, n. 241", "21 septies", "art. 21-septies L. 7 agosto 1990, n. 241"),
        ("L. 241/90", "2", "art. 2 L. 7 agosto 1990, n. 241"),
        ("art. 575 c.p.", None, "art. 575 c.p."),
        ("art. 3 della Costituzione", None, "art. 3 Cost."),
        ("cod. pen.", "52", "art. 52 c.p."),
    ],
)
async def test_references_written_as_lawyers_cite(testdata, make_settings, reference, article, citation):
    """The exports are imported; with Normattiva switched off every reference form is served locally."""
    from it_eli.search.statutes.loading import import_files

    settings = make_settings(normattiva_url="http://127.0.0.1:9", normattiva_api_url="http://127.0.0.1:9/api",
                             http_timeout="1", http_retries="0")
    files = [testdata / AKN / n for n in ("mcp-legal-it__dlgs_231_2001.xml", "mcp-legal-it__legge_241_1990.xml",
                                           "mcp-legal-it__codice_penale.xml", "mcp-legal-it__costituzione.xml")]
    assert not import_files(settings, [str(f) for f in files]).errors
    app = App(settings)
    try:
        args = {"reference": reference, "max_chars": 500}
        if article:
            args["article"] = article
        err, p = await call(app, "it_get_text", args)
    finally:
        await app.close()
    assert not err, p
    assert p["human_readable_citation"] == citation and p["served_from"] == "local_index"
    assert_contract(p)


async def test_resolve_refuses_two_descriptions_of_the_act(testdata, make_settings):
    async with session(testdata, make_settings) as (srv, app):
        err, p = await call(app, "it_resolve", {"reference": "l. 241/1990", "act_type": "d.lgs.", "year": 2001, "number": 231})
        assert err and p["code"] == "invalid_arg" and "not both" in p["message"]
        err, p = await call(app, "it_resolve", {"reference": "l. 241/1990", "article": "2"})
        assert not err and p["act_urn"].endswith(";241")
