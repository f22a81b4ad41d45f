"""Giustizia Amministrativa: the portal's decision search and the mdp decision texts.

Parsing is pure (bytes in, Structs out, lxml with no network and no entity expansion); the
async functions at the end do the I/O with the `HttpClient` they are given. Facts relied on
are in DISCOVERY.md (SentenzeWeb, GA, TLS).

`document_url` is user input that we fetch, so it is checked strictly (host, scheme, port,
path, query keys and values) and rebuilt from its checked parts before any request.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

import lxml.etree
import lxml.html
import msgspec

from .errors import InvalidArg, NotFound, UpstreamChanged
from .http import HttpClient
from .sentenzeweb import HL_CLOSE, HL_OPEN

SEARCH_PATH = "/web/guest/dcsnprr"
PORTLET_ID = "decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10"
NS = f"_{PORTLET_ID}_"  # Liferay namespace of the portlet's form fields
DOC_PATH = "/visualizza/"
PAGE_SIZES = (20, 40, 60)

TAR_SEATS = (
    "Ancona", "Aosta", "Bari", "Bologna", "Bolzano", "Brescia", "Cagliari", "Campobasso",
    "Catania", "Catanzaro", "Firenze", "Genova", "L'Aquila", "Latina", "Lecce", "Milano",
    "Napoli", "Palermo", "Parma", "Perugia", "Pescara", "Potenza", "Reggio Calabria", "Roma",
    "Salerno", "Torino", "Trento", "Trieste", "Venezia",
)  # fmt: skip
SEDI: dict[str, str] = {
    "consiglio di stato": "Consiglio di Stato",
    "cds": "Consiglio di Stato",
    "c.g.a.r.s": "C.G.A.R.S",
    "c.g.a.r.s.": "C.G.A.R.S",
    "cgars": "C.G.A.R.S",
    **{s.lower(): s for s in TAR_SEATS},
}
TIPI: dict[str, str] = {
    "sentenza": "Sentenza",
    "ordinanza": "Ordinanza",
    "decreto": "Decreto",
    "parere": "Parere",
    "adunanza plenaria": "P",
    "adunanza generale": "C",
}
SEDE_VALID = "Consiglio di Stato, C.G.A.R.S, or a TAR seat: " + ", ".join(TAR_SEATS)
TIPO_VALID = ", ".join(TIPI)

_AUTH_SCRIPT_RE = re.compile(r"""Liferay\.authToken\s*=\s*['"]([A-Za-z0-9_-]{4,64})['"]""")
_AUTH_URL_RE = re.compile(r"""[?&;]p_auth=([A-Za-z0-9_-]{4,64})""")
_TOTAL_RE = re.compile(r"Trovati\s*<strong>\s*([\d.]+)\s*</strong>\s*risultat", re.I)
_ECLI_RE = re.compile(r"ECLI:IT:[A-Z]+:\d{4}:[0-9A-Z]+")

DOC_PARAM_RES: dict[str, re.Pattern[str]] = {
    "nodeRef": re.compile(r""),
    "schema": re.compile(r"[a-z][a-z_]{1,19}"),
    "nrg": re.compile(r"\d{6,12}"),
    "nomeFile": re.compile(r"\d{6,12}_\d{2}\.(?:html|pdf)"),
    "subDir": re.compile(r"Provvedimenti"),
}
DOC_URL_VALID = (
    "a decision URL from it_ga_search, e.g. https://mdp.giustizia-amministrativa.it/visualizza/"
    "?nodeRef=&schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html&subDir=Provvedimenti"
)


# ---------------------------------------------------------------- Structs


class GaHit(msgspec.Struct, frozen=True, kw_only=True):
    """One administrative decision from the portal search."""

    ecli: str | None = None
    sede: str | None = None
    section: str | None = None
    decision_type: str | None = None
    number: str | None = None
    year: int | None = None
    registro_generale: str | None = None
    snippet: str | None = None
    document_url: str | None = None
    pdf_only: bool = False
    source_url: str


