"""Giustizia Amministrativa: pure parsing of the real captures, the token, and URL refusal."""

from __future__ import annotations

import msgspec
import pytest

from it_eli.sources import ga
from it_eli.runtime.errors import InvalidArg, UpstreamChanged

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
    assert (h.sede, h.section, h.decision_type, h.number, h.year) == ("Roma", "I-bis", "Sentenza", "11970", 2026)
    assert h.portal_number == "202611970" and h.region == "Lazio" and h.court == "T.A.R. Lazio, Roma"
    assert h.citation == "T.A.R. Lazio, Roma, sez. I-bis, sent. n. 11970/2026"
    assert hits[1].citation == "T.A.R. Lazio, Roma, sez. IV-quater, sent. n. 11314/2026"
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


@pytest.mark.parametrize(
    ("written", "sede"),
    [
        ("Cons. Stato", "Consiglio di Stato"), ("Consiglio di Stato", "Consiglio di Stato"), ("CdS", "Consiglio di Stato"),
        ("C.d.S.", "Consiglio di Stato"), ("CGA", "C.G.A.R.S"), ("C.G.A.", "C.G.A.R.S"), ("C.G.A.R.S.", "C.G.A.R.S"),
        ("Consiglio di Giustizia Amministrativa per la Regione Siciliana", "C.G.A.R.S"),
        ("L’Aquila", "L'Aquila"), ("L'Aquila", "L'Aquila"), ("TAR Abruzzo, L'Aquila", "L'Aquila"),
        ("TRGA Trento", "Trento"), ("T.R.G.A. Bolzano", "Bolzano"), ("TAR Lazio, Roma", "Roma"),
        ("T.A.R. Lazio - Roma", "Roma"), ("tar lazio - roma", "Roma"), ("T.A.R. per il Lazio, sede di Roma", "Roma"),
        ("T.A.R. Lombardia, Milano", "Milano"), ("TAR Lombardia sezione staccata di Brescia", "Brescia"),
        ("Tar Catania", "Catania"), ("TAR Toscana", "Firenze"), ("Molise", "Campobasso"), ("T.A.R. Sardegna", "Cagliari"),
        ("TAR Friuli-Venezia Giulia", "Trieste"), ("Valle d'Aosta", "Aosta"), ("TAR Reggio Calabria", "Reggio Calabria"),
        ("roma", "Roma"), ("TARBS", "Brescia"),
        # as legal databases print it (no "di"), also with the section after a comma
        ("Consiglio Stato", "Consiglio di Stato"), ("Consiglio Stato, sez. IV", "Consiglio di Stato"),
    ],
)
def test_sede_as_lawyers_write_it(written, sede):
    assert ga.resolve_sede(written) == sede


@pytest.mark.parametrize(
    ("written", "seats"),
    [("TAR Lazio", ["Roma", "Latina"]), ("T.A.R. Lazio", ["Roma", "Latina"]), ("Lazio", ["Roma", "Latina"]),
     ("TAR Lombardia", ["Milano", "Brescia"]), ("Sicilia", ["Palermo", "Catania"])],
)
def test_region_with_two_seats_asks_which(written, seats):
    with pytest.raises(InvalidArg) as exc:
        ga.resolve_sede(written)
    assert all(f"'{s}'" in exc.value.valid for s in seats)


def test_unknown_sede_lists_the_forms():
    with pytest.raises(InvalidArg) as exc:
        ga.resolve_sede("TAR Lazio, Milano")
    assert "Lombardia" in exc.value.valid
    with pytest.raises(InvalidArg) as exc:
        ga.resolve_sede("Tribunale di Atlantide")
    assert "Cons. Stato" in exc.value.valid and "Lombardia = Milano + Brescia" in exc.value.valid


@pytest.mark.parametrize(
    ("raw", "label"),
    [("SEZIONE 1B", "I-bis"), ("SEZIONE 4Q", "IV-quater"), ("SEZIONE 5", "V"), ("Sezione Prima Bis", "I-bis"),
     ("IV", "IV"), ("4", "IV"), ("quarta", "IV"), ("I-bis", "I-bis"), ("1 bis", "I-bis"), ("sez. III-quater", "III-quater"),
     ("ADUNANZA PLENARIA", "Ad. plen."), ("Ad. plen.", "Ad. plen."), ("SEZIONE GIURISDIZIONALE", "giurisd."),
     ("nessuna", None), ("SEZIONE 99", None)],
)
def test_sections(raw, label):
    assert ga.section_label(raw) == label


