"""A local Normattiva (portal + OpenData API) that replays the REAL captures, for tests.

Why: tests must exercise the real client (HttpClient: cookies, throttle, retries, typed errors)
against the real bytes the upstream sent, without internet and without monkeypatching. The
captures are read in place from the shared data dir (`testdata` fixture / IT_ELI_TESTDATA);
nothing is copied.

Usage (any async test; `testdata` and `make_settings` come from tests/conftest.py):

    from tests.normattiva_server import NormattivaServer

    async def test_something(testdata, make_settings):
        async with NormattivaServer(testdata) as srv:
            settings = make_settings(**srv.settings_overrides(), http_timeout="2")
            async with HttpClient(settings) as client:
                act, url = await portal.fetch_act(client, settings, "urn:nir:stato:legge:1990-08-07;241")

`srv.portal_url` is IT_ELI_NORMATTIVA_URL, `srv.api_url` is IT_ELI_NORMATTIVA_API_URL
(`<root>/t/normattiva.api/bff-opendata/v1/api/v1`, the real base's path). `srv.requests` logs
(method, path_qs, headers) of every request, for assertions.

PORTAL (what the real one does, per DISCOVERY.md (Normattiva)):
- `GET /uri-res/N2Ls?<urn>` and `GET /eli/id/<yyyy>/<mm>/<dd>/<codice>/CONSOLIDATED[/<yyyymmdd>]`
  answer the act page and set a `JSESSIONID` cookie. Known acts: EVERY act with an export in
  normattiva-akn/ (indexed at start-up from each file's FRBRalias urn:nir / eli), by full URN
  (`urn:nir:stato:legge:1990-08-07;241`), year-only URN (`urn:nir:stato:legge:1990;241`) or ELI.
  Article/annex/version suffixes of the URN are ignored, as the page is the act's.
  * L. 241/1990 answers the REAL captured page (normattiva-html/mcp-legal-it__landing_legge_241_1990.html,
    its link `caricaAKN?dataGU=19900818&codiceRedaz=090G0294&dataVigenza=20260614`).
  * D.L. 8/2000 (`urn:nir:stato:decreto.legge:2000-02-04;8`) answers the REAL captured page
    (emanuele__act_page__...000G0040.html); no export of it was captured, so its caricaAKN gives
    the Errore page.
  * every other act answers a SELF-WRITTEN minimal page in the portal's format (the real L. 241
    page's title / sidebar / `<a href="/do/atto/caricaAKN?...&amp;...">esporta in Akoma ntoso</a>`
    structure), linking its own export with dataVigenza = the newest captured version.
  * `urn:nir:stato:legge:1991-08-07;241` (wrong date) answers the L. 241/1990 page: the portal's
    observed "200 with another act" behaviour (UPSTREAMS.md: legge:1971-05-20;300 -> D.P.R. 300/1971).
    Add more with `srv.wrong_urns[urn] = "<codice redazionale>"`.
  * anything else: the REAL "Errore" page (normattiva-html/ondata__normattiva_error_page__legge_2022_53.html), HTTP 200.
- `GET /do/atto/caricaAKN?dataGU=&codiceRedaz=&dataVigenza=` needs the session cookie (else the
  Errore page: a strictness of this fake so tests prove the session is kept), then answers the
  captured export of that act whose ELI version date is the newest <= dataVigenza
  (D.Lgs. 231/2001: 20260124 scabopdf__dlgs_231_2001.xml, 20260602 mcp-legal-it__dlgs_231_2001.xml;
  codice penale: 20260507 scabopdf__codice_penale.xml, 20260602 mcp-legal-it__codice_penale.xml).
  Before the oldest captured version: the Errore page (nothing captured, nothing invented).

OPENDATA API (`<api_url>/...`):
- `POST atto/dettaglio-atto-urn` with `{"urn": ...}` answers the recorded answer for that exact
  URN (table `API_ANSWERS` below: file, status, content type). URNs not in the table: the real
  404 `{"message":"atto non trovato","code":"404"}` body with header `X-Fake-Unknown-Urn: 1`.
  A body that is not JSON with a `urn` string: 400 with the real 1003 body.
- `GET tipologiche/denominazione-atto`: the recorded list.
- WAF rule (the real trigger, sdk-cap waf_content_type_senza_corpo): any GET that carries a
  Content-Type header answers 409, `text/html; charset=utf-8`, the recorded WAF body.

FAULTS (for error-path tests), either routes or a switch:
- `GET /fault/timeout` sleeps `srv.sleep_seconds` (default 5 s); `GET /fault/500`, `/fault/503`.
- `srv.set_fault(kind, where="any"|"portal"|"api", times=None)`: kinds `timeout` (sleep),
  `http500` (API: 500 with the code-1000 body — SELF-WRITTEN from API_FACTS §7, no capture
  exists; portal: empty 500), `http503`, `waf` (409 with the recorded body), `waf_empty` (409,
  no body). `times=None` means until `srv.clear_faults()`.
- `srv.drop_akn_link = True`: act pages are served without their caricaAKN link.
"""

