"""The live case-law tools against a real local HTTP server replaying the real captures.

No mock of the client: a real aiohttp server answers at the upstream paths, the settings
point at it, and the tool functions are called as the MCP server will call them. The same
server injects faults (timeout, 5xx, 429, truncated JSON, HTML instead of JSON, redirects).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace

import msgspec
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from it_eli.runtime.config import load_settings
from it_eli.runtime.errors import InvalidArg, NotFound, QueryError, UpstreamChanged, UpstreamUnavailable
from it_eli.sources.http import HttpClient
from it_eli.sources import sentenzeweb
from it_eli.mcp.budget import json_cost
from it_eli.services import caselaw_live as tools
from it_eli.mcp.tools import live as live_tools
from it_eli.mcp.tools import paging
from tests import sentenzeweb_frontend as frontend

SELECT = "/sncass/isapi/hc.dll/sn.solr/sn-collection/select"
# `select?app.facet` answers the facet lists of this page rendered by the court's front-end
FACET_PAGE = "studiorizzo__sentenze.github.io__siti_Sentenze_Cassazione.html"
P_AUTH = "Tk5Hx2Qa"

# SELF-WRITTEN Liferay search page (no capture of the GET page exists): token in the script.
LIFERAY_PAGE = f"""<!DOCTYPE html><html><head><script>
Liferay.authToken = '{P_AUTH}';</script></head><body>
<form id="_decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10_provvedimentiForm"
 method="post" action="/web/guest/dcsnprr?p_p_id=decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10&amp;p_p_lifecycle=1&amp;p_auth={P_AUTH}"></form>
