"""Upstream faults through the one HTTP layer, against real local servers (no mocks).

Each fault must come out as a typed error within a bounded time. The bounds are generous
(behaviour, not benchmark): they only fail when a fault is waited out without limit (a drip
body read to the end, a Retry-After of an hour, a host hammered while down). Also: the circuit
breaker counts the requests that reach the server, and cached answers are served marked stale
when the upstream is down (statutes through `it_get_text`, live case law through its tools).
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from urllib.parse import quote

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from it_eli.services.app import App
from it_eli.runtime.errors import InvalidArg, NotFound, UpstreamChanged, UpstreamUnavailable
from it_eli.sources.http import MAX_RETRY_AFTER, HttpClient, download_to_file
from it_eli.sources.normattiva import api
from it_eli.sources.normattiva.akn.parser import parse_act
from it_eli.law.urn import parse_urn
from it_eli.services import caselaw_live
from it_eli.mcp.tools.registry import call
from tests.normattiva_server import API_PREFIX, NormattivaServer

# Slack on every elapsed-time bound: loaded CI machines are slow, a hang is unbounded.
SLACK = 3.0


class Faulty:
    """A local upstream whose every route is one fault; `hits` counts requests per path."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        self.status_for_flaky = 503
        self.server: TestServer | None = None

    @property
    def base(self) -> str:
        return str(self.server.make_url("")).rstrip("/")

    @web.middleware
    async def count(self, request: web.Request, handler):
        self.hits[request.path] = self.hits.get(request.path, 0) + 1
        return await handler(request)

    async def ok(self, request):
        return web.json_response({"ok": True})

    async def hang(self, request):
        await asyncio.sleep(30)
        return web.Response(text="late")

    async def drip(self, request):
        """Headers at once, then one byte every 0.1 s for ~50 s: each read is 'on time'."""
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        resp.content_length = 500
        await resp.prepare(request)
        for _ in range(500):
            await resp.write(b" ")
            await asyncio.sleep(0.1)
        return resp

    async def status(self, request):
        return web.Response(status=int(request.match_info["n"]), text="fault")

    async def flaky(self, request):
        return web.Response(status=self.status_for_flaky, text="x")

    async def retry_after(self, request):
        return web.Response(status=429, headers={"Retry-After": request.query["v"]}, text="slow down")

    async def truncated(self, request):
        """Declares 10 000 bytes, sends 100, then drops the connection."""
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        resp.content_length = 10_000
        await resp.prepare(request)
        await resp.write(b'{"response": {"numFound": 1, "docs": [' + b" " * 60)
        request.transport.close()
        return resp

    async def big(self, request):
        return web.Response(body=b"x" * 200_000, content_type="application/octet-stream")

    async def redirect_to(self, request):
        raise web.HTTPFound(request.query["to"])

    async def html(self, request):
        return web.Response(text="<!DOCTYPE html><html><body>Manutenzione</body></html>", content_type="text/html")

    async def odd_json(self, request):
        return web.json_response({"totally": ["different", "shape"]})

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self.count])
        r = app.router
        r.add_get("/ok", self.ok)
        r.add_get("/hang", self.hang)
        r.add_get("/drip", self.drip)
        r.add_get("/status/{n}", self.status)
        r.add_get("/flaky", self.flaky)
        r.add_get("/retry-after", self.retry_after)
        r.add_get("/truncated", self.truncated)
        r.add_get("/big", self.big)
        r.add_get("/redirect", self.redirect_to)
        # stands in for the Normattiva OpenData API answering a page or an unknown JSON shape
        r.add_post(API_PREFIX + "/html/atto/dettaglio-atto-urn", self.html)
        r.add_post(API_PREFIX + "/json/atto/dettaglio-atto-urn", self.odd_json)
        return app


async def _start(f: Faulty) -> Faulty:
    f.server = TestServer(f.app(), host="127.0.0.1")
    await f.server.start_server()
    return f


@pytest.fixture
async def faulty():
    f = await _start(Faulty())
    yield f
    await f.server.close()


@pytest.fixture
async def other():
    """A second host that must never be contacted (redirect target, bystander)."""
    f = await _start(Faulty())
    yield f
    await f.server.close()