from __future__ import annotations

import asyncio
import html as _html
import json
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from aiohttp import web
from aiohttp.test_utils import TestServer

API_PREFIX = "/t/normattiva.api/bff-opendata/v1/api/v1"
_MCP = "normattiva-api/normattiva-mcp/tests/fixtures/risposte/"
_SDK = "normattiva-api/normattiva-sdk/tests/fixtures/"
_CON = "normattiva-api/normattiva-sdk/tests/contratto/dataset/risposte/"
_LEG = "normattiva-api/legalize-pipeline/legalize-dev__legalize-pipeline__"

# exact URN posted -> (capture file relative to testdata, HTTP status). Contract-monitor files
# (_CON) are unwrapped: their `stato` is the status, `corpo` the body (re-serialised; REDUCED text).
# Where the recorder did not store the request URN, the URN chosen here is marked "(chosen)".
API_ANSWERS: dict[str, tuple[str, int]] = {
    "urn:nir:stato:regio.decreto:1942-03-16;262:2~art2043": (_MCP + "reale-atto-cc-2043.json", 200),
    "urn:nir:stato:regio.decreto:1942-03-16;262~art2043": (_MCP + "reale-404-coordinate.json", 404),
    "urn:nir:stato:regio.decreto:1942-03-16;262:2~art1": (_MCP + "reale-atto-cc-1-primo-articolo-codice.json", 200),
    "urn:nir:stato:regio.decreto:1942-03-16;262:2~art542": (_MCP + "reale-atto-cc-542-rubrica-non-parentetica.json", 200),
    "urn:nir:stato:regio.decreto:1942-03-30;327:1~art422": (_MCP + "reale-atto-navigazione-422.json", 200),
    "urn:nir:stato:legge:1970-05-20;300~art18": (_MCP + "reale-atto-statuto-18.json", 200),
    "urn:nir:stato:decreto.legislativo:2000-08-18;267~art42": (_MCP + "reale-lista-tuel-42.json", 200),
    "urn:nir:stato:decreto.legislativo:2001-06-08;231~art1": (_MCP + "reale-preambolo-231-art1.json", 200),
    "urn:nir:stato:decreto.legislativo:2023-03-31;36~art1": (_MCP + "reale-preambolo-36-2023-art1.json", 200),
    "urn:nir:stato:decreto.del.presidente.della.repubblica:1986-12-22;917~art51": (_MCP + "reale-abrogato-tuir-51.json", 200),
    # (chosen) a well-formed URN of an act that does not exist -> the recorded 400/1003
    "urn:nir:stato:legge:1990-08-07;2410~art1": (_MCP + "reale-400-urn-non-valido.json", 400),
    "urn:nir:stato:legge:2001-12-28;448~art2": (_SDK + "urn_ambiguo.json", 200),
    "urn:nir:stato:legge:1990-08-07;241~art2": (_SDK + "urn_articolo_con_commi.json", 200),
    "urn:nir:stato:legge:1990-08-07;241~art19": (_SDK + "urn_articolo_con_aggiornamento.json", 200),
    "urn:nir:stato:regio.decreto:1930-10-19;1398:1~art416bis": (_SDK + "urn_articolo_allegato.json", 200),
    "urn:nir:stato:regio.decreto:1930-10-19;1398:1~art416bis!vig=1981-01-01": (_SDK + "urn_non_ancora_vigente.json", 200),
    "urn:nir:stato:legge:2016-12-11;232~art1": (_SDK + "urn_troncato_100_commi.json", 200),
    # (chosen) any date inside the recorded window 19870312-20230227
    "urn:nir:stato:legge:1970-12-01;898~art5!vig=2000-01-01": (_SDK + "urn_vigenza_finestra.json", 200),
    "urn:nir:stato:legge:1990-08-07;241": (_SDK + "urn_atto_intero.json", 200),
    # (chosen) the legalize pipeline's raw bodies; its request URNs were not recorded. R.D. 262/1942
    # without the annex answers the approving decree's art. 1 (UPSTREAMS.md, the body's own text).
    "urn:nir:stato:regio.decreto:1942-03-16;262~art1": (_LEG + "sample-code.json", 200),
    # L. 234/2021: `atto: null` + a `lista` whose first version starts on 2027-01-01. What the API
    # answers with !vig=<a date before 2027> is not recorded: the same body is served (chosen).
    "urn:nir:stato:legge:2021-12-30;234~art1": (_LEG + "sample-with-tables.json", 200),
    "urn:nir:stato:legge:2021-12-30;234~art1!vig=2026-12-01": (_LEG + "sample-with-tables.json", 200),
    "urn:nir:stato:legge:1990-08-07;9999": (_SDK + "errore_404_atto_assente.json", 404),
    "urn:nir:stato:legge:1990-08-07;9999~art1": (_SDK + "errore_404_atto_assente.json", 404),
    "urn:nir:stato:legge:1990-08-07;241~art1@originale": (_CON + "urn_versione_originale.json", 0),
    "urn:nir:stato:costituzione:1947-12-27~art3": (_CON + "urn_costituzione.json", 0),
    # (chosen) article number for the recorded "article does not exist" coordinates 404
    "urn:nir:stato:legge:1990-08-07;241~art999": (_CON + "urn_articolo_inesistente.json", 0),
}