@pytest.mark.parametrize(
    ("args", "citation"),
    [
        (("Roma", "I-bis", "Sentenza", "11970", 2026), "T.A.R. Lazio, Roma, sez. I-bis, sent. n. 11970/2026"),
        (("Consiglio di Stato", "IV", "SENTENZA", "123", 2021), "Cons. Stato, sez. IV, sent. n. 123/2021"),
        (("Consiglio di Stato", "Ad. plen.", "Sentenza", "17", 2021), "Cons. Stato, Ad. plen., sent. n. 17/2021"),
        (("C.G.A.R.S", None, "Sentenza", "296", 2023), "C.G.A.R.S., sez. giurisd., sent. n. 296/2023"),
        (("Brescia", "I", "Ordinanza", "12", 2024), "T.A.R. Lombardia, Brescia, sez. I, ord. n. 12/2024"),
        (("Trento", None, "Sentenza", "198", 2023), "T.R.G.A. Trento, sent. n. 198/2023"),
        (("Consiglio di Stato", "I", "Parere", "5", 2022), "Cons. Stato, sez. I, parere n. 5/2022"),
    ],
)
def test_italian_citation(args, citation):
    assert ga.ga_citation(*args) == citation


def test_number_and_year_split():
    assert ga.split_number("202611970", "ECLI:IT:TARLAZ:2026:11970SENT") == ("11970", 2026)
    assert ga.split_number("202605674", None) == ("5674", 2026)
    assert ga.split_number("12345", None) == ("12345", None)


def test_numero_forms():
    assert ga.resolve_numero(11970, None) == ("11970", None)
    assert ga.resolve_numero("11970", 2026) == ("11970", 2026)
    assert ga.resolve_numero("11970/2026", None) == ("11970", 2026)
    assert ga.resolve_numero("n. 11970 del 2026", None) == ("11970", 2026)
    assert ga.portal_numero("11970", 2026) == "202611970" and ga.portal_numero("5674", 2026) == "202605674"
    assert ga.portal_numero("11970", None) == "11970"
    for bad in ("12a", "-1", "0", True, 1.5):
        with pytest.raises(InvalidArg):
            ga.resolve_numero(bad, None)
    with pytest.raises(InvalidArg):
        ga.resolve_numero("11970/2026", 2025)


def test_ecli_is_built_only_when_every_part_is_sourced():
    assert ga.build_ecli("Roma", "Sentenza", "11970", 2026) == "ECLI:IT:TARLAZ:2026:11970SENT"  # = the capture's
    assert ga.build_ecli("Consiglio di Stato", "Sentenza", "855", 2023) == "ECLI:IT:CDS:2023:855SENT"
    assert ga.build_ecli("Roma", "Ordinanza", "1", 2026) is None  # ORD/OCAU/OCOL...: not guessed
    assert ga.build_ecli("Atlantide", "Sentenza", "1", 2026) is None


def test_decision_identity_from_the_capture(testdata):
    meta, _, _ = ga.parse_decision_xml((testdata / "ga" / "it-eli-mcp__ga_document_sample.xml").read_bytes())
    ident = ga.decision_identity(GOOD, meta)
    assert ident["citation"] == "T.A.R. Lazio, Roma, sez. I-bis, sent. n. 11970/2026"
    assert ident["ecli"] == "ECLI:IT:TARLAZ:2026:11970SENT" and ident["ecli_source"] == "built"
    assert ident["publication_date"] == "2026-07-01" and ident["number"] == "11970" and ident["year"] == 2026
    # without the URL's schema the court line gives the region (Lazio -> its main seat, Roma)
    other = GOOD.replace("schema=tar_rm", "schema=tar_xx")
    assert ga.decision_identity(other, meta)["court"] == "T.A.R. Lazio, Roma"
    brescia = msgspec.structs.replace(
        meta, court="Il Tribunale Amministrativo Regionale per la Lombardia sezione staccata di Brescia (Sezione Prima)",
        urn=None)
    ident = ga.decision_identity(other, brescia)
    assert ident["citation"] == "T.A.R. Lombardia, Brescia, sez. I, sent. n. 11970/2026"
    assert ident["ecli"] == "ECLI:IT:TARBS:2026:11970SENT"


# SELF-WRITTEN in the capture's markup: the pagination footer that public projects report is an
# `article.ricerca--item` too, and a Consiglio di Stato hit in the shape they recorded.
PAGER_AND_CDS = """<html><body><h2 class="h3">Trovati <strong>16297</strong> risultati</h2>
<article class="ricerca--item"><div class="ricerca--item__footer row">
<div class="col-sm-12"><a data-sede="cds" href="https://mdp.giustizia-amministrativa.it/visualizza/?nodeRef=&schema=cds&nrg=202401476&nomeFile=202605674_18.html&subDir=Provvedimenti" class="visited-provvedimenti clickable"></a></div>
<div class="col-sm-12"><b>ORDINANZA</b> sede di <b>CONSIGLIO DI STATO</b>, sezione <b>SEZIONE 5</b>, numero provv.: <b>202605674</b></div>
<div class="col-sm-12">Numero ricorso: <b>202401476</b></div>
<div class="col-sm-12"><b>ECLI:IT:CDS:2026:5674ORD</b></div>
</div></article>
<article class="ricerca--item"><div class="ricerca--item__footer row">
<div class="col-sm-12">Risultati da 1 a 20 di 16297 totali</div>
<div class="col-sm-12"><a href="#">Primo</a><a href="#">Successivo</a></div>
</div></article></body></html>"""