@pytest.fixture
async def client_for(faulty, make_settings):
    clients: list[HttpClient] = []

    def _make(**overrides):
        opts = {"http_timeout": "0.5", "http_retries": "1", **overrides}
        settings = make_settings(sentenzeweb_url=faulty.base, **opts)
        c = HttpClient(settings)
        clients.append(c)
        return c

    yield _make
    for c in clients:
        await c.close()


async def _timed(coro):
    started = time.monotonic()
    try:
        await coro
    except Exception as exc:  # noqa: BLE001 - returned for assertions
        return exc, time.monotonic() - started
    return None, time.monotonic() - started


# ---------------------------------------------------------------- each fault: typed, bounded


async def test_connection_refused_is_unavailable_and_bounded(make_settings):
    srv = TestServer(web.Application(), host="127.0.0.1")
    await srv.start_server()
    url = str(srv.make_url("/x"))
    await srv.close()  # nothing listens on that port any more
    settings = make_settings(sentenzeweb_url=url.rsplit("/", 1)[0], http_timeout="0.5", http_retries="2")
    async with HttpClient(settings) as client:
        exc, elapsed = await _timed(client.request("GET", url))
    assert isinstance(exc, UpstreamUnavailable) and "connection failed" in exc.message
    assert elapsed < 0.5 + 1.0 + SLACK  # two backoffs (0.5 s, 1 s), no hang


async def test_timeout_is_unavailable_within_timeout_times_attempts(faulty, client_for):
    client = client_for()
    exc, elapsed = await _timed(client.request("GET", faulty.base + "/hang"))
    assert isinstance(exc, UpstreamUnavailable) and "timed out" in exc.message
    assert faulty.hits["/hang"] == 2  # one retry
    assert elapsed < 2 * 0.5 + 0.5 + SLACK


async def test_slow_drip_body_is_cut_by_the_total_timeout(faulty, client_for):
    """Each byte arrives well inside any read timeout; only a total deadline ends it."""
    client = client_for(http_retries="0")
    exc, elapsed = await _timed(client.request("GET", faulty.base + "/drip"))
    assert isinstance(exc, UpstreamUnavailable)
    assert elapsed < 0.5 + SLACK  # the drip lasts 50 s


async def test_slow_drip_download_is_cut(faulty, client_for, tmp_path):
    """download_to_file has no total timeout (archives are large) but a minimum average rate."""
    client = client_for(http_timeout="1")
    dest = tmp_path / "archive.zip"
    exc, elapsed = await _timed(download_to_file(client, faulty.base + "/drip", dest))
    assert isinstance(exc, UpstreamUnavailable) and "bytes/s" in exc.message
    assert elapsed < 1 + SLACK
    assert not dest.exists() and not (tmp_path / "archive.zip.part").exists()


async def test_download_refuses_hosts_and_redirects(faulty, other, client_for, tmp_path):
    client = client_for()
    with pytest.raises(InvalidArg):
        await download_to_file(client, other.base + "/ok", tmp_path / "a")
    with pytest.raises(UpstreamUnavailable):
        await download_to_file(client, faulty.base + "/redirect?to=" + other.base + "/ok", tmp_path / "a")
    assert other.hits == {} and not any(tmp_path.iterdir())


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_5xx_is_unavailable_and_only_gateway_errors_are_retried(faulty, client_for, status):
    client = client_for()
    exc, elapsed = await _timed(client.request("GET", f"{faulty.base}/status/{status}"))
    assert isinstance(exc, UpstreamUnavailable) and exc.to_dict()["code"] == "upstream_unavailable"
    assert faulty.hits[f"/status/{status}"] == (1 if status == 500 else 2)
    assert elapsed < 0.5 + SLACK


async def test_404_is_not_found_never_unavailable(faulty, client_for):
    with pytest.raises(NotFound):
        await client_for().request("GET", faulty.base + "/status/404")


async def test_429_retry_after_is_honoured(faulty, client_for):
    client = client_for()
    exc, elapsed = await _timed(client.request("GET", faulty.base + "/retry-after?v=1"))
    assert isinstance(exc, UpstreamUnavailable) and exc.details["retry_after_seconds"] == 1
    assert faulty.hits["/retry-after"] == 2
    assert 1.0 <= elapsed < 1 + SLACK  # waited the asked second before the retry