ERROR_PAGE = "normattiva-html/ondata__normattiva_error_page__legge_2022_53.html"
REAL_PAGES = {  # codice redazionale -> real captured act page
    "090G0294": "normattiva-html/mcp-legal-it__landing_legge_241_1990.html",
    "000G0040": "normattiva-html/emanuele__act_page__dl_2000-02-04_n8__000G0040.html",
}
EXTRA_ACTS = {  # acts with a real page but no captured export: (urn, gu_date ISO, codice)
    "000G0040": ("urn:nir:stato:decreto.legge:2000-02-04;8", "2000-02-07"),
}
WAF_BODY = _SDK + "errore_409_waf.html"
API_500_BODY = '{"message":"Errore generico della chiamata, riprovare più tardi","code":"1000"}'  # self-written, API_FACTS §7

_ALIAS_RE = re.compile(rb'<FRBRalias\s+name="(urn:nir|eli)"\s+value="([^"]+)"')
_EXPR_DATE_RE = re.compile(rb'<FRBRExpression>.*?<FRBRdate\s+date="([0-9-]+)"', re.S)

SELF_WRITTEN_PAGE = """<!DOCTYPE html>
<!-- SELF-WRITTEN by tests/normattiva_server.py in the format of the real act page
     (normattiva-html/mcp-legal-it__landing_legge_241_1990.html); not a capture. -->
<html class="no-js" lang="it">
	<head>
<meta charset="utf-8">
<meta name="author" content="Istituto Poligrafico e Zecca dello Stato" />
		<!-- Titolo della pagina -->
		<title>{title} - Normattiva</title>
	</head>
	<body>
<div class="sidebar-wrapper it-line-left-side py-1">
	<div class="sidebar-linklist-wrapper">
		<div class="link-list-wrapper">
			<ul class="link-list">
		        <li>
		          <h3 class="no_toc">Funzioni </h3>
		        </li>
				<li>
					<a href="/atto/vediMenuExport?atto.dataPubblicazioneGazzetta={gu_iso}&amp;atto.codiceRedazionale={codice}&amp;currentSearch=" target="_blank" class="list-item medium">
						esporta
					</a>
				</li>
				<!-- AKN -->
				<li>
							<!-- {vig} -->
						<a href="/do/atto/caricaAKN?dataGU={gu}&amp;codiceRedaz={codice}&amp;dataVigenza={vig}" target="_blank" class="list-item medium">
							esporta in Akoma ntoso
							<!--esporta-->
						</a>
				</li>
			</ul>
		</div>
	</div>
</div>
	</body>
</html>
"""


