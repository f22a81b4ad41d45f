"""The live case-law tools, through the MCP code path (`registry.call`), against the local server
that replays the real captures at the upstream paths (tests/mcp/test_caselaw_live_tools.py `Upstream`).

One test (or a few) per defect found by QA: filters, GA citations, query operators, GA sede
names, upstream redirects, value hints, rate overflow, empty bodies, sic_id trimming, answer size.
Records marked SYNTHETIC are built from the real sample record with changed fields.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from aiohttp.test_utils import TestServer

from it_eli.services.app import App
from it_eli.mcp.budget import ENVELOPE_CHARS
from it_eli.services import caselaw_live
from it_eli.mcp.tools.registry import call
from tests.mcp.test_caselaw_live_tools import Upstream

NS = "_decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10_"
DOC = "/visualizza/?nodeRef=&schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html&subDir=Provvedimenti"
BUDGET = 20_000


@pytest.fixture
async def upstream(testdata):
    up = Upstream(testdata)
    up.server = TestServer(up.app(), host="127.0.0.1")
    await up.server.start_server()
    yield up
    await up.server.close()


@pytest.fixture
async def app(upstream, make_settings):
    apps: list[App] = []

    def _make(**overrides) -> App:
        base = upstream.base
        opts = {"http_timeout": "2", "http_retries": "0", "auto_build": "0", "max_answer_chars": str(BUDGET), **overrides}
        a = App(make_settings(sentenzeweb_url=base + "/sncass", ga_url=base, ga_document_url=base, **opts))
        apps.append(a)
        return a

    yield _make
    for a in apps:
        await a.close()


START = '((kind:"snciv" OR kind:"snpen"))'  # the court's start query, AND-ed into every search


def _search_q(upstream: Upstream) -> str:
    """The `q` of the last search request (`select?app.query...`; the facet request follows it)."""
    return next(dict(p)["q"] for u, p in zip(reversed(upstream.select_urls), reversed(upstream.params))
                if "app.query" in u)


def _size(out: dict) -> int:
    return len(json.dumps(out, ensure_ascii=False))


def _synthetic_record(testdata, sic_id: str, **fields) -> bytes:
    """SYNTHETIC: the real sample record with the id (and the fields given) changed."""
    rec = json.loads((testdata / "sentenzeweb" / "it-eli-mcp__cassazione_sample_solr_response.json").read_text())
    doc = rec["response"]["docs"][0]
    doc.update(id=sic_id, kind=sic_id[:5], anno=sic_id[5:9], szdec=sic_id[9], numdec=sic_id[10:-1], **fields)
    doc.pop("filename", None)
    rec["response"]["numFound"] = 1
    return json.dumps(rec).encode()


# ------------------------------------------------------------------ 1. filters


async def test_cassazione_section_and_decision_type_filters_reach_solr(app, upstream):
    a = app()
    err, out = await call(a, "it_cassazione_search", {"query": "danno", "chamber": "Civile", "section": "sezioni unite",
                                                       "decision_type": "Sentenza"})
    assert not err, out
    filters = ['kind:"snciv"', 'tipoprov:"Sentenza"', 'szdec:"U"']
    assert out["filters"] == filters
    assert _search_q(upstream) == " AND ".join(['(ocr:"danno")', START, *filters]) == out["solr_query"]
    for section, code in [("SU", "U"), ("S.U.", "U"), ("Lavoro", "L"), ("III", "3"), ("l", "L")]:
        err, out = await call(a, "it_cassazione_search", {"query": "danno", "section": section})
        assert not err and f'szdec:"{code}"' in out["filters"], (section, out)  # sent, or served from the cache
    err, out = await call(a, "it_cassazione_search", {"query": "danno", "sub_chamber": "Lavoro"})
    assert not err and out["filters"] == ['kind:"snciv"', 'szdec:"L"']


async def test_interlocutory_order_of_the_united_sections_is_asked_as_the_court_asks_it(app, upstream):
    """The acceptance case: the court's data writes `Ordinanza Interlocutoria` (capital I) and the
    united sections are `szdec` `U`; both go into `q`, never into `fq`."""
    err, out = await call(app(), "it_cassazione_search", {"query": "danno", "decision_type": "ordinanza interlocutoria",
                                                           "section": "SU"})
    assert not err, out
    q = _search_q(upstream)
    assert q == '(ocr:"danno") AND ' + START + ' AND tipoprov:"Ordinanza Interlocutoria" AND szdec:"U"'
    assert upstream.select_urls[-2].endswith("/select?app.query")  # no archive chosen: bare app.query
    assert not any(k == "fq" for p in upstream.params for k, _ in p)


async def test_bad_filter_values_list_the_valid_ones(app, upstream):
    a = app()
    n = len(upstream.requests)
    for args, listed in [({"section": "ottava"}, "sezioni unite"), ({"decision_type": "massima"}, "decreto"),
                         ({"chamber": "amministrativa"}, "penale"), ({"sub_chamber": "ottava"}, "lavoro")]:
        err, out = await call(a, "it_cassazione_search", {"query": "danno", **args})
        assert err and out["code"] == "invalid_arg" and listed in out["valid"], (args, out)
    assert len(upstream.requests) == n


async def test_ga_sezione_filter_is_applied_on_the_page(app, upstream):
    a = app()
    err, out = await call(a, "it_ga_search", {"query": "responsabilita", "sezione": "I bis"})
    assert not err and out["returned"] == 1 and out["hits"][0]["section"] == "I-bis"
    assert out["sezione_filter"] == "I-bis" and "sezione=I-bis" in out["note"]
    err, out = await call(a, "it_ga_search", {"query": "responsabilita", "sezione": "4Q"})
    assert not err and [h["number"] for h in out["hits"]] == ["11314"]
    err, out = await call(a, "it_ga_search", {"query": "responsabilita", "sezione": "diciottesima"})
    assert err and out["code"] == "invalid_arg" and "I-bis" in out["valid"]


# ------------------------------------------------------------------ 2. GA citations, numbers, ECLI


async def test_ga_hits_carry_split_number_and_italian_citation(app):
    err, out = await call(app(), "it_ga_search", {"query": "responsabilita"})
    assert not err
    h = out["hits"][0]
    assert (h["number"], h["year"], h["portal_number"]) == ("11970", 2026, "202611970")
    assert (h["sede"], h["section"], h["decision_type"]) == ("Roma", "I-bis", "Sentenza")
    assert h["citation"] == "T.A.R. Lazio, Roma, sez. I-bis, sent. n. 11970/2026"
    assert h["ecli"] == "ECLI:IT:TARLAZ:2026:11970SENT"


async def test_ga_decision_has_citation_ecli_and_date(app, upstream):
    a = app()
    err, direct = await call(a, "it_ga_get_decision", {"document_url": upstream.base + DOC, "max_chars": 500})
    assert not err
    assert direct["citation"] == "T.A.R. Lazio, Roma, sez. I-bis, sent. n. 11970/2026"
    assert direct["ecli"] == "ECLI:IT:TARLAZ:2026:11970SENT" and direct["ecli_source"] == "built"
    assert direct["publication_date"] == "2026-07-01" and (direct["number"], direct["year"]) == ("11970", 2026)
    b = app()
    err, out = await call(b, "it_ga_search", {"query": "responsabilita"})
    err, via_search = await call(b, "it_ga_get_decision", {"document_url": out["hits"][0]["document_url"], "max_chars": 500})
    assert not err and via_search["ecli_source"] == "portal" and via_search["ecli"] == out["hits"][0]["ecli"]
    assert via_search["citation"] == direct["citation"]


# ------------------------------------------------------------------ 3. operators


@pytest.mark.parametrize(
    ("query", "q"),
    [
        ('"danno biologico" OR "danno morale"', 'ocr:"danno biologico" OR ocr:"danno morale"'),
        ("danno -morale", 'ocr:"danno" AND NOT ocr:"morale"'),
        ("danno NOT morale", 'ocr:"danno" AND NOT ocr:"morale"'),
        ("(danno OR lesione) biologico", '(ocr:"danno" OR ocr:"lesione") AND ocr:"biologico"'),
        ('x" OR *:* OR "', 'ocr:"x" AND ocr:"OR *:* OR"'),  # the second quote opens a phrase
    ],
)
async def test_cassazione_operators_reach_solr_as_operators(app, upstream, query, q):
    err, out = await call(app(), "it_cassazione_search", {"query": query})
    assert not err and out["solr_query"] == f"({q}) AND {START}"
    assert _search_q(upstream) == f"({q}) AND {START}"


async def test_ga_query_with_operators_says_they_are_sent_as_typed(app, upstream):
    err, out = await call(app(), "it_ga_search", {"query": '"danno biologico" OR lesione'})
    assert not err and "sent as typed" in out["note"]
    assert upstream.posts[-1][NS + "searchtextProvvedimenti"] == '"danno biologico" OR lesione'


# ------------------------------------------------------------------ 4. sede as lawyers write it


@pytest.mark.parametrize(
    ("sede", "sent"),
    [("TAR Lazio, Roma", "Roma"), ("T.A.R. Lombardia, Milano", "Milano"), ("Cons. Stato", "Consiglio di Stato"),
     ("CGA", "C.G.A.R.S"), ("C.G.A.", "C.G.A.R.S"), ("L\u2019Aquila", "L'Aquila"), ("TRGA Trento", "Trento")],
)
async def test_ga_sede_names(app, upstream, sede, sent):
    err, out = await call(app(), "it_ga_search", {"query": "appalto", "sede": sede})
    assert not err and out["sede"] == sent
    assert upstream.posts[-1][NS + "sedeProvvedimenti"] == sent


async def test_ga_region_with_two_seats_asks(app, upstream):
    err, out = await call(app(), "it_ga_search", {"query": "appalto", "sede": "TAR Lombardia"})
    assert err and out["code"] == "invalid_arg" and "'Milano'" in out["valid"] and "'Brescia'" in out["valid"]
    assert upstream.posts == []


# ------------------------------------------------------------------ 5. redirects to a foreign host


@pytest.mark.parametrize(
    ("tool", "args"),
    [("it_cassazione_search", {"query": "danno"}), ("it_cassazione_get", {"sic_id": "snciv2021521018O"}),
     ("it_ga_search", {"query": "appalto"}), ("it_ga_get_decision", {"document_url": "{base}" + DOC})],
)
async def test_upstream_redirect_elsewhere_is_upstream_changed_and_served_stale(app, upstream, monkeypatch, tool, args):
    monkeypatch.setattr(caselaw_live, "DOCUMENT_CACHE_SECONDS", 0.2)
    args = {k: v.replace("{base}", upstream.base) if isinstance(v, str) else v for k, v in args.items()}
    upstream.mode = "redirect-evil"
    err, out = await call(app(), tool, args)
    assert err and out["code"] == "upstream_changed", out  # never invalid_arg: the caller did nothing wrong
    assert "api.normattiva.it" not in json.dumps(out)
    upstream.mode = "normal"
    a = app(search_cache_seconds="0.2")
    err, fresh = await call(a, tool, args)
    assert not err
    await asyncio.sleep(0.3)
    upstream.mode = "redirect-evil"
    err, stale = await call(a, tool, args)
    assert not err and stale["stale"] and "upstream_changed" in stale["stale_note"], stale


# ------------------------------------------------------------------ 6. value hints, numero as a number


async def test_case_insensitive_values_and_numeric_numero(app, upstream):
    a = app()
    for args in [{"chamber": "Civile"}, {"sub_chamber": "Lavoro"}, {"sub_chamber": "sezioni unite"}, {"chamber": "PENALE"}]:
        err, out = await call(a, "it_cassazione_search", {"query": "danno", **args})
        assert not err, (args, out)
    err, out = await call(a, "it_ga_search", {"numero": 11970})
    assert not err and upstream.posts[-1][NS + "numeroProvvedimenti"] == "11970"
    err, out = await call(a, "it_ga_search", {"numero": 11970, "anno": 2026})
    assert not err and upstream.posts[-1][NS + "numeroProvvedimenti"] == "202611970"
    err, out = await call(a, "it_ga_search", {"numero": "11970/2026"})
    assert not err and out["anno_filter"] == 2026 and out["returned"] == 2
    err, out = await call(a, "it_ga_search", {"numero": "11970/26"})
    assert err and out["code"] == "invalid_arg" and "11970/2026" in out["valid"]


# ------------------------------------------------------------------ 7. rate overflow


async def test_rate_overflow_says_when_to_retry(app, upstream):
    upstream.mode = "rate"
    err, out = await call(app(), "it_cassazione_search", {"query": "danno"})
    assert err and out["code"] == "upstream_unavailable"
    assert out["details"]["retry_after_seconds"] == 5 and out["valid"] == "retry after 5 s"


# ------------------------------------------------------------------ 8. empty body from the decision host


async def test_empty_decision_body_is_an_upstream_problem(app, upstream, monkeypatch):
    url = upstream.base + DOC.replace("nrg=202515527", "nrg=200000000")
    err, out = await call(app(), "it_ga_get_decision", {"document_url": url})
    assert err and out["code"] == "upstream_changed" and "not proof" in out["message"]


# ------------------------------------------------------------------ 9. sic_id trimmed


@pytest.mark.parametrize("sic_id", [" snciv2021521018O", "snciv2021521018O\n", "\tsnciv2021521018O  "])
async def test_sic_id_is_trimmed(app, upstream, sic_id):
    err, out = await call(app(), "it_cassazione_get", {"sic_id": sic_id, "max_chars": 200})
    assert not err and out["sic_id"] == "snciv2021521018O"
    assert dict(upstream.params[-1])["q"] == 'id:"snciv2021521018O"'


# ------------------------------------------------------------------ 10. every long field within the budget


async def test_huge_dispositivo_is_cut_and_paged_within_the_budget(app, upstream, testdata):
    sid = "snciv2020699999S"
    disp = "P.Q.M. " + 'rigetta il ricorso "x" \\ ' * 8000  # SYNTHETIC, ~200k characters, escape-heavy
    upstream.records[sid] = _synthetic_record(testdata, sid, ocr=['"\\\n\t\u0001 ' * 40000], ocrdis=[disp], tipoprov="Sentenza",
                                              materia=["M" * 5000] * 50, presidente=["P" * 5000])
    a = app()
    err, out = await call(a, "it_cassazione_get", {"sic_id": sid, "max_chars": BUDGET})
    assert not err and _size(out) <= BUDGET + ENVELOPE_CHARS, _size(out)
    assert out["dispositivo_truncated"] and out["dispositivo_chars"] == len(disp.strip()) and out["next_offset"]
    assert "part='dispositivo'" in out["note"] and out["citation"] == "Cass. civ., sez. VI, sent. n. 99999/2020"
    pages, offset = [], 0
    while offset is not None:
        err, p = await call(a, "it_cassazione_get", {"sic_id": sid, "part": "dispositivo", "offset": offset})
        assert not err and p["part"] == "dispositivo" and p["dispositivo"] is None
        assert _size(p) <= BUDGET + ENVELOPE_CHARS
        pages.append(p["text"])
        offset = p["next_offset"]
    assert "".join(pages) == disp.strip() and len(pages) > 1
    err, out = await call(a, "it_cassazione_get", {"sic_id": sid, "part": "massima"})
    assert err and out["code"] == "invalid_arg" and "dispositivo" in out["valid"]


async def test_search_answers_fit_the_budget_whatever_the_upstream_sends(app, upstream):
    docs = [{"id": f"snciv2026300{i:03d}O", "kind": "snciv", "anno": "2026", "szdec": "3", "numdec": f"300{i:03d}",
             "tipoprov": "Ordinanza", "materia": ["M" * 3000] * 40} for i in range(50)]  # SYNTHETIC
    hl = {d["id"]: {"ocr": ["<em>danno</em> " + "x" * 20000]} for d in docs}
    upstream.search_body = json.dumps({"response": {"numFound": 5000, "start": 0, "docs": docs}, "highlighting": hl,
                                       "facet_counts": {"facet_fields": {"anno": ["2026" * 100, 50]}}}).encode()
    err, out = await call(app(), "it_cassazione_search", {"query": "danno", "limit": 50})
    assert not err and _size(out) <= BUDGET + ENVELOPE_CHARS, _size(out)
    assert out["hits"] and out["next_offset"] == len(out["hits"])
    assert len(out["hits"]) == 50 or any("fit the answer size" in n for n in out["notes"])


async def test_the_tools_offset_is_sent_as_solrs_start(app, upstream):
    err, out = await call(app(), "it_cassazione_search", {"query": "danno", "limit": 2, "offset": 7})
    assert not err and (out["offset"], out["limit"], out["next_offset"]) == (7, 2, 9)
    search = dict(upstream.params[0])
    assert (search["start"], search["rows"]) == ("7", "2")


# ------------------------------------------------------------------ cosmetic: no object reprs in messages


async def test_connection_errors_have_no_object_reprs(make_settings):
    a = App(make_settings(sentenzeweb_url="https://127.0.0.1:9/sncass", http_retries="0", http_timeout="2", auto_build="0"))
    try:
        err, out = await call(a, "it_cassazione_search", {"query": "danno"})
    finally:
        await a.close()
    assert err and out["code"] == "upstream_unavailable"
    assert "object at 0x" not in out["message"], out["message"]