class GaSearchResult(msgspec.Struct, frozen=True, kw_only=True):
    """First page of the portal's answer (newest first); `anno` is filtered here, not upstream."""

    total_upstream: int
    returned: int
    anno_filter: int | None = None
    anno_applied_client_side: bool = False
    note: str | None = None
    hits: list[GaHit] = msgspec.field(default_factory=list)
    licence: str = "Official decisions (art. 5 l. 633/1941), Giustizia Amministrativa"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


class GaSection(msgspec.Struct, frozen=True):
    """Where a section of the decision sits in the full text (character offsets)."""

    name: Literal["epigrafe", "fatto_e_diritto", "motivazione", "dispositivo", "sottoscrizioni"]
    start: int
    length: int


class GaMetadata(msgspec.Struct, frozen=True, kw_only=True):
    """Registry data from `meta`/`meta/descrittori` of the decision XML."""

    document_id: str | None = None
    tipologia: str | None = None
    numero: str | None = None
    anno: int | None = None
    registro_generale: str | None = None
    registro_anno: int | None = None
    urn: str | None = None
    data_pubblicazione: str | None = None
    estensore: str | None = None
    court: str | None = None


class GaDecision(msgspec.Struct, frozen=True, kw_only=True):
    """One decision's text, paged; `pdf_only` decisions carry no text (open `source_url`)."""

    document_url: str
    pdf_only: bool = False
    metadata: GaMetadata = msgspec.field(default_factory=GaMetadata)
    sections: list[GaSection] = msgspec.field(default_factory=list)
    text: str = ""
    offset: int = 0
    total_chars: int = 0
    next_offset: int | None = None
    source_url: str
    licence: str = "Official decisions (art. 5 l. 633/1941), Giustizia Amministrativa"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


# ---------------------------------------------------------------- argument checks


def resolve_sede(sede: str | None) -> str | None:
    if sede is None or not sede.strip():
        return None
    key = sede.strip().lower()
    key = re.sub(r"^(t\.?a\.?r\.?\s+)", "", key)
    if key not in SEDI:
        raise InvalidArg(f"unknown sede {sede!r}", valid=SEDE_VALID)
    return SEDI[key]


def resolve_tipo(tipo: str | None) -> str | None:
    if tipo is None or not tipo.strip():
        return None
    key = tipo.strip().lower()
    if key not in TIPI:
        raise InvalidArg(f"unknown tipo {tipo!r}", valid=TIPO_VALID)
    return TIPI[key]


def page_size(limit: int) -> int:
    return next((s for s in PAGE_SIZES if limit <= s), PAGE_SIZES[-1])


def search_form(query: str | None, sede: str | None, tipo: str | None, numero: str | None, limit: int) -> dict[str, str]:
    form = {
        NS + "searchtextProvvedimenti": query or "",
        NS + "sedeProvvedimenti": sede or "",
        NS + "TipoProvvedimentoItem": tipo or "",
        NS + "isAdvancedSearch": "false",
        NS + "pageSize": str(page_size(limit)),
    }
    if numero:
        form[NS + "asSearchMode"] = "provv"
        form[NS + "numeroProvvedimenti"] = numero
    return form


def action_params(p_auth: str) -> dict[str, str]:
    return {
        "p_p_id": PORTLET_ID,
        "p_p_lifecycle": "1",
        "p_p_state": "normal",
        "p_p_mode": "view",
        NS + "javax.portlet.action": "search",
        "p_auth": p_auth,
    }


