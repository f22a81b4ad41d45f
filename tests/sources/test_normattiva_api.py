"""OpenData API: recorded answers replayed through the local server, plus the pure interpreter."""

from __future__ import annotations

import datetime as dt
import json

import aiohttp
import pytest

from it_eli.runtime.errors import (
    IdentityMismatch,
    InvalidArg,
    NotAvailable,
    NotFound,
    UpstreamChanged,
    UpstreamUnavailable,
)
from it_eli.sources.http import HttpClient
from it_eli.law.urn import parse_urn
from it_eli.sources.normattiva import api
from it_eli.runtime import clock
from it_eli.runtime.clock import frozen_today
from tests.normattiva_server import NormattivaServer

MCP = "normattiva-api/normattiva-mcp/tests/fixtures/risposte/"
LEG = "normattiva-api/legalize-pipeline/legalize-dev__legalize-pipeline__"
SDK = "normattiva-api/normattiva-sdk/tests/fixtures/"


@pytest.fixture
async def upstream(testdata, make_settings):
    async with NormattivaServer(testdata, sleep_seconds=1.5) as srv:
        settings = make_settings(**srv.settings_overrides(), http_timeout="0.5")
        async with HttpClient(settings) as client:
            yield srv, settings, client


async def test_code_article_gets_annex_automatically(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:regio.decreto:1942-03-16;262", article="2043")
    assert art.urn == "urn:nir:stato:regio.decreto:1942-03-16;262:2~art2043"
    assert art.article_key == "2043"
    assert art.heading == "Risarcimento per fatto illecito"
    assert art.text == (
        "Qualunque fatto doloso o colposo, che cagiona ad altri un danno ingiusto, obbliga colui che ha "
        "commesso il fatto a risarcire il danno."
    )
    assert (art.in_force_from, art.in_force_to) == ("1942-04-19", None)
    assert art.act_title == "REGIO DECRETO 16 marzo 1942, n. 262"
    assert (art.act_type, art.number, art.date, art.gu_date) == ("regio.decreto", "262", "1942-03-16", "1942-04-04")
    assert art.citation == "art. 2043 c.c."
    assert art.source_url == f"{srv.portal_url}/uri-res/N2Ls?urn:nir:stato:regio.decreto:1942-03-16;262~art2043"
    method, path, headers = srv.requests[0]
    assert method == "POST" and path.endswith("/atto/dettaglio-atto-urn")
    assert headers["Content-Type"].startswith("application/json") and headers["Accept"] == "application/json"


async def test_article_with_commi_and_update_notes(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241~art19")
    assert art.heading == "Segnalazione certificata di inizio attività - Scia"
    assert art.text.startswith("1. Ogni atto di autorizzazione")
    assert "AGGIORNAMENTO" not in art.text and any("AGGIORNAMENTO" in n for n in art.editorial_notes)
    assert "\n2. " in art.text  # one comma per line


async def test_point_in_time_window(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:legge:1970-12-01;898", article=5, at_date="2000-01-01")
    assert art.urn.endswith("~art5!vig=2000-01-01") and art.at_date == "2000-01-01"
    assert (art.in_force_from, art.in_force_to) == ("1987-03-12", "2023-02-27")
    assert art.in_force_from <= "2000-01-01" <= art.in_force_to
    assert api.next_version_date(art) == "2023-02-28"


async def test_original_version(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241", article=1, original=True)
    assert art.urn.endswith("~art1@originale")
    assert (art.in_force_from, art.in_force_to) == ("1990-09-02", "2005-03-07")
    assert art.preamble and "PROMULGA" in art.preamble and "PROMULGA" not in art.text


async def test_missing_article_is_not_found(upstream):
    srv, settings, client = upstream
    with pytest.raises(NotFound) as ei:
        await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241~art999")
    assert "article" in ei.value.message
    assert len(srv.requests) == 1  # never retried


async def test_missing_act_404_and_400_1003_are_not_found(upstream):
    srv, settings, client = upstream
    with pytest.raises(NotFound):
        await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;9999~art1")
    with pytest.raises(NotFound) as ei:
        await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;2410~art1")
    assert ei.value.details["upstream_code"] == "1003"
    assert len(srv.requests) == 2


async def test_ambiguous_urn_picks_original_publication(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:decreto.legislativo:2000-08-18;267~art42")
    assert art.candidates == 2 and art.gu_number == 227 and art.in_force_from == "2013-06-08"
    assert "republication" in art.notes[0]
    art = await api.fetch_article(client, settings, "urn:nir:stato:legge:2001-12-28;448~art2")
    assert art.candidates == 2 and art.gu_number == 301 and art.supplement == 285


def test_ambiguous_without_clear_original_is_reported(testdata):
    body = json.loads((testdata / SDK / "urn_ambiguo.json").read_bytes())
    for item in body["data"]["lista"]:  # both made to look original: nothing tells them apart
        item["articoloDataInizioVigenza"] = "20020101"
        item["sottoTitolo"] = "Disposizioni"
    with pytest.raises(NotAvailable) as ei:
        api.interpret_answer(200, "application/json", json.dumps(body).encode(), parse_urn("urn:nir:stato:legge:2001-12-28;448~art2"))
    assert len(ei.value.details["candidates"]) == 2


async def test_preamble_on_art1_is_separated(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:decreto.legislativo:2001-06-08;231~art1")
    assert art.heading == "Soggetti"
    assert art.text.startswith("1. Il presente decreto legislativo disciplina")
    assert art.preamble.startswith("IL PRESIDENTE DELLA REPUBBLICA") and "Visti gli" not in art.text
    assert any("preamble" in n for n in art.notes)
    # preamble written inside the Art. 1 block, lista form (D.Lgs. 36/2023)
    art = await api.fetch_article(client, settings, "urn:nir:stato:decreto.legislativo:2023-03-31;36~art1")
    assert art.heading == "Principio del risultato"
    assert art.text.startswith("1. Le stazioni appaltanti") and "EMANA" in art.preamble and art.candidates == 2


async def test_code_in_annex_repealed_truncated_not_yet(upstream):
    srv, settings, client = upstream
    cp = await api.fetch_article(client, settings, "urn:nir:stato:regio.decreto:1930-10-19;1398~art416bis")
    assert cp.urn.endswith(";1398:1~art416bis") and cp.article_key == "416-bis"
    assert cp.heading == "Associazioni di tipo mafioso anche straniere"
    assert "((da dieci a quindici anni))" in cp.text
    early = await api.fetch_article(client, settings, "urn:nir:stato:regio.decreto:1930-10-19;1398", "416-bis", "1981-01-01")
    assert early.not_yet_in_force and early.in_force_from is None and early.in_force_to == "1982-09-28"
    tuir = await api.fetch_article(client, settings, "urn:nir:stato:decreto.del.presidente.della.repubblica:1986-12-22;917~art51")
    assert tuir.repealed and tuir.future_version and tuir.in_force_from == "2027-01-01"
    big = await api.fetch_article(client, settings, "urn:nir:stato:legge:2016-12-11;232~art1")
    assert big.possibly_truncated
    cost = await api.fetch_article(client, settings, "urn:nir:stato:costituzione~art3")
    assert cost.urn == "urn:nir:stato:costituzione:1947-12-27~art3" and cost.citation == "art. 3 Cost."
    assert cost.text.startswith("Tutti i cittadini hanno pari dignità sociale")


async def test_text_keeps_apostrophe_accents_verbatim(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:decreto.legislativo:2001-06-08;231~art1")
    assert "responsabilita'" in art.act_subtitle  # served with apostrophe accents; not "corrected"
    assert "responsabilita degli enti" in art.text  # served without accent at all; kept as served


async def test_waf_409_is_upstream_unavailable(upstream):
    srv, settings, client = upstream
    srv.set_fault("waf", where="api")
    with pytest.raises(UpstreamUnavailable) as ei:
        await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241~art19")
    assert "WAF" in ei.value.message and ei.value.details["note"]
    srv.clear_faults()
    srv.set_fault("waf_empty", where="api")
    with pytest.raises(UpstreamUnavailable):
        await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241~art19")
    assert len(srv.requests) == 2  # not retried


async def test_get_never_sends_content_type(upstream):
    srv, settings, client = upstream
    types = await api.fetch_act_types(client, settings)
    assert types["PLL"] == "DECRETO LEGISLATIVO"
    assert "Content-Type" not in srv.requests[0][2]
    # the fake applies the WAF rule the real one does: a body-less GET with Content-Type -> 409
    async with aiohttp.ClientSession() as raw:
        async with raw.get(srv.api_url + api.ACT_TYPES_PATH, headers={"Content-Type": "application/json"}) as r:
            assert r.status == 409 and "bloccata" in await r.text()


async def test_500_is_unavailable_and_not_retried(upstream):
    srv, settings, client = upstream
    srv.set_fault("http500", where="api")
    with pytest.raises(UpstreamUnavailable) as ei:
        await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241~art19")
    assert ei.value.details["upstream_code"] == "1000" and "nothing about the norm" in ei.value.message
    assert len(srv.requests) == 1


async def test_timeout_and_503(upstream):
    srv, settings, client = upstream
    srv.set_fault("timeout", where="api")
    with pytest.raises(UpstreamUnavailable):
        await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241~art19")
    srv.clear_faults()
    srv.set_fault("http503", where="api", times=1)  # one 503, then the retry succeeds
    art = await api.fetch_article(client, settings, "urn:nir:stato:legge:1990-08-07;241~art19")
    assert art.article_key == "19"


async def test_invalid_requests_rejected_before_io(upstream):
    srv, settings, client = upstream
    for args in [("urn:nir:stato:legge:1990;241~art1",),  # partial URN: API needs the date
                 ("urn:nir:stato:legge:1990-08-07;241",),  # no article
                 ("eli/id/1990/08/18/090G0294/CONSOLIDATED", "1"),
                 ("urn:nir:stato:legge:1990-08-07;241", "1", "2005-13-45")]:  # the API would accept it
        with pytest.raises(InvalidArg):
            await api.fetch_article(client, settings, *args)
    assert srv.requests == []


# ---------------------------------------------------------------- pure interpreter on the raw captures


def _answer(testdata, rel):
    return (testdata / rel).read_bytes()


def test_interpret_404_coordinates_hints_annex(testdata):
    with pytest.raises(NotFound) as ei:
        api.interpret_answer(404, "application/json", _answer(testdata, MCP + "reale-404-coordinate.json"),
                             parse_urn("urn:nir:stato:regio.decreto:1942-03-16;262~art2043"))
    assert "262:2" in ei.value.valid and "042U0262" in ei.value.details["coordinates"]


def test_interpret_gateway_404_is_upstream_changed():
    body = b'{"code":"404","type":"Status report","message":"Runtime Error","description":"No matching resource found for given API Request"}'
    with pytest.raises(UpstreamChanged):
        api.interpret_answer(404, "application/json", body, parse_urn("urn:nir:stato:legge:1990-08-07;241~art1"))


def test_interpret_wrong_act_is_identity_mismatch(testdata):
    with pytest.raises(IdentityMismatch):  # the c.c. answer offered for a request about the c.p.
        api.interpret_answer(200, "application/json", _answer(testdata, MCP + "reale-atto-cc-2043.json"),
                             parse_urn("urn:nir:stato:regio.decreto:1930-10-19;1398:1~art2043"))
    with pytest.raises(IdentityMismatch):  # right act, other article
        api.interpret_answer(200, "application/json", _answer(testdata, MCP + "reale-atto-cc-2043.json"),
                             parse_urn("urn:nir:stato:regio.decreto:1942-03-16;262:2~art2044"))


def test_interpret_non_json_200_is_upstream_changed():
    with pytest.raises(UpstreamChanged):
        api.interpret_answer(200, "text/html", b"<html>", parse_urn("urn:nir:stato:legge:1990-08-07;241~art1"))


def test_code_article_parsing_variants(testdata):
    cc1 = api.interpret_answer(200, "application/json", _answer(testdata, MCP + "reale-atto-cc-1-primo-articolo-codice.json"),
                               parse_urn("urn:nir:stato:regio.decreto:1942-03-16;262:2~art1"))
    assert cc1.heading == "Capacità giuridica" and cc1.text.startswith("La capacità giuridica si acquista")
    assert cc1.preamble is None  # codes in annexes carry no preamble
    cc542 = api.interpret_answer(200, "application/json", _answer(testdata, MCP + "reale-atto-cc-542-rubrica-non-parentetica.json"),
                                 parse_urn("urn:nir:stato:regio.decreto:1942-03-16;262:2~art542"))
    assert cc542.heading == "Concorso di coniuge e figli"
    assert cc542.text.startswith("Se chi muore lascia, oltre al coniuge, un solo figlio, ((...)) a quest'ultimo")


def test_future_version_relative_to_today(testdata):
    body = _answer(testdata, MCP + "reale-abrogato-tuir-51.json")
    u = parse_urn("urn:nir:stato:decreto.del.presidente.della.repubblica:1986-12-22;917~art51")
    assert api.interpret_answer(200, "application/json", body, u, today=dt.date(2026, 8, 7)).future_version
    assert not api.interpret_answer(200, "application/json", body, u, today=dt.date(2027, 2, 1)).future_version


# ---------------------------------------------------------------- multi-version answers and code annexes


L234_ART1 = "urn:nir:stato:legge:2021-12-30;234~art1"


def test_lista_whose_first_version_starts_in_the_future_is_not_todays_text(testdata):
    """L. 234/2021: `atto: null`, a `lista` of the text (from 2027-01-01) and its republication."""
    body = _answer(testdata, LEG + "sample-with-tables.json")
    assert json.loads(body)["data"]["atto"] is None
    with frozen_today("2026-12-01"):  # the project's clock: "today" is 2026-12-01
        art = api.interpret_answer(200, "application/json", body, parse_urn(L234_ART1))
    assert art.candidates == 2 and art.supplement == 49  # the original publication, not the republication
    assert art.in_force_from == "2027-01-01" and art.future_version
    assert any("2027-01-01" in n and "!vig" in n for n in art.notes)
    assert any("republication" in n for n in art.notes)
    with frozen_today("2027-02-01"):
        assert not api.interpret_answer(200, "application/json", body, parse_urn(L234_ART1)).future_version


def test_a_version_starting_after_the_date_asked_is_never_that_dates_text(testdata):
    body = _answer(testdata, LEG + "sample-with-tables.json")
    with pytest.raises(NotAvailable) as ei:
        api.interpret_answer(200, "application/json", body, parse_urn(L234_ART1 + "!vig=2026-12-01"))
    assert ei.value.details["in_force_from"] == "2027-01-01" and "export" in ei.value.valid
    art = api.interpret_answer(200, "application/json", body, parse_urn(L234_ART1 + "!vig=2027-03-01"))
    assert art.in_force_from == "2027-01-01" and art.at_date == "2027-03-01"  # asked for that later date


async def test_future_version_is_asked_again_for_today_and_refused(upstream):
    srv, settings, client = upstream
    with frozen_today("2026-12-01"):
        art = await api.fetch_article(client, settings, L234_ART1)
        assert art.future_version
        with pytest.raises(NotAvailable) as ei:  # asked for today, answered the 2027 version
            await api.fetch_article(client, settings, L234_ART1, at_date=clock.today())
    assert ei.value.details["urn"] == L234_ART1 + "!vig=2026-12-01" and len(srv.requests) == 2


def test_code_without_its_annex_answers_the_approving_decree(testdata):
    """R.D. 262/1942 asked without `:2` answers art. 1 of the decree approving the Codice civile."""
    body = _answer(testdata, LEG + "sample-code.json")
    decree = api.interpret_answer(200, "application/json", body, parse_urn("urn:nir:stato:regio.decreto:1942-03-16;262~art1"))
    assert decree.text.startswith("È approvato il testo del Codice civile")
    assert any("262:2~art1" in n and "annex" in n for n in decree.notes)
    with pytest.raises(IdentityMismatch) as ei:  # the same body offered as the code's art. 1
        api.interpret_answer(200, "application/json", body, parse_urn("urn:nir:stato:regio.decreto:1942-03-16;262:2~art1"))
    assert "approving decree" in ei.value.message
    # what it_eli asks for the code's art. 1: the annex, whose answer is the code's article
    assert str(api.api_urn_for("urn:nir:stato:regio.decreto:1942-03-16;262", "1")) == \
        "urn:nir:stato:regio.decreto:1942-03-16;262:2~art1"


async def test_code_article_one_is_fetched_from_the_annex(upstream):
    srv, settings, client = upstream
    art = await api.fetch_article(client, settings, "urn:nir:stato:regio.decreto:1942-03-16;262", article="1")
    assert art.urn.endswith(";262:2~art1") and art.heading == "Capacità giuridica"
    assert not any("approves the code" in n for n in art.notes)


@pytest.mark.internet
async def test_live_annex_and_future_versions(make_settings):
    """The real API (run with -m internet): R.D. 262/1942 art. 1 without and with the annex, and
    L. 234/2021 art. 1 today (never a version that starts after today)."""
    settings = make_settings(throttle_seconds="1", http_timeout="30")
    async with HttpClient(settings) as client:
        code = await api.fetch_article(client, settings, "urn:nir:stato:regio.decreto:1942-03-16;262", "1")
        assert code.heading == "Capacità giuridica"
        try:
            art = await api.fetch_article(client, settings, L234_ART1, at_date=clock.today())
        except NotAvailable:
            return  # the API has no version of that date: said, never served as today's
        assert not art.future_version and (art.in_force_from or "") <= clock.today_iso()


@pytest.mark.internet
async def test_live_cc_2043(make_settings):
    """The real OpenData API (run with -m internet): art. 2043 c.c. through the annex form."""
    settings = make_settings(throttle_seconds="1", http_timeout="30")
    async with HttpClient(settings) as client:
        art = await api.fetch_article(client, settings, "urn:nir:stato:regio.decreto:1942-03-16;262", "2043")
    assert art.article_key == "2043" and "danno ingiusto" in art.text


async def test_budget_law_article_is_not_served_from_its_future_version(testdata, make_settings):
    """Through it_get_text: L. 234/2021 art. 1 on 2026-12-01 is never the 2027 version called current."""
    from it_eli.mcp.tools.registry import call
    from tests.services.test_legislation_evidence import replay

    with frozen_today("2026-12-01"):
        async with replay(testdata, make_settings) as (srv, app):
            err, p = await call(app, "it_get_text", {"reference": "art. 1 l. 234/2021"})
    assert err, p  # no text of today could be had here: said as a typed error, never the 2027 text
    assert p["code"] in ("upstream_unavailable", "not_available"), p
    assert "in force today" in p["message"] and "text" not in p