async def test_429_http_date_retry_after_is_honoured(faulty, client_for):
    when = email.utils.format_datetime(email.utils.localtime(), usegmt=True)  # "now": no wait
    exc, elapsed = await _timed(client_for().request("GET", faulty.base + "/retry-after?v=" + quote(when)))
    assert isinstance(exc, UpstreamUnavailable) and faulty.hits["/retry-after"] == 2
    assert elapsed < SLACK


async def test_429_with_a_long_retry_after_fails_at_once_saying_when(faulty, client_for):
    """An hour's Retry-After is not slept through: the caller learns when to come back."""
    exc, elapsed = await _timed(client_for().request("GET", faulty.base + "/retry-after?v=3600"))
    assert isinstance(exc, UpstreamUnavailable)
    assert exc.details["retry_after_seconds"] == 3600 > MAX_RETRY_AFTER
    assert faulty.hits["/retry-after"] == 1 and elapsed < SLACK


async def test_truncated_body_is_typed(faulty, client_for):
    exc, elapsed = await _timed(client_for().request("GET", faulty.base + "/truncated"))
    assert isinstance(exc, UpstreamUnavailable)  # a cut connection may pass: retried, then unavailable
    assert elapsed < 2 * 0.5 + 0.5 + SLACK


async def test_body_over_the_cap_is_upstream_changed(faulty, client_for):
    exc, elapsed = await _timed(client_for(max_body_bytes="100000").request("GET", faulty.base + "/big"))
    assert isinstance(exc, UpstreamChanged) and "cap" in exc.message
    assert elapsed < SLACK


async def test_redirect_to_another_host_is_refused_before_contacting_it(faulty, other, client_for):
    """Refused before it is followed, and reported as the upstream's doing (upstream_changed),
    never as the caller's bad argument."""
    with pytest.raises(UpstreamChanged):
        await client_for().request("GET", faulty.base + "/redirect?to=" + other.base + "/ok")
    with pytest.raises(UpstreamChanged):
        await client_for().request("GET", faulty.base + "/redirect?to=file:///etc/passwd")
    assert other.hits == {}
    with pytest.raises(InvalidArg):  # a URL the caller hands in outside the allow-list stays invalid_arg
        await client_for().request("GET", other.base + "/ok")
    assert other.hits == {}


@pytest.mark.parametrize("flavour", ["html", "json"])
async def test_wrong_content_or_markup_from_the_api_is_upstream_changed(faulty, make_settings, flavour):
    """The OpenData API answering a maintenance page or a JSON of another shape (markup change)."""
    settings = make_settings(normattiva_api_url=f"{faulty.base}{API_PREFIX}/{flavour}", http_timeout="0.5")
    async with HttpClient(settings) as client:
        exc, elapsed = await _timed(
            api.fetch_article(client, settings, parse_urn("urn:nir:stato:legge:1990-08-07;241"), "1")
        )
    assert isinstance(exc, UpstreamChanged), exc
    assert elapsed < SLACK


# ---------------------------------------------------------------- circuit breaker


async def test_circuit_opens_after_threshold_and_stops_requests(faulty, other, client_for):
    client = client_for(http_retries="0", circuit_threshold="3", circuit_seconds="1", ga_url=other.base)
    url = faulty.base + "/flaky"
    for _ in range(3):
        with pytest.raises(UpstreamUnavailable):
            await client.request("GET", url)
    assert faulty.hits["/flaky"] == 3
    started = time.monotonic()
    for _ in range(20):  # open: fail at once, nothing reaches the server
        with pytest.raises(UpstreamUnavailable) as exc:
            await client.request("GET", url)
        assert 0 < exc.value.details["retry_after_seconds"] <= 1
    assert faulty.hits["/flaky"] == 3 and time.monotonic() - started < SLACK
    assert client.circuit_open(url)
    # another host is not affected by this host's circuit
    other.status_for_flaky = 200
    await client.request("GET", other.base + "/flaky")

    await asyncio.sleep(1.1)  # half-open: one probe goes through; it fails, so it reopens at once
    with pytest.raises(UpstreamUnavailable):
        await client.request("GET", url)
    assert faulty.hits["/flaky"] == 4
    with pytest.raises(UpstreamUnavailable):
        await client.request("GET", url)
    assert faulty.hits["/flaky"] == 4

    faulty.status_for_flaky = 200  # upstream back: after the window, a success closes it
    await asyncio.sleep(1.1)
    assert (await client.request("GET", url)).status == 200
    faulty.status_for_flaky = 503
    for _ in range(2):  # the count restarted from zero: two failures do not open it
        with pytest.raises(UpstreamUnavailable):
            await client.request("GET", url)
    assert not client.circuit_open(url)


