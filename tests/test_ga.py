"""Giustizia Amministrativa: pure parsing of the real captures, the token, and URL refusal."""

from __future__ import annotations

import pytest

from it_eli import ga
from it_eli.errors import InvalidArg, UpstreamChanged

MDP = "https://mdp.giustizia-amministrativa.it"
GOOD = MDP + "/visualizza/?nodeRef=&schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html&subDir=Provvedimenti"

# SELF-WRITTEN (no capture of the GET page exists): the shape a Liferay 7 portal serves, with
# the token in a script (`Liferay.authToken`) and in the portlet's action URL (`p_auth=`).
LIFERAY_PAGE_SCRIPT = """<!DOCTYPE html><html><head><script>
Liferay.currentURL = '/web/guest/dcsnprr'; Liferay.authToken = 'Ab12Cd34';
</script></head><body><form method="post" action="/web/guest/dcsnprr"></form></body></html>"""
LIFERAY_PAGE_ACTION = """<!DOCTYPE html><html><body>
<form id="_decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10_provvedimentiForm"
 action="https://www.giustizia-amministrativa.it/web/guest/dcsnprr?p_p_id=decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10&amp;p_p_lifecycle=1&amp;p_auth=Zz99Yy88" method="post">
</form></body></html>"""


def test_p_auth_from_script_or_action_url():
    assert ga.extract_p_auth(LIFERAY_PAGE_SCRIPT) == "Ab12Cd34"
    assert ga.extract_p_auth(LIFERAY_PAGE_ACTION.encode()) == "Zz99Yy88"
    with pytest.raises(UpstreamChanged):
        ga.extract_p_auth("<html><body>Manutenzione</body></html>")


def test_search_page_capture(testdata):
    total, hits = ga.parse_search_page((testdata / "ga" / "it-eli-mcp__ga_search_sample.html").read_bytes(), MDP)
    assert total == 1128 and len(hits) == 2
    h = hits[0]
    assert h.ecli == "ECLI:IT:TARLAZ:2026:11970SENT"
    assert (h.sede, h.section, h.decision_type, h.number, h.year) == ("ROMA", "SEZIONE 1B", "SENTENZA", "202611970", 2026)
    assert h.registro_generale == "202515527"
    assert h.document_url == GOOD and h.source_url == GOOD and not h.pdf_only
    assert "⟦Responsabilita⟧" in h.snippet


def test_unknown_page_is_upstream_changed():
    with pytest.raises(UpstreamChanged):
        ga.parse_search_page(b"<html><body><h1>Errore</h1></body></html>", MDP)
    assert ga.parse_search_page(b"<html><body>Nessun risultato trovato</body></html>", MDP) == (0, [])


def test_decision_xml_capture(testdata):
    meta, text, sections = ga.parse_decision_xml((testdata / "ga" / "it-eli-mcp__ga_document_sample.xml").read_bytes())
    assert meta.numero == "11970" and meta.anno == 2026 and meta.tipologia == "Sentenza"
    assert meta.registro_generale == "15527/2025" and meta.data_pubblicazione == "2026-07-01"
    assert meta.urn.startswith("urn:nir:tar.lazio") and "Lazio" in meta.court
    names = [s.name for s in sections]
    assert names == ["epigrafe", "fatto_e_diritto", "dispositivo", "sottoscrizioni"]
    disp = next(s for s in sections if s.name == "dispositivo")
    assert text[disp.start : disp.start + disp.length].startswith("DISPOSITIVO\nP.Q.M.")
    fd = next(s for s in sections if s.name == "fatto_e_diritto")
    assert "FATTO" in text[fd.start : fd.start + fd.length] and "DIRITTO" in text[fd.start : fd.start + fd.length]


def test_decision_xml_is_parsed_safely():
    xxe = b"""<?xml version="1.0"?><!DOCTYPE GA [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<GA><Provvedimento><dispositivo><div>P.Q.M. &x;</div></dispositivo></Provvedimento></GA>"""
    _, text, _ = ga.parse_decision_xml(xxe)
    assert "root:" not in text
    with pytest.raises(UpstreamChanged):
        ga.parse_decision_xml(b"<!DOCTYPE html><html><body>Errore</body></html>")
    with pytest.raises(UpstreamChanged):
        ga.parse_decision_xml(b"<GA><Provvedimento><dispositivo>")
    with pytest.raises(UpstreamChanged):
        ga.parse_decision_xml(b"<other/>")


def test_good_url_is_rebuilt_canonically():
    assert ga.check_document_url(GOOD, MDP) == GOOD
    shuffled = MDP + "/visualizza/?nrg=202515527&schema=tar_rm&nomeFile=202611970_01.html"
    assert ga.check_document_url(shuffled, MDP) == GOOD
    pdf = MDP + "/visualizza/?nodeRef=&schema=cds&nrg=202400001&nomeFile=202500123_11.pdf&subDir=Provvedimenti"
    assert ga.is_pdf_url(ga.check_document_url(pdf, MDP))


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.com/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "http://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "file:///etc/passwd",
        "ftp://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it@evil.com/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://user:pw@mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it:8443/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it.evil.com/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it/visualizzah2/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it/visualizza/../admin?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=../../etc/passwd",
        "https://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527",
        "https://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=1&nrg=2&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html&url=http://evil",
        "https://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html#x",
        "https://[::1]/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        "https://mdp.giustizia-amministrativa.it:notaport/visualizza/",
        "",
        "x" * 2000,
    ],
)
def test_refused_urls(url):
    with pytest.raises(InvalidArg) as exc:
        ga.check_document_url(url, MDP)
    assert exc.value.valid


def test_sede_and_tipo():
    assert ga.resolve_sede("TAR Milano") == "Milano" and ga.resolve_sede("cds") == "Consiglio di Stato"
    assert ga.resolve_tipo("Sentenza") == "Sentenza"
    with pytest.raises(InvalidArg):
        ga.resolve_sede("Atlantide")
    with pytest.raises(InvalidArg):
        ga.resolve_tipo("lettera")