class Export:
    def __init__(self, path: Path, urn: str, eli: str, version: str) -> None:
        self.path, self.urn, self.eli, self.version = path, urn, eli, version  # version YYYYMMDD


class Act:
    def __init__(self, codice: str, gu: str, urn: str) -> None:
        self.codice, self.gu, self.urn = codice, gu, urn  # gu YYYYMMDD
        self.exports: list[Export] = []

    @property
    def keys(self) -> set[str]:
        m = re.match(r"^(urn:nir:[^:]+:[^:]+)(?::(\d{4})(-\d{2}-\d{2})?)?(;\d+)?$", self.urn)
        out = {self.urn}
        if m and m.group(2) and m.group(4):
            out.add(f"{m.group(1)}:{m.group(2)}{m.group(4)}")
        return out


def _act_key(urn: str) -> str:
    """The act part of a requested URN: drop !vig, @version, ~partition and annex."""
    s = unquote(urn).strip()
    s = re.split(r"[!@~]", s, maxsplit=1)[0]
    return re.sub(r"(;\d+[a-z]*):\d+$", r"\1", s)


class NormattivaServer:
    """Start with `async with NormattivaServer(testdata) as srv:`; see the module docstring."""

    def __init__(self, testdata: Path, *, sleep_seconds: float = 5.0) -> None:
        self.data = Path(testdata)
        self.sleep_seconds = sleep_seconds
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.wrong_urns: dict[str, str] = {"urn:nir:stato:legge:1991-08-07;241": "090G0294"}
        self._faults: list[dict[str, Any]] = []
        self.drop_akn_link = False  # True: act pages lose their caricaAKN link (UpstreamChanged tests)
        self._sessions: set[str] = set()
        self.acts: dict[str, Act] = {}
        self._by_urn: dict[str, Act] = {}
        self._index_exports()
        self._server: TestServer | None = None

    # ---- index
    def _index_exports(self) -> None:
        for path in sorted((self.data / "normattiva-akn").glob("*.xml")):
            with path.open("rb") as fh:
                head = fh.read(200_000)
            aliases = dict((k.decode(), v.decode()) for k, v in _ALIAS_RE.findall(head))
            urn, eli = aliases.get("urn:nir"), aliases.get("eli")
            if not urn or not eli:
                continue
            m = re.match(r"eli/id/(\d{4})/(\d{2})/(\d{2})/([0-9A-Z]{8})/(CONSOLIDATED|ORIGINAL)(?:/(\d{8}))?", eli)
            if not m:
                continue
            gu, codice = m.group(1) + m.group(2) + m.group(3), m.group(4)
            version = m.group(6)
            if version is None:  # ORIGINAL: the expression date
                em = _EXPR_DATE_RE.search(head)
                version = em.group(1).decode().replace("-", "") if em else gu
            act = self.acts.setdefault(codice, Act(codice, gu, urn))
            if any(e.version == version for e in act.exports):
                continue  # same version captured twice (e.g. vintra73 duplicates): first file wins
            act.exports.append(Export(path, urn, eli, version))
        for codice, (urn, gu_iso) in EXTRA_ACTS.items():
            self.acts.setdefault(codice, Act(codice, gu_iso.replace("-", ""), urn))
        for act in self.acts.values():
            act.exports.sort(key=lambda e: e.version)
            for k in act.keys:
                self._by_urn.setdefault(k, act)

    # ---- lifecycle
    async def __aenter__(self) -> NormattivaServer:
        app = web.Application(middlewares=[self._middleware])
        app.router.add_get("/uri-res/N2Ls", self._n2ls)
        app.router.add_get(r"/eli/id/{y:\d{4}}/{m:\d{2}}/{d:\d{2}}/{codice}/{kind}", self._eli)
        app.router.add_get(r"/eli/id/{y:\d{4}}/{m:\d{2}}/{d:\d{2}}/{codice}/{kind}/{ver}", self._eli)
        app.router.add_get("/do/atto/caricaAKN", self._carica_akn)
        app.router.add_post(API_PREFIX + "/atto/dettaglio-atto-urn", self._api_article)
        app.router.add_get(API_PREFIX + "/tipologiche/denominazione-atto", self._api_types)
        app.router.add_get("/fault/timeout", self._fault_timeout)
        app.router.add_get("/fault/{status:\\d{3}}", self._fault_status)
        self._server = TestServer(app, host="127.0.0.1")
        await self._server.start_server()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            await self._server.close()

    @property
    def root(self) -> str:
        assert self._server is not None, "server not started"
        return str(self._server.make_url("")).rstrip("/")

    @property
    def portal_url(self) -> str:
        return self.root

    @property
    def api_url(self) -> str:
        return self.root + API_PREFIX

    def settings_overrides(self) -> dict[str, str]:
        """Keyword args for conftest's make_settings(...)."""
        return {"normattiva_url": self.portal_url, "normattiva_api_url": self.api_url}

    def set_fault(self, kind: str, where: str = "any", times: int | None = None) -> None:
        assert kind in ("timeout", "http500", "http503", "waf", "waf_empty"), kind
        self._faults.append({"kind": kind, "where": where, "times": times})

    def clear_faults(self) -> None:
        self._faults.clear()

    # ---- helpers
    def _read(self, rel: str) -> bytes:
        return (self.data / rel).read_bytes()

    def _error_page(self) -> web.Response:
        return web.Response(body=self._read(ERROR_PAGE), content_type="text/html", charset="utf-8")

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.requests.append((request.method, request.path_qs, dict(request.headers)))
        is_api = request.path.startswith(API_PREFIX)
        for f in list(self._faults):
            if f["where"] not in ("any", "api" if is_api else "portal"):
                continue
            if f["times"] is not None:
                f["times"] -= 1
                if f["times"] <= 0:
                    self._faults.remove(f)
            return await self._apply_fault(f["kind"], is_api)
        if is_api and request.method == "GET" and "Content-Type" in request.headers:
            return web.Response(status=409, body=self._read(WAF_BODY), content_type="text/html", charset="utf-8")
        return await handler(request)

    async def _apply_fault(self, kind: str, is_api: bool) -> web.StreamResponse:
        if kind == "timeout":
            await asyncio.sleep(self.sleep_seconds)
            return web.Response(status=504)
        if kind == "http500":
            if is_api:
                return web.Response(status=500, text=API_500_BODY, content_type="application/json")
            return web.Response(status=500)
        if kind == "http503":
            return web.Response(status=503)
        if kind == "waf":
            return web.Response(status=409, body=self._read(WAF_BODY), content_type="text/html", charset="utf-8")
        return web.Response(status=409)

    def _page_for(self, act: Act) -> web.Response:
        if act.codice in REAL_PAGES:
            body = self._read(REAL_PAGES[act.codice])
        else:
            vig = act.exports[-1].version if act.exports else act.gu
            gu = act.gu
            title = _html.escape(f"{act.urn}")
            body = SELF_WRITTEN_PAGE.format(
                title=title, gu=gu, gu_iso=f"{gu[:4]}-{gu[4:6]}-{gu[6:]}", codice=act.codice, vig=vig
            ).encode()
        if self.drop_akn_link:
            body = re.sub(rb"<a [^>]*caricaAKN[^>]*>.*?</a>", b"", body, flags=re.S)
        sid = secrets.token_urlsafe(16)
        self._sessions.add(sid)
        resp = web.Response(body=body, content_type="text/html", charset="utf-8")
        resp.set_cookie("JSESSIONID", sid, path="/", httponly=True)
        return resp

    # ---- portal
    async def _n2ls(self, request: web.Request) -> web.StreamResponse:
        key = _act_key(request.query_string)
        if key in self.wrong_urns:
            act = self.acts.get(self.wrong_urns[key])
        else:
            act = self._by_urn.get(key) or self._by_urn.get(re.sub(r"^(urn:nir:stato:costituzione):[0-9-]+$", r"\1", key))
        return self._page_for(act) if act else self._error_page()

    async def _eli(self, request: web.Request) -> web.StreamResponse:
        act = self.acts.get(request.match_info["codice"].upper())
        gu = request.match_info["y"] + request.match_info["m"] + request.match_info["d"]
        if act is None or act.gu != gu:
            return self._error_page()
        return self._page_for(act)

    async def _carica_akn(self, request: web.Request) -> web.StreamResponse:
        if request.cookies.get("JSESSIONID") not in self._sessions:
            return self._error_page()
        act = self.acts.get(request.query.get("codiceRedaz", "").upper())
        if act is None or act.gu != request.query.get("dataGU") or not act.exports:
            return self._error_page()
        vig = request.query.get("dataVigenza") or act.exports[-1].version
        chosen = [e for e in act.exports if e.version <= vig]
        if not chosen:
            return self._error_page()
        return web.Response(body=chosen[-1].path.read_bytes(), content_type="application/xml", charset="utf-8")

    # ---- API
    async def _api_article(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            urn = json.loads(raw)["urn"]
            assert isinstance(urn, str)
        except Exception:  # noqa: BLE001
            return web.Response(status=400, body=self._read(_MCP + "reale-400-urn-non-valido.json"), content_type="application/json")
        entry = API_ANSWERS.get(urn)
        if entry is None:
            return web.Response(
                status=404, body=self._read(_SDK + "errore_404_atto_assente.json"), content_type="application/json",
                headers={"X-Fake-Unknown-Urn": "1"},
            )
        rel, status = entry
        body = self._read(rel)
        ctype = "application/json"
        if status == 0:  # contract-monitor wrapper
            doc = json.loads(body)
            status, ctype = doc["stato"], doc["tipo_contenuto"].split(";")[0]
            body = json.dumps(doc["corpo"], ensure_ascii=False).encode()
        return web.Response(status=status, body=body, content_type=ctype)

    async def _api_types(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=self._read(_SDK + "tipologiche_denominazione_atto.json"), content_type="application/json")

    # ---- faults
    async def _fault_timeout(self, request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(self.sleep_seconds)
        return web.Response(text="late")

    async def _fault_status(self, request: web.Request) -> web.StreamResponse:
        return web.Response(status=int(request.match_info["status"]))