</body></html>"""

CASS_BY_ID = {
    'id:"snciv2021521018O"': "it-eli-mcp__cassazione_sample_solr_response.json",
    'id:"snciv2024310787O"': "visualex__italgiure_snciv_10787_2024.json",
    'id:"snpen2024710787O"': "visualex__italgiure_snpen_10787_2024.json",
}


class Upstream:
    """Both upstreams on one local server; `mode` selects a fault."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.mode = "normal"
        self.requests: list[web.Request] = []
        self.params: list[list[tuple[str, str]]] = []  # each select request: URL query + form body
        self.select_urls: list[str] = []  # each select request's path and query string
        self.facet_page: str = FACET_PAGE  # rendered front-end page whose facet lists app.facet replays
        self.posts: list[dict[str, str]] = []
        self.hits_429 = 0
        self.records: dict[str, bytes] = {}  # sic_id -> Solr answer (tests add SYNTHETIC records here)
        self.search_body: bytes | None = None  # a SYNTHETIC search answer served instead of the captures
        self.server: TestServer | None = None

    def cap(self, folder: str, name: str) -> bytes:
        return (self.data / folder / name).read_bytes()

    @property
    def base(self) -> str:
        return str(self.server.make_url("")).rstrip("/")

    async def select(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(request)
        form = list((await request.post()).items()) if request.method == "POST" else []
        self.params.append(list(request.query.items()) + [(k, str(v)) for k, v in form])
        self.select_urls.append(request.path_qs)
        mode = self.mode
        if mode == "timeout":
            await asyncio.sleep(3)
        if mode == "500":
            return web.Response(status=500, text="Internal Server Error")
        if mode == "503":
            return web.Response(status=503, text="busy")
        if mode == "429" or (mode == "429-once" and self.hits_429 == 0):
            self.hits_429 += 1
            return web.Response(status=429, headers={"Retry-After": "1"}, text="rate overflow")
        if mode == "html":
            return web.Response(text="<html><body><h1>Errore</h1></body></html>", content_type="text/html")
        if mode == "rate":  # the text SentenzeWeb answers to rapid requests (reported), with HTTP 200
            return web.Response(text="rate overflow", content_type="text/plain")
        if mode == "redirect-evil":
            raise web.HTTPFound("http://evil.example.com/steal")
        q = dict(self.params[-1]).get("q", "")
        if "app.facet" in request.query:
            body = frontend.solr_facet_answer(self.data / frontend.FRONTEND / self.facet_page)
        elif q.startswith("id:") and q[4:-1] in self.records:
            body = self.records[q[4:-1]]
        elif q.startswith("id:"):
            body = self.cap("sentenzeweb", CASS_BY_ID.get(q, "visualex__italgiure_snciv_99999_2024.json"))
        elif self.search_body is not None:
            body = self.search_body
        elif "99999" in q:
            body = self.cap("sentenzeweb", "visualex__italgiure_search_empty.json")
        else:
            body = self.cap("sentenzeweb", "visualex__italgiure_search_2043_cc.json")
        if mode == "truncated":
            body = body[: len(body) // 2]
        return web.Response(body=body, content_type="application/json")

    async def ga_page(self, request: web.Request) -> web.Response:
        self.requests.append(request)
        if self.mode == "ga-no-token":
            return web.Response(text="<html><body>Manutenzione</body></html>", content_type="text/html")
        resp = web.Response(text=LIFERAY_PAGE, content_type="text/html")
        resp.set_cookie("JSESSIONID", "s3ss10n")
        return resp

    async def ga_post(self, request: web.Request) -> web.Response:
        self.requests.append(request)
        if self.mode == "redirect-evil":
            raise web.HTTPFound("http://evil.example.com/steal")
        form = dict(await request.post())
        self.posts.append({**form, **{"?" + k: v for k, v in request.query.items()}})
        ok = request.query.get("p_auth") == P_AUTH and request.cookies.get("JSESSIONID") == "s3ss10n"
        if not ok:  # a stale session gets the plain page back, as Liferay does
            return web.Response(text=LIFERAY_PAGE, content_type="text/html")
        # The capture's decision links point at the real mdp host; served here, they point
        # at this server, which stands in for it.
        body = self.cap("ga", "it-eli-mcp__ga_search_sample.html")
        body = body.replace(b"https://mdp.giustizia-amministrativa.it", self.base.encode())
        return web.Response(body=body, content_type="text/html")

    async def ga_doc(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(request)
        nrg = request.query.get("nrg")
        if nrg == "302000001":
            raise web.HTTPFound("http://evil.example.com/steal")
        if nrg == "302000002":
            raise web.HTTPFound("/elsewhere/")
        if nrg == "404000000":
            return web.Response(status=404, text="not here")
        if nrg == "200000000":
            return web.Response(body=b"", content_type="text/xml")
        if self.mode == "redirect-evil":
            raise web.HTTPFound("http://evil.example.com/steal")
        if self.mode == "html":
            return web.Response(text="<!DOCTYPE html><html><body>Errore</body></html>", content_type="text/html")
        return web.Response(body=self.cap("ga", "it-eli-mcp__ga_document_sample.xml"), content_type="text/xml")

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get(SELECT, self.select)
        app.router.add_post(SELECT, self.select)
        app.router.add_get("/web/guest/dcsnprr", self.ga_page)
        app.router.add_post("/web/guest/dcsnprr", self.ga_post)
        app.router.add_get("/visualizza/", self.ga_doc)
        app.router.add_get("/elsewhere/", self.ga_doc)
        return app


@pytest.fixture
async def upstream(testdata):
    up = Upstream(testdata)
    server = TestServer(up.app())
    await server.start_server()
    up.server = server
    yield up
    await server.close()


@pytest.fixture
async def live(upstream, make_settings):
    def _make(**overrides):
        base = upstream.base
        opts = {"http_timeout": "1", **overrides}
        settings = make_settings(sentenzeweb_url=base + "/sncass", ga_url=base, ga_document_url=base, **opts)
        return settings

    clients: list[HttpClient] = []

    def _client(**overrides):
        settings = _make(**overrides)
        client = HttpClient(settings)
        clients.append(client)
        return client, settings

    yield _client
    for c in clients:
        await c.close()


# ------------------------------------------------------------------ Cassazione


async def test_cassazione_search_with_highlighting(live, upstream):
    client, settings = live()
    res = await tools.it_cassazione_search(client, settings, query='"art. 2043 c.c." danno', chamber="civile", limit=3)
    assert res.total == 1430 and len(res.hits) == 3
    assert all(h.source_url and h.citation.startswith("Cass. civ.") for h in res.hits)
    assert "⟦" in res.hits[0].snippet
    # the search, then the facet counts, as the court's front-end asks them (index.js)
    assert [u.split("?", 1)[1] for u in upstream.select_urls] == ["app.query=snciv", "app.facet"]
    assert all(r.method == "POST" for r in upstream.requests)
    assert {r.headers["Content-Type"] for r in upstream.requests} == {"application/x-www-form-urlencoded; charset=UTF-8"}
    search, facet = dict(upstream.params[0]), upstream.params[1]
    q = '(ocr:"art. 2043 c.c." AND ocr:"danno") AND ((kind:"snciv" OR kind:"snpen")) AND kind:"snciv"'
    assert search["q"] == q == res.solr_query and res.filters == ['kind:"snciv"']
    assert search["hl.q"] == 'ocr:"art. 2043 c.c." AND ocr:"danno"'  # the filters are not highlighted
    assert search["wt"] == "json" and search["hl"] == "true" and search["rows"] == "3"
    assert not any(k == "fq" for k, _ in upstream.params[0] + facet)
    assert dict(facet)["q"] == q and dict(facet)["facet.method"] == "enum"
    assert [v for k, v in facet if k == "facet.field"] == ["kind", "tipoprov", "szdec", "anno"]
    assert [f.value for f in res.facets.section] == ["1", "2", "3", "5", "6", "L", "U"]
    msgspec.json.encode(res)  # serialisable as the MCP layer will


async def test_cassazione_search_is_cached(live, upstream):
    client, settings = live()
    a = await tools.it_cassazione_search(client, settings, query="responsabilità")
    b = await tools.it_cassazione_search(client, settings, query="responsabilità")
    assert a == b and len(upstream.params) == 2  # one search and one facet request, then the cache


async def test_cassazione_empty_result(live):
    client, settings = live()
    res = await tools.it_cassazione_search(client, settings, query='"art. 99999 c.c."')
    assert res.total == 0 and res.hits == []


def _app(client: HttpClient, settings) -> SimpleNamespace:
    """What the MCP tools read of the App: its HTTP client and settings."""
    return SimpleNamespace(http=client, settings=settings)


async def test_cassazione_get_civil_and_criminal(live):
    client, settings = live()
    civ = await live_tools.cassazione_get(_app(client, settings), sic_id="snciv2021521018O", max_chars=1000)
    assert civ.citation == "Cass. civ., sez. V, ord. n. 21018/2021" and civ.next_offset == 1000
    more = await live_tools.cassazione_get(_app(client, settings), sic_id="snciv2021521018O", max_chars=60000, offset=1000)
    assert more.next_offset is None and more.offset == 1000
    pen = await tools.it_cassazione_get(client, settings, sic_id="snpen2024710787O")
    assert pen.chamber == "penale" and pen.citation.startswith("Cass. pen., sez. VII")


async def test_the_service_hands_over_the_whole_decision(live):
    """Paging is the MCP tool's: the service's text is the tool's pages joined."""
    client, settings = live(max_answer_chars="1000")
    whole = await tools.it_cassazione_get(client, settings, sic_id="snciv2021521018O")
    assert len(whole.text) > 4000 and whole.dispositivo.startswith("P.Q.M.")
    pages, offset = [], 0
    while offset is not None:
        page = await live_tools.cassazione_get(_app(client, settings), sic_id="snciv2021521018O", offset=offset)
        assert page.total_chars == len(whole.text) and page.dispositivo_chars == len(whole.dispositivo)
        pages.append(page.text)
        offset = page.next_offset
    assert "".join(pages) == whole.text and len(pages) > 4


def test_a_decision_page_shares_the_budget_with_the_dispositivo(testdata):
    body = (testdata / "sentenzeweb" / "it-eli-mcp__cassazione_sample_solr_response.json").read_bytes()
    doc = sentenzeweb.parse_decision(body, sic_id="snciv2021521018O", sentenzeweb_url="https://x/sncass")
    page = live_tools.decision_page(doc, part="text", offset=0, size=1000, budget=100_000)
    assert page.text == doc.text[:1000] and page.next_offset == 1000 and page.dispositivo == doc.dispositivo
    rest = live_tools.decision_page(doc, part="text", offset=1000, size=100_000, budget=100_000)
    assert page.text + rest.text == doc.text and rest.next_offset is None
    small = live_tools.decision_page(doc, part="text", offset=0, size=1000, budget=1000)  # dispositivo paid first
    assert small.dispositivo_truncated and "part='dispositivo'" in small.note  # at most a quarter of the budget
    assert json_cost(small.dispositivo) + json_cost(small.text) <= 1000 and small.next_offset == len(small.text)
    disp = live_tools.decision_page(doc, part="dispositivo", offset=0, size=100_000, budget=100_000)
    assert disp.text == doc.dispositivo and disp.dispositivo is None and disp.part == "dispositivo"
    with pytest.raises(InvalidArg):
        live_tools.decision_page(doc, part="text", offset=10**6, size=10, budget=100_000)


def test_a_page_fits_its_budget_once_encoded():
    text = '"\\\n' * 1000  # every character costs two once JSON-encoded
    chunk, nxt = paging.page(text, 0, 10_000, 100)
    assert chunk == text[:50] and json_cost(chunk) == 100 and nxt == 50
    assert paging.page(text, 2990, 10_000, 100) == (text[2990:], None)
    with pytest.raises(InvalidArg) as exc:
        paging.page(text, len(text) + 1, 10)
    assert exc.value.valid == f"an offset from 0 to {len(text)} (use next_offset)"


async def test_cassazione_not_found(live):
    client, settings = live()
    with pytest.raises(NotFound):
        await tools.it_cassazione_get(client, settings, sic_id="snciv2024399999O")


async def test_bad_sic_id_makes_no_request(live, upstream):
    client, settings = live()
    with pytest.raises(InvalidArg):
        await tools.it_cassazione_get(client, settings, sic_id='x" OR *:*')
    assert upstream.requests == []


@pytest.mark.parametrize("part", ["motivi", "massima", 7])
async def test_bad_part_makes_no_request(live, upstream, part):
    """A wrong `part` is the caller's mistake whatever the court's state: said before any
    request, so with the court down it is still invalid_arg, never upstream_unavailable."""
    client, settings = live()
    with pytest.raises(InvalidArg) as exc:
        await live_tools.cassazione_get(_app(client, settings), sic_id="snciv2021521018O", part=part)
    assert "dispositivo" in exc.value.valid
    assert upstream.requests == []


async def test_part_is_read_as_lawyers_type_it(live):
    client, settings = live()
    res = await live_tools.cassazione_get(_app(client, settings), sic_id="snciv2021521018O", part=" Dispositivo ")
    assert res.part == "dispositivo"


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        ("timeout", UpstreamUnavailable),
        ("500", UpstreamUnavailable),
        ("503", UpstreamUnavailable),
        ("429", UpstreamUnavailable),
        ("truncated", UpstreamChanged),
        ("html", UpstreamChanged),
    ],
)
async def test_cassazione_faults_are_typed(live, upstream, mode, error):
    upstream.mode = mode
    client, settings = live(http_timeout="0.3")
    with pytest.raises(error) as exc:
        await tools.it_cassazione_search(client, settings, query="danno")
    assert exc.value.to_dict()["code"] == error.code
    with pytest.raises(error):
        await tools.it_cassazione_get(client, settings, sic_id="snciv2021521018O")


async def test_429_with_retry_after_is_retried(live, upstream):
    upstream.mode = "429-once"
    client, settings = live()
    started = time.monotonic()
    res = await tools.it_cassazione_search(client, settings, query="danno")
    assert res.total == 1430 and upstream.hits_429 == 1
    assert time.monotonic() - started >= 0.9  # waited for Retry-After: 1


async def test_throttle_spaces_requests(live, upstream):
    client, settings = live(throttle_seconds="0.4")
    started = time.monotonic()
    await tools.it_cassazione_search(client, settings, query="uno")
    await tools.it_cassazione_search(client, settings, query="due")
    assert time.monotonic() - started >= 0.4


def test_default_throttle_is_at_least_one_second(tmp_path):
    assert load_settings({"IT_ELI_HOME": str(tmp_path)}).throttle_seconds >= 1.0


async def test_invalid_search_arguments(live, upstream):
    client, settings = live()
    for kwargs in [
        {"query": "x", "chamber": "amministrativa"},
        {"query": "x", "chamber": "penale", "sub_chamber": "lavoro"},
        {"query": "x", "limit": 0},
        {"query": "x", "start": -1},
        {"query": "x", "start": 10001},
        {"query": '"" ::'},
        {"query": "x" * 2001},
        {"query": "x", "section": "ottava"},
        {"query": "x", "decision_type": "massima"},
        {"query": "relatore:rossi"},
    ]:
        with pytest.raises((InvalidArg, QueryError)):
            await tools.it_cassazione_search(client, settings, **kwargs)
    assert upstream.requests == []


# ------------------------------------------------------------------ Giustizia Amministrativa


async def test_ga_search_session_flow(live, upstream):
    client, settings = live()
    res = await tools.it_ga_search(client, settings, query="responsabilita", sede="Roma", tipo="sentenza")
    assert res.total_upstream == 1128 and res.returned == 2 and not res.anno_applied_client_side
    hit = res.hits[0]
    assert hit.ecli == "ECLI:IT:TARLAZ:2026:11970SENT" and hit.document_url.startswith(upstream.base + "/visualizza/")
    post = upstream.posts[-1]
    ns = "_decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10_"
    assert post["?p_auth"] == P_AUTH and post["?p_p_id"] == ns.strip("_")
    assert post["?" + ns + "javax.portlet.action"] == "search"
    assert post[ns + "searchtextProvvedimenti"] == "responsabilita"
    assert post[ns + "sedeProvvedimenti"] == "Roma" and post[ns + "TipoProvvedimentoItem"] == "Sentenza"
    # the session is reused for the next (different) search
    await tools.it_ga_search(client, settings, query="appalto")
    assert sum(1 for r in upstream.requests if r.method == "GET" and r.path == "/web/guest/dcsnprr") == 1


async def test_ga_stale_session_is_renewed_once(live, upstream):
    client, settings = live()
    tools._cache(client).put(("ga-session", settings.ga_url), "Stale000", 600)
    res = await tools.it_ga_search(client, settings, query="responsabilita")
    assert res.total_upstream == 1128
    assert [p["?p_auth"] for p in upstream.posts] == ["Stale000", P_AUTH]


async def test_ga_search_year_is_client_side(live):
    client, settings = live()
    res = await tools.it_ga_search(client, settings, query="responsabilita", anno=2025)
    assert res.returned == 0 and res.anno_applied_client_side and "anno" in res.note
    res = await tools.it_ga_search(client, settings, query="responsabilita", anno=2026)
    assert res.returned == 2


async def test_ga_without_token_is_upstream_changed(live, upstream):
    upstream.mode = "ga-no-token"
    client, settings = live()
    with pytest.raises(UpstreamChanged):
        await tools.it_ga_search(client, settings, query="appalto")


async def test_ga_get_decision(live, upstream):
    client, settings = live()
    res = await tools.it_ga_search(client, settings, query="responsabilita")
    doc = await live_tools.ga_get_decision(_app(client, settings), document_url=res.hits[0].document_url, max_chars=2000)
    assert doc.metadata.numero == "11970" and doc.metadata.tipologia == "Sentenza"
    assert doc.text.startswith("EPIGRAFE") and doc.next_offset == 2000 and not doc.pdf_only
    assert [s.name for s in doc.sections][-2:] == ["dispositivo", "sottoscrizioni"]
    n = len(upstream.requests)
    rest = await live_tools.ga_get_decision(_app(client, settings), document_url=res.hits[0].document_url, offset=2000)
    assert len(upstream.requests) == n  # served from the document cache
    whole = await tools.it_ga_get_decision(client, settings, document_url=res.hits[0].document_url)
    assert whole.text.startswith(doc.text + rest.text) and rest.total_chars == len(whole.text)  # the service's is whole
    assert whole.sections == doc.sections and whole.sections[-1].start + whole.sections[-1].length <= len(whole.text)


async def test_ga_pdf_only_is_flagged_without_fetch(live, upstream):
    client, settings = live()
    url = upstream.base + "/visualizza/?nodeRef=&schema=cds&nrg=202400001&nomeFile=202500123_11.pdf&subDir=Provvedimenti"
    doc = await tools.it_ga_get_decision(client, settings, document_url=url)
    assert doc.pdf_only and doc.text == "" and doc.source_url == url and upstream.requests == []
    page = await live_tools.ga_get_decision(_app(client, settings), document_url=url, offset=5)  # nothing to page
    assert page.pdf_only and (page.text, page.offset, page.total_chars, page.next_offset) == ("", 0, 0, None)


def _doc_url(base: str, nrg: str) -> str:
    return f"{base}/visualizza/?nodeRef=&schema=tar_rm&nrg={nrg}&nomeFile=202611970_01.html&subDir=Provvedimenti"


async def test_ga_redirects_away_are_refused(live, upstream):
    """The URL was checked before the request: a redirect off the host or path is the upstream's
    doing (upstream_changed), not the caller's (invalid_arg)."""
    client, settings = live()
    with pytest.raises(UpstreamChanged):
        await tools.it_ga_get_decision(client, settings, document_url=_doc_url(upstream.base, "302000001"))
    with pytest.raises(UpstreamChanged):
        await tools.it_ga_get_decision(client, settings, document_url=_doc_url(upstream.base, "302000002"))


async def test_ga_refuses_other_hosts_before_any_request(live, upstream):
    client, settings = live()
    host = upstream.base.split("://", 1)[1]
    for url in [
        "https://mdp.giustizia-amministrativa.it/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        f"http://{host}@evil.com/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        f"https://{host}/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        f"http://{host.split(':')[0]}:1/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
        f"http://localhost:{host.split(':')[1]}/visualizza/?schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html",
    ]:
        with pytest.raises(InvalidArg):
            await tools.it_ga_get_decision(client, settings, document_url=url)
    assert upstream.requests == []


async def test_ga_decision_faults(live, upstream):
    client, settings = live()
    with pytest.raises(NotFound):
        await tools.it_ga_get_decision(client, settings, document_url=_doc_url(upstream.base, "404000000"))
    upstream.mode = "html"
    with pytest.raises(UpstreamChanged):
        await tools.it_ga_get_decision(client, settings, document_url=_doc_url(upstream.base, "202515527"))


async def test_ga_invalid_arguments(live, upstream):
    client, settings = live()
    for kwargs in [{}, {"query": "x", "sede": "Atlantide"}, {"numero": "12a"}, {"query": "x", "limit": 61}]:
        with pytest.raises(InvalidArg):
            await tools.it_ga_search(client, settings, **kwargs)
    assert upstream.requests == []


# ------------------------------------------------------------------ the real services


@pytest.mark.internet
async def test_real_sentenzeweb(make_settings):
    settings = make_settings(throttle_seconds="1.5", http_timeout="30")
    async with HttpClient(settings) as client:
        res = await tools.it_cassazione_search(client, settings, query='"perdita di chance"', chamber="civile", limit=2)
        assert res.total > 0 and res.hits
        doc = await tools.it_cassazione_get(client, settings, sic_id=res.hits[0].sic_id)
        assert doc.text


@pytest.mark.internet
async def test_real_ga(make_settings):
    settings = make_settings(throttle_seconds="1.5", http_timeout="30")
    async with HttpClient(settings) as client:
        res = await tools.it_ga_search(client, settings, query="responsabilita", sede="Consiglio di Stato")
        assert res.total_upstream > 0 and res.hits
        html_hit = next(h for h in res.hits if h.document_url and not h.pdf_only)
        doc = await tools.it_ga_get_decision(client, settings, document_url=html_hit.document_url)
        assert doc.text