async def test_circuit_counts_retried_calls_once(faulty, client_for):
    """Threshold counts failed calls, each with its own retries: 2 calls x 2 attempts."""
    client = client_for(http_retries="1", circuit_threshold="2", circuit_seconds="30")
    for _ in range(5):
        with pytest.raises(UpstreamUnavailable):
            await client.request("GET", faulty.base + "/flaky")
    assert faulty.hits["/flaky"] == 4


async def test_circuit_also_guards_downloads(faulty, client_for, tmp_path):
    client = client_for(http_retries="0", circuit_threshold="2", circuit_seconds="30")
    for _ in range(4):
        with pytest.raises(UpstreamUnavailable):
            await download_to_file(client, faulty.base + "/status/503", tmp_path / "a.zip")
    assert faulty.hits["/status/503"] == 2


def test_circuit_settings_come_from_the_environment(make_settings):
    s = make_settings(circuit_threshold="7", circuit_seconds="2.5")
    client = HttpClient(s)
    assert (client.circuit_threshold, client.circuit_seconds) == (7, 2.5)
    default = HttpClient(make_settings())
    assert (default.circuit_threshold, default.circuit_seconds) == (5, 60.0)


# ---------------------------------------------------------------- stale serving


L241 = "normattiva-akn/mcp-legal-it__legge_241_1990.xml"


@pytest.mark.parametrize("fault", ["http503", "timeout"])
async def test_statute_is_served_stale_when_normattiva_is_down(testdata, make_settings, fault):
    async with NormattivaServer(testdata, sleep_seconds=3) as srv:
        settings = make_settings(**srv.settings_overrides(), http_timeout="0.5")
        app = App(settings)
        try:
            act = parse_act((testdata / L241).read_bytes())
            # imported long ago: older than the TTL, so the tool must try Normattiva first
            app.statutes.add_act(act, source_url="https://www.normattiva.it/x", fetched_at="2001-01-01T00:00:00+00:00")
            srv.set_fault(fault)
            started = time.monotonic()
            is_error, out = await call(app, "it_get_text", {"reference": "l. 241/1990", "article": "3"})
            elapsed = time.monotonic() - started
            assert not is_error, out
            assert out["stale"] is True and out["served_from"] == "local_index"
            assert "could not be reached" in out["version_note"] and out["text"]
            assert len(srv.requests) >= 1  # it did try the upstream
            assert elapsed < 2 * (2 * 0.5 + 0.5) + SLACK  # API then portal, each with one retry

            # nothing cached -> upstream_unavailable, never not_found
            is_error, out = await call(app, "it_get_text", {"reference": "d.lgs. 231/2001", "article": "1"})
            assert is_error and out["code"] == "upstream_unavailable"
        finally:
            await app.close()


@pytest.fixture
async def live_upstream(testdata):
    from tests.mcp.test_caselaw_live_tools import Upstream

    up = Upstream(testdata)
    up.server = TestServer(up.app(), host="127.0.0.1")
    await up.server.start_server()
    yield up
    await up.server.close()


