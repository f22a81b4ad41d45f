"""Portal flow replayed through the local Normattiva server (real captures, real HttpClient)."""

from __future__ import annotations

import pytest

from it_eli.runtime.errors import (
    IdentityMismatch,
    InvalidArg,
    NotAvailable,
    UpstreamChanged,
    UpstreamUnavailable,
)
from it_eli.sources.http import HttpClient
from it_eli.sources.normattiva import portal
from it_eli.law.urn import parse_eli, parse_urn
from tests.normattiva_server import NormattivaServer

L241 = "urn:nir:stato:legge:1990-08-07;241"
D231 = "urn:nir:stato:decreto.legislativo:2001-06-08;231"
CP = "urn:nir:stato:regio.decreto:1930-10-19;1398"


# ---------------------------------------------------------------- pure


def test_find_akn_link_in_real_pages(testdata):
    page = (testdata / "normattiva-html/mcp-legal-it__landing_legge_241_1990.html").read_bytes()
    link = portal.find_akn_link(page)
    assert link == portal.AknLink(
        href="/do/atto/caricaAKN?dataGU=19900818&codiceRedaz=090G0294&dataVigenza=20260614",
        data_gu="19900818", codice_redazionale="090G0294", data_vigenza="20260614",
    )
    page = (testdata / "normattiva-html/emanuele__act_page__dl_2000-02-04_n8__000G0040.html").read_bytes()
    link = portal.find_akn_link(page)
    assert (link.data_gu, link.codice_redazionale, link.data_vigenza) == ("20000207", "000G0040", "20250705")


def test_find_akn_link_absent(testdata):
    assert portal.find_akn_link((testdata / "normattiva-html/ondata__normattiva_error_page__legge_2022_53.html").read_bytes()) is None
    assert portal.find_akn_link(b"<html><a href='/do/atto/caricaAKN?dataGU=x'>x</a></html>") is None


def test_is_error_page(testdata):
    assert portal.is_error_page((testdata / "normattiva-html/ondata__normattiva_error_page__legge_2022_53.html").read_bytes())
    assert not portal.is_error_page((testdata / "normattiva-html/mcp-legal-it__landing_legge_241_1990.html").read_bytes())


def test_sniff_identity_of_exports(testdata):
    ident = portal.sniff_identity((testdata / "normattiva-akn/mcp-legal-it__legge_241_1990.xml").read_bytes())
    assert (ident.act_type, ident.number, ident.date, ident.codice_redazionale, ident.gu_date, ident.version_date) == (
        "legge", "241", "1990-08-07", "090G0294", "1990-08-18", "2026-04-21")
    cost = portal.sniff_identity((testdata / "normattiva-akn/mcp-legal-it__costituzione.xml").read_bytes())
    assert cost.act_type == "costituzione"
    with pytest.raises(UpstreamChanged):
        portal.sniff_identity(b"<html>not akn</html>")


def test_check_identity(testdata):
    ident = portal.sniff_identity((testdata / "normattiva-akn/mcp-legal-it__legge_241_1990.xml").read_bytes())
    portal.check_identity(L241, ident)
    portal.check_identity("urn:nir:stato:legge:1990;241", ident)
    portal.check_identity(parse_eli("eli/id/1990/08/18/090G0294/CONSOLIDATED"), ident)
    for wrong in ["urn:nir:stato:legge:1991-08-07;241", "urn:nir:stato:legge:1990-08-07;242",
                  "urn:nir:stato:decreto.legislativo:1990-08-07;241", "urn:nir:stato:legge:1991;241",
                  "eli/id/1990/08/18/090G0295/CONSOLIDATED"]:
        with pytest.raises(IdentityMismatch) as ei:
            portal.check_identity(wrong, ident)
        assert "L. 7 agosto 1990, n. 241" in ei.value.message  # names the act that came back