def check_document_url(url: object, document_base: str) -> str:
    """Accept only the decision host's `/visualizza/` URLs; return the URL rebuilt canonically."""
    if not isinstance(url, str) or len(url) > 1000:
        raise InvalidArg("document_url must be a string of at most 1000 characters", valid=DOC_URL_VALID)
    base = urlsplit(document_base)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise InvalidArg(f"not a valid URL: {url[:200]!r}", valid=DOC_URL_VALID)
    if parts.scheme.lower() != base.scheme.lower():
        raise InvalidArg(f"scheme {parts.scheme!r} not allowed for decisions", valid=DOC_URL_VALID)
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise InvalidArg("URLs with user information are not allowed", valid=DOC_URL_VALID)
    if (parts.hostname or "").lower() != (base.hostname or "").lower():
        raise InvalidArg(f"host {parts.hostname!r} is not the decision host", valid=DOC_URL_VALID)
    if port != base.port:
        raise InvalidArg(f"port {port} is not allowed", valid=DOC_URL_VALID)
    if parts.path != DOC_PATH or parts.fragment:
        raise InvalidArg(f"path {parts.path!r} is not a decision path", valid=DOC_URL_VALID)
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InvalidArg("malformed query string", valid=DOC_URL_VALID)
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys) or not set(keys) <= set(DOC_PARAM_RES):
        raise InvalidArg("unexpected or repeated query parameters", valid=DOC_URL_VALID)
    values = dict(pairs)
    for key in ("schema", "nrg", "nomeFile"):
        if key not in values:
            raise InvalidArg(f"missing query parameter {key}", valid=DOC_URL_VALID)
    for key, value in values.items():
        if not DOC_PARAM_RES[key].fullmatch(value):
            raise InvalidArg(f"bad value for {key}: {value[:60]!r}", valid=DOC_URL_VALID)
    ordered = [(k, values.get(k, "Provvedimenti" if k == "subDir" else "")) for k in DOC_PARAM_RES]
    return f"{base.scheme}://{base.netloc}{DOC_PATH}?{urlencode(ordered)}"


def is_pdf_url(url: str) -> bool:
    return dict(parse_qsl(urlsplit(url).query)).get("nomeFile", "").endswith(".pdf")


# ---------------------------------------------------------------- parsing: portal


def extract_p_auth(page: bytes | str) -> str:
    """The Liferay CSRF token, from `Liferay.authToken = '…'` or a `p_auth=` action URL."""
    text = page.decode("utf-8", "replace") if isinstance(page, bytes) else page
    m = _AUTH_SCRIPT_RE.search(text) or _AUTH_URL_RE.search(text.replace("&amp;", "&"))
    if not m:
        raise UpstreamChanged("GA search page carries no p_auth token (Liferay layout changed?)")
    return m.group(1)