def test_pagination_footer_is_skipped_and_cds_hit_is_cited():
    total, hits = ga.parse_search_page(PAGER_AND_CDS.encode(), MDP)
    assert total == 16297 and len(hits) == 1
    h = hits[0]
    assert h.citation == "Cons. Stato, sez. V, ord. n. 5674/2026" and h.sede == "Consiglio di Stato"
    assert (h.number, h.year, h.ecli) == ("5674", 2026, "ECLI:IT:CDS:2026:5674ORD")


# ------------------------------------------------------------------ the portal's form and ECLI codes (issue: reported facts)

# SELF-WRITTEN in the reported shape of the portal's footer (a public project's real result page,
# not in the shared data): an `article.ricerca--item` with the range and `_cur` / `_delta` links.
FOOTER = (
    '<article class="ricerca--item"><div class="row"><div class="col-sm-12">Risultati da 1 a 10 di 84845 totali'
    '</div><div class="col-sm-12"><a href="/web/guest/dcsnprr?_' + ga.PORTLET_ID + '_cur=2&amp;_' + ga.PORTLET_ID
    + '_delta=20">2</a><a href="/web/guest/dcsnprr?_' + ga.PORTLET_ID + '_cur=3&amp;_' + ga.PORTLET_ID
    + '_delta=20">3</a></div></div></article>'
)


def test_pagination_footer_of_the_real_page_shape_is_never_a_hit(testdata):
    page = (testdata / "ga" / "it-eli-mcp__ga_search_sample.html").read_bytes()
    with_footer = page.replace(b"</body>", FOOTER.encode() + b"</body>")
    assert with_footer != page
    total, hits = ga.parse_search_page(with_footer, MDP)
    assert total == 1128 and hits == ga.parse_search_page(page, MDP)[1]
    assert len(hits) == 2 and all(h.ecli and h.document_url for h in hits)
    # an item that is neither a decision nor the footer is a changed page, not a silent skip
    odd = page.replace(b"</body>", b'<article class="ricerca--item"><div>Altro</div></article></body>')
    with pytest.raises(UpstreamChanged):
        ga.parse_search_page(odd, MDP)


REPORTED_SEDI = ("Consiglio di Stato", "C.G.A.R.S", "Ancona", "Venezia", "L'Aquila", "Latina", "Lecce", "Parma",
                 "Brescia", "Catania", "Salerno", "Pescara", "Reggio Calabria", "Bolzano", "Trento")


def test_the_portal_has_31_sede_options_and_each_is_accepted_as_it_is():
    assert len(ga.SEDE_OPTIONS) == len(set(ga.SEDE_OPTIONS)) == 31
    assert set(REPORTED_SEDI) <= set(ga.SEDE_OPTIONS)
    for option in ga.SEDE_OPTIONS:  # the portal's own value passes back unchanged
        assert ga.resolve_sede(option) == option
        assert ga.search_form("appalto", option, None, None, 20)[ga.NS + "sedeProvvedimenti"] == option


@pytest.mark.parametrize(("seat", "code"), [("Brescia", "TARBS"), ("Milano", "TARMI"), ("Napoli", "TARNA"),
                                             ("Catania", "TARCT"), ("Roma", "TARLAZ"), ("Trento", "TRGATN")])
def test_tar_ecli_codes_are_per_seat(seat, code):
    assert ga.build_ecli(seat, "Sentenza", "100", 2025) == f"ECLI:IT:{code}:2025:100SENT"
    assert ga.resolve_sede(code) == seat and ga.ECLI_COURTS[code] == seat


@pytest.mark.parametrize(("code", "listed"), [("TARLOM", "Milano = TARMI; Brescia = TARBS"),
                                               ("TARCAM", "Napoli = TARNA; Salerno = TARSA"),
                                               ("ECLI:IT:TARSIC", "Palermo = TARPA; Catania = TARCT")])
def test_region_wide_ecli_codes_do_not_exist(code, listed):
    assert not {"TARLOM", "TARCAM", "TARSIC"} & set(ga.ECLI_COURTS)
    with pytest.raises(InvalidArg) as exc:
        ga.resolve_sede(code)
    assert exc.value.valid == listed


@pytest.mark.internet
@pytest.mark.parametrize("sede", ga.SEDE_OPTIONS)
async def test_real_portal_answers_each_sede_with_its_own_ecli_code(make_settings, sede):
    """Run when the portal can be reached: each of the 31 options answers, and its hits' ECLI court
    code is the one it_eli holds for that seat (the reported per-seat codes, checked live)."""
    from it_eli.sources.http import HttpClient
    from it_eli.services import caselaw_live

    settings = make_settings(throttle_seconds="1.5", http_timeout="30")
    async with HttpClient(settings) as client:
        res = await caselaw_live.it_ga_search(client, settings, query="ricorso", sede=sede, tipo="sentenza")
    assert res.total_upstream > 0 and res.hits
    codes = {h.ecli.split(":")[2] for h in res.hits if h.ecli}
    assert codes and all(ga.ECLI_COURTS.get(c) == sede for c in codes), codes