def test_check_identity_against_parsed_act(testdata):
    akn = pytest.importorskip("it_eli.sources.normattiva.akn")
    act = akn.parse_act((testdata / "normattiva-akn/scabopdf__codice_penale.xml").read_bytes())
    portal.check_identity(CP, act.identity)
    with pytest.raises(IdentityMismatch):
        portal.check_identity("urn:nir:stato:regio.decreto:1942-03-16;262", act.identity)


# ---------------------------------------------------------------- through the server


@pytest.fixture
async def upstream(testdata, make_settings):
    async with NormattivaServer(testdata, sleep_seconds=1.5) as srv:
        settings = make_settings(**srv.settings_overrides(), http_timeout="0.5")
        async with HttpClient(settings) as client:
            yield srv, settings, client


async def test_l241_page_then_export(upstream, testdata):
    srv, settings, client = upstream
    got = await portal.fetch_act_xml(client, settings, L241)
    assert got.xml == (testdata / "normattiva-akn/mcp-legal-it__legge_241_1990.xml").read_bytes()
    assert got.akn_url.endswith("/do/atto/caricaAKN?dataGU=19900818&codiceRedaz=090G0294&dataVigenza=20260614")
    assert got.source_url == f"{srv.portal_url}/uri-res/N2Ls?{L241}"
    paths = [p for _, p, _ in srv.requests]
    assert paths == [f"/uri-res/N2Ls?{L241}", "/do/atto/caricaAKN?dataGU=19900818&codiceRedaz=090G0294&dataVigenza=20260614"]
    assert "JSESSIONID" in srv.requests[1][2].get("Cookie", "")  # same session


async def test_fetch_act_parses_and_checks(upstream):
    pytest.importorskip("it_eli.sources.normattiva.akn")
    srv, settings, client = upstream
    act, url = await portal.fetch_act(client, settings, L241)
    assert act.identity.number == "241" and act.article("21-septies") is not None
    assert url.endswith(L241)


async def test_partial_urn_and_eli_and_url(upstream):
    srv, settings, client = upstream
    got = await portal.fetch_act_xml(client, settings, "urn:nir:stato:legge:1990;241")
    assert got.identity.urn == L241
    got = await portal.fetch_act_xml(client, settings, "eli/id/1990/08/18/090G0294/CONSOLIDATED")
    assert got.identity.codice_redazionale == "090G0294"
    got = await portal.fetch_act_xml(client, settings, f"https://www.normattiva.it/uri-res/N2Ls?{L241}~art3")
    assert got.identity.number == "241"


async def test_point_in_time_dlgs_231(upstream):
    akn = pytest.importorskip("it_eli.sources.normattiva.akn")
    srv, settings, client = upstream
    old = await portal.fetch_act_xml(client, settings, D231, at_date="2026-03-01")
    new = await portal.fetch_act_xml(client, settings, D231, at_date="2026-06-10")
    assert old.identity.version_date == "2026-01-24" and "dataVigenza=20260301" in old.akn_url
    assert new.identity.version_date == "2026-06-02"
    old_act, new_act = akn.parse_act(old.xml), akn.parse_act(new.xml)
    for key in ("25-bis.1", "25-undecies"):
        assert old_act.article(key).text != new_act.article(key).text, key
    # the !vig= of a URN selects the date the same way; the ELI version date too
    via_urn = await portal.fetch_act_xml(client, settings, D231 + "!vig=2026-03-01")
    assert via_urn.identity.version_date == "2026-01-24"
    via_eli = await portal.fetch_act_xml(client, settings, "eli/id/2001/06/19/001G0293/CONSOLIDATED/20260124")
    assert via_eli.identity.version_date == "2026-01-24"


async def test_point_in_time_codice_penale(upstream, testdata):
    srv, settings, client = upstream
    may = await portal.fetch_act_xml(client, settings, CP, at_date="2026-05-20")
    june = await portal.fetch_act_xml(client, settings, "urn:nir:stato:regio.decreto:1930;1398", at_date="2026-06-02")
    assert may.xml == (testdata / "normattiva-akn/scabopdf__codice_penale.xml").read_bytes()
    assert june.xml == (testdata / "normattiva-akn/mcp-legal-it__codice_penale.xml").read_bytes()
    assert may.identity.eli.endswith("/20260507") and june.identity.eli.endswith("/20260602")