def _html_root(body: bytes) -> lxml.html.HtmlElement:
    parser = lxml.html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True, encoding="utf-8")
    try:
        return lxml.html.document_fromstring(body, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise UpstreamChanged(f"GA answered an unreadable page: {exc}")


def _text(el: lxml.html.HtmlElement | None) -> str:
    return " ".join(el.text_content().split()) if el is not None else ""


def _hit(article: lxml.html.HtmlElement, document_base: str) -> GaHit:
    url = None
    for a in article.iter("a"):
        href = (a.get("href") or "").strip()
        if DOC_PATH in href:
            url = href
            break
    ecli = None
    sede = section = dtype = number = rg = None
    snippet = None
    for div in article.iter("div"):
        classes = (div.get("class") or "").split()
        txt = _text(div)
        if "snippet" in classes:
            for em in div.iter("em"):
                em.text = HL_OPEN + (em.text or "")
                em.tail = HL_CLOSE + (em.tail or "")
            snippet = _text(div).strip(" .…") or None
            continue
        if " sede di " in f" {txt} " and "numero provv" in txt:
            bolds = [_text(b) for b in div.findall(".//b")]
            if len(bolds) >= 4:
                dtype, sede, section, number = bolds[:4]
        elif txt.startswith("Numero ricorso"):
            b = div.find(".//b")
            rg = _text(b) or None
        elif m := _ECLI_RE.search(txt):
            ecli = m.group(0)
    document_url = None
    if url:
        try:
            document_url = check_document_url(url, document_base)
        except InvalidArg:
            document_url = None
    if document_url is None and ecli is None:
        raise UpstreamChanged("GA result item without decision URL or ECLI")
    year = None
    if number and re.fullmatch(r"\d{5,}", number):
        year = int(number[:4])
    elif ecli:
        year = int(ecli.split(":")[3])
    return GaHit(
        ecli=ecli,
        sede=sede,
        section=section,
        decision_type=dtype,
        number=number,
        year=year,
        registro_generale=rg,
        snippet=snippet,
        document_url=document_url,
        pdf_only=bool(document_url and is_pdf_url(document_url)),
        source_url=document_url or url or document_base,
    )


def parse_search_page(body: bytes, document_base: str) -> tuple[int, list[GaHit]]:
    """(upstream total, hits) from the POST answer; a page with neither is `upstream_changed`."""
    text = body.decode("utf-8", "replace")
    m = _TOTAL_RE.search(text)
    root = _html_root(body)
    articles = [a for a in root.iter("article") if "ricerca--item" in (a.get("class") or "").split()]
    if m is None:
        if articles:
            raise UpstreamChanged("GA results without the 'Trovati N risultati' total")
        if re.search(r"nessun\w*\s+(risultat|provvediment|document)", text, re.I):
            return 0, []
        raise UpstreamChanged("GA answered a page that is not a search result")
    total = int(m.group(1).replace(".", ""))
    return total, [_hit(a, document_base) for a in articles]


# ---------------------------------------------------------------- parsing: decision XML

_XML_PARSER_KW = dict(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False)


def _local(el: lxml.etree._Element) -> str:
    return lxml.etree.QName(el).localname if isinstance(el.tag, str) else ""


def _block_text(el: lxml.etree._Element | None, skip: frozenset[str] = frozenset()) -> str:
    """Text of an element, one line per `div`, `*Ted` twins and whitespace dropped."""
    if el is None:
        return ""
    lines: list[str] = []

    def walk(node: lxml.etree._Element) -> None:
        name = _local(node)
        if not name or name.endswith("Ted") or name in skip:
            return
        kids = [c for c in node if isinstance(c.tag, str)]
        if not kids or name == "div" and not any(_local(c) == "div" for c in kids):
            line = " ".join("".join(node.itertext()).split())
            if line:
                lines.append(line)
            return
        if node.text and node.text.strip():
            lines.append(" ".join(node.text.split()))
        for c in kids:
            walk(c)
            if c.tail and c.tail.strip():
                lines.append(" ".join(c.tail.split()))

    walk(el)
    return "\n".join(lines)


def _child(el: lxml.etree._Element | None, name: str) -> lxml.etree._Element | None:
    if el is None:
        return None
    return next((c for c in el if _local(c) == name), None)


def _dmy_to_iso(value: str | None) -> str | None:
    m = re.fullmatch(r"(\d{2})/(\d{2})/(\d{4})", (value or "").strip())
    return f"{m.group(3)}-{m.group(2)}-{m.group(1)}" if m else None


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value and value.strip().isdigit() else None


SECTION_TAGS: tuple[tuple[str, str], ...] = (
    ("epigrafe", "epigrafe"),
    ("premessa", "fatto_e_diritto"),
    ("motivazione", "motivazione"),
    ("dispositivo", "dispositivo"),
    ("sottoscrizioni", "sottoscrizioni"),
)
HEADINGS = {
    "epigrafe": "EPIGRAFE",
    "fatto_e_diritto": "FATTO E DIRITTO",
    "motivazione": "MOTIVAZIONE",
    "dispositivo": "DISPOSITIVO",
    "sottoscrizioni": "SOTTOSCRIZIONI",
}


def parse_decision_xml(body: bytes) -> tuple[GaMetadata, str, list[GaSection]]:
    """`<GA><Provvedimento>` -> (metadata, full text with headings, section offsets)."""
    head = body.lstrip()[:300].lower()
    if head.startswith(b"<!doctype html") or head.startswith(b"<html"):
        raise UpstreamChanged("the decision host answered HTML where the GA XML was expected")
    try:
        root = lxml.etree.fromstring(body, parser=lxml.etree.XMLParser(**_XML_PARSER_KW))
    except lxml.etree.XMLSyntaxError as exc:
        raise UpstreamChanged(f"decision XML is not well formed: {exc}")
    prov = _child(root, "Provvedimento") if _local(root) == "GA" else None
    if prov is None:
        raise UpstreamChanged(f"expected <GA><Provvedimento>, got <{_local(root)}>")
    meta = _child(prov, "meta")
    desc = _child(meta, "descrittori")
    fasc = _child(desc, "fascicolo")
    reg = _child(desc, "registro")
    urn = _child(desc, "urn")
    est = _child(_child(meta, "firmaEstensore"), "firma")
    adunanza = _child(_child(prov, "epigrafe"), "adunanza")
    court_lines = _block_text(adunanza).split("\n")[:2] if adunanza is not None else []
    reg_year = _int_or_none(reg.get("anno")) if reg is not None else None
    reg_n = reg.get("n") if reg is not None else None
    metadata = GaMetadata(
        document_id=meta.get("id") if meta is not None else None,
        tipologia=_block_text(_child(meta, "tipologia")) or None,
        numero=fasc.get("n") if fasc is not None else None,
        anno=_int_or_none(fasc.get("anno")) if fasc is not None else None,
        registro_generale=f"{reg_n}/{reg_year}" if reg_n and reg_year else None,
        registro_anno=reg_year,
        urn=(urn.text or "").strip() or None if urn is not None else None,
        data_pubblicazione=_dmy_to_iso(_block_text(_child(meta, "dataPubblicazione"))),
        estensore=(est.text or "").strip() or None if est is not None else None,
        court=" ".join(court_lines) or None,
    )
    parts: list[str] = []
    sections: list[GaSection] = []
    pos = 0
    for tag, name in SECTION_TAGS:
        body_text = _block_text(_child(prov, tag))
        if not body_text:
            continue
        block = f"{HEADINGS[name]}\n{body_text}"
        if parts:
            pos += 2
        sections.append(GaSection(name=name, start=pos, length=len(block)))  # type: ignore[arg-type]
        parts.append(block)
        pos += len(block)
    text = "\n\n".join(parts)
    if not text:
        raise UpstreamChanged("decision XML has no text sections")
    return metadata, text, sections


# ---------------------------------------------------------------- I/O


async def open_session(client: HttpClient, ga_url: str) -> str:
    """GET the search page: the session cookie lands in the client's jar; returns p_auth."""
    resp = await client.request("GET", ga_url + SEARCH_PATH, not_found_statuses=(), what="GA search page")
    return extract_p_auth(resp.body)


async def post_search(client: HttpClient, ga_url: str, p_auth: str, form: dict[str, str]) -> bytes:
    resp = await client.request(
        "POST",
        ga_url + SEARCH_PATH,
        params=action_params(p_auth),
        data=form,
        headers={"Referer": ga_url + SEARCH_PATH},
        not_found_statuses=(),
        what="GA search",
    )
    return resp.body


async def fetch_document(client: HttpClient, url: str, document_base: str, ga_url: str) -> bytes:
    """GET a checked decision URL; a redirect that lands elsewhere is refused."""
    resp = await client.request(
        "GET",
        url,
        headers={"Referer": ga_url + SEARCH_PATH},
        not_found_statuses=(404, 410),
        what="GA decision",
        same_host_redirects=True,
    )
    final = urlsplit(resp.url)
    base = urlsplit(document_base)
    if (final.hostname or "").lower() != (base.hostname or "").lower() or final.port != base.port or final.path != DOC_PATH:
        raise InvalidArg("the decision URL redirected away from the decision host", valid=DOC_URL_VALID)
    if not resp.body.strip():
        raise NotFound("the decision host returned an empty document", url=url)
    return resp.body