@pytest.mark.parametrize("mode", ["503", "timeout", "html"])
async def test_live_case_law_serves_expired_cache_marked_stale(live_upstream, make_settings, monkeypatch, mode):
    monkeypatch.setattr(caselaw_live, "DOCUMENT_CACHE_SECONDS", 0.2)
    base = live_upstream.base
    settings = make_settings(
        sentenzeweb_url=base + "/sncass", ga_url=base, ga_document_url=base,
        http_timeout="0.3", search_cache_seconds="0.2",
    )
    async with HttpClient(settings) as client:
        fresh = await caselaw_live.it_cassazione_search(client, settings, query="danno")
        doc = await caselaw_live.it_cassazione_get(client, settings, sic_id="snciv2021521018O")
        ga_hits = await caselaw_live.it_ga_search(client, settings, query="appalto")
        ga_doc = await caselaw_live.it_ga_get_decision(client, settings, document_url=ga_hits.hits[0].document_url)
        assert not (fresh.stale or doc.stale or ga_hits.stale or ga_doc.stale)
        await asyncio.sleep(0.3)  # every entry has expired
        live_upstream.mode = mode
        n = len(live_upstream.requests)
        stale = await caselaw_live.it_cassazione_search(client, settings, query="danno")
        assert stale.stale and stale.stale_note and stale.total == fresh.total
        stale_doc = await caselaw_live.it_cassazione_get(client, settings, sic_id="snciv2021521018O")
        assert stale_doc.stale and stale_doc.text == doc.text
        assert len(live_upstream.requests) > n  # the upstream was tried first
        with pytest.raises((UpstreamUnavailable, UpstreamChanged)):  # never cached: typed error
            await caselaw_live.it_cassazione_search(client, settings, query="mai chiesto")
        await live_upstream.server.close()  # the decision host goes away: connection refused
        stale_ga = await caselaw_live.it_ga_get_decision(client, settings, document_url=ga_hits.hits[0].document_url)
        assert stale_ga.stale and stale_ga.text == ga_doc.text and "upstream_unavailable" in stale_ga.stale_note


async def test_ga_search_served_stale_when_portal_down(live_upstream, make_settings, monkeypatch):
    base = live_upstream.base
    settings = make_settings(ga_url=base, ga_document_url=base, http_timeout="0.3", search_cache_seconds="0.2")
    async with HttpClient(settings) as client:
        fresh = await caselaw_live.it_ga_search(client, settings, query="appalto")
        await asyncio.sleep(0.3)
        live_upstream.mode = "ga-no-token"  # markup changed: no Liferay token any more
        caselaw_live._cache(client).drop(("ga-session", settings.ga_url))
        stale = await caselaw_live.it_ga_search(client, settings, query="appalto")
        assert stale.stale and stale.hits == fresh.hits and "upstream_changed" in stale.stale_note


async def test_a_url_handed_in_never_follows_a_redirect_to_another_configured_upstream(make_settings):
    """A decision URL whose host redirects to ANOTHER allow-listed upstream is refused before the
    second host is contacted: allow-listing alone would let a client aim us at any upstream."""
    hits: list[str] = []

    async def target(request):
        hits.append(request.path_qs)
        return web.Response(text="<GA/>")

    other = web.Application()
    other.router.add_get("/{tail:.*}", target)
    async with TestServer(other) as second:

        async def redirect(request):
            raise web.HTTPFound(str(second.make_url("/visualizza/?x=1")))

        first_app = web.Application()
        first_app.router.add_get("/{tail:.*}", redirect)
        async with TestServer(first_app) as first:
            settings = make_settings(ga_document_url=str(first.make_url("")), normattiva_url=str(second.make_url("")))
            async with HttpClient(settings) as client:
                with pytest.raises(UpstreamChanged):  # the upstream's redirect, refused before it is followed
                    await client.request("GET", str(first.make_url("/visualizza/?a=1")), same_host_redirects=True)
                # without the flag the layer follows redirects among configured upstreams only
                resp = await client.request("GET", str(first.make_url("/visualizza/?a=2")))
                assert resp.status == 200
    assert hits == ["/visualizza/?x=1"]  # only the unflagged request reached the other host


async def test_download_follows_a_redirect_within_the_allow_list(make_settings, tmp_path):
    """The Court's archive host may send http -> https or to a mirror path: followed when allowed."""

    async def moved(request):
        raise web.HTTPMovedPermanently("/new/archive.zip")

    async def archive(request):
        return web.Response(body=b"PK-archive-bytes")

    app = web.Application()
    app.router.add_get("/old/archive.zip", moved)
    app.router.add_get("/new/archive.zip", archive)
    async with TestServer(app) as srv:
        settings = make_settings(cortecost_opendata_url=str(srv.make_url("/old/")))
        async with HttpClient(settings) as client:
            await download_to_file(client, str(srv.make_url("/old/archive.zip")), tmp_path / "a.zip")
    assert (tmp_path / "a.zip").read_bytes() == b"PK-archive-bytes"