async def test_date_before_any_capture_is_not_available(upstream):
    srv, settings, client = upstream
    with pytest.raises(NotAvailable):
        await portal.fetch_act_xml(client, settings, D231, at_date="2010-01-01")


async def test_wrong_urn_returning_another_act_is_identity_mismatch(upstream):
    srv, settings, client = upstream
    with pytest.raises(IdentityMismatch) as ei:
        await portal.fetch_act_xml(client, settings, "urn:nir:stato:legge:1991-08-07;241")
    assert ei.value.details["returned"] == L241
    assert "1991-08-07" in ei.value.details["requested"]


async def test_wrong_urn_via_fetch_act_never_returns_text(upstream):
    srv, settings, client = upstream
    srv.wrong_urns["urn:nir:stato:decreto.legislativo:2001-06-08;232"] = "001G0293"
    with pytest.raises(IdentityMismatch):
        await portal.fetch_act(client, settings, "urn:nir:stato:decreto.legislativo:2001-06-08;232")


async def test_unknown_act_errore_page(upstream):
    srv, settings, client = upstream
    with pytest.raises(NotAvailable):
        await portal.fetch_act_xml(client, settings, "urn:nir:stato:legge:2022-04-27;53")


async def test_real_page_without_captured_export(upstream):
    srv, settings, client = upstream
    with pytest.raises(NotAvailable):  # the D.L. 8/2000 page is real; its export answers Errore
        await portal.fetch_act_xml(client, settings, "urn:nir:stato:decreto.legge:2000-02-04;8")


async def test_page_without_link_is_upstream_changed(upstream):
    srv, settings, client = upstream
    srv.drop_akn_link = True
    with pytest.raises(UpstreamChanged):
        await portal.fetch_act_xml(client, settings, L241)


async def test_timeout_is_upstream_unavailable(upstream):
    srv, settings, client = upstream
    srv.set_fault("timeout", where="portal")
    with pytest.raises(UpstreamUnavailable) as ei:
        await portal.fetch_act_xml(client, settings, L241)
    assert "timed out" in ei.value.message


@pytest.mark.parametrize("kind, attempts", [("http503", 2), ("http500", 1)])
async def test_5xx_is_upstream_unavailable(upstream, kind, attempts):
    srv, settings, client = upstream
    srv.set_fault(kind, where="portal")
    with pytest.raises(UpstreamUnavailable):
        await portal.fetch_act_xml(client, settings, L241)
    assert len(srv.requests) == attempts  # 503 retried once (IT_ELI_HTTP_RETRIES=1), 500 never


async def test_bad_references_rejected_before_io(upstream):
    srv, settings, client = upstream
    for bad in ["legge 241", "urn:nir:stato:legge:1990-02-30;241"]:
        with pytest.raises(InvalidArg):
            await portal.fetch_act_xml(client, settings, bad)
    with pytest.raises(InvalidArg):
        await portal.fetch_act_xml(client, settings, L241, at_date="2026-13-01")
    assert srv.requests == []


def test_parse_urn_of_export_alias_forms():
    # the AKN FRBRthis uses decreto-legge / decreto_legislativo, the urn:nir alias the dotted form
    assert parse_urn("urn:nir:stato:decreto-legge:2025-03-28;36").act_type == "decreto.legge"


@pytest.mark.internet
async def test_live_l241_portal_flow(make_settings):
    """The real portal (run with -m internet): page -> caricaAKN -> export of L. 241/1990."""
    settings = make_settings(normattiva_url="https://www.normattiva.it", throttle_seconds="1", http_timeout="60")
    async with HttpClient(settings) as client:
        got = await portal.fetch_act_xml(client, settings, L241)
    assert got.identity.urn == L241 and got.identity.codice_redazionale == "090G0294"
