"""The portal's decision search: the Liferay form we post (p_auth, numero, page size) and its
result page read into hits (number and year split, citation, ECLI, checked decision link)."""

from __future__ import annotations

import re

import lxml.etree
import lxml.html
import msgspec

from it_eli.runtime.errors import InvalidArg, UpstreamChanged
from it_eli.sources.ga.courts import (
    ECLI_COURTS,
    ECLI_RE,
    SEATS,
    court_name,
    ga_citation,
    section_label,
    sede_of,
    split_number,
)
from it_eli.sources.ga.document_url import DOC_PATH, check_document_url, is_pdf_url
from it_eli.sources.marks import HL_CLOSE, HL_OPEN, clip

SEARCH_PATH = "/web/guest/dcsnprr"
PORTLET_ID = "decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10"
NS = f"_{PORTLET_ID}_"  # Liferay namespace of the portlet's form fields
PAGE_SIZES = (20, 40, 60)

_AUTH_SCRIPT_RE = re.compile(r"""Liferay\.authToken\s*=\s*['"]([A-Za-z0-9_-]{4,64})['"]""")
_AUTH_URL_RE = re.compile(r"""[?&;]p_auth=([A-Za-z0-9_-]{4,64})""")
_TOTAL_RE = re.compile(r"Trovati\s*<strong>\s*([\d.]+)\s*</strong>\s*risultat", re.I)
_PAGER_RE = re.compile(r"Risultati\s+da\s+\d+\s+a\s+\d+", re.I)

MAX_SNIPPET_CHARS = 600


class GaHit(msgspec.Struct, frozen=True, kw_only=True):
    """One administrative decision from the portal search: number and year split
    (`202611970` on the portal = n. 11970/2026), the Italian citation and the native ECLI."""

    citation: str | None = None
    ecli: str | None = None
    court: str | None = None
    sede: str | None = None
    region: str | None = None
    section: str | None = None
    decision_type: str | None = None
    number: str | None = None
    year: int | None = None
    portal_number: str | None = None
    registro_generale: str | None = None
    snippet: str | None = None
    document_url: str | None = None
    pdf_only: bool = False
    source_url: str


class GaSearchResult(msgspec.Struct, frozen=True, kw_only=True):
    """First page of the portal's answer (newest first); `anno` and `sezione` are filtered here,
    on that page, not upstream (the answer says so in `note`)."""

    total_upstream: int
    returned: int
    sede: str | None = None
    anno_filter: int | None = None
    anno_applied_client_side: bool = False
    sezione_filter: str | None = None
    note: str | None = None
    hits: list[GaHit] = msgspec.field(default_factory=list)
    licence: str = "Official decisions (art. 5 l. 633/1941), Giustizia Amministrativa"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


# ---------------------------------------------------------------- the search form


def resolve_numero(numero: object, anno: object) -> tuple[str | None, int | None]:
    """`numero` as int or digits, or `11970/2026` (then it also gives the year) -> (digits, anno)."""
    if numero is None or (isinstance(numero, str) and not numero.strip()):
        return None, anno if isinstance(anno, int) else None
    if isinstance(numero, bool) or not isinstance(numero, (int, str)):
        raise InvalidArg("numero must be a number or digits", valid="e.g. 11970, '11970' or '11970/2026'")
    text = str(numero).strip()
    m = re.fullmatch(r"(?:n\.?\s*)?(\d{1,9})(?:\s*(?:/|del|del\s+|-)\s*(\d{4}))?", text, re.I)
    if not m or int(m.group(1)) == 0:
        raise InvalidArg(f"numero {text[:40]!r} is not a decision number",
                         valid="1 to 9 digits (e.g. 11970), optionally with the year: '11970/2026'")
    year = int(m.group(2)) if m.group(2) else None
    if year is not None and anno is not None and anno != year:
        raise InvalidArg(f"numero says {year}, anno says {anno}", valid="the same year in both, or the year in one only")
    return m.group(1), year if year is not None else anno  # type: ignore[return-value]


def portal_numero(numero: str, anno: int | None) -> str:
    """The portal prints a decision's number as YYYY + five digits (`202611970`, captured); with a
    year the number is sent that way (reported to be what its number search matches)."""
    if anno is not None and len(numero) <= 5:
        return f"{anno}{int(numero):05d}"
    return numero


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


# ---------------------------------------------------------------- the result page


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


def _raw_section(raw: str | None) -> str | None:
    """A section name we cannot read, as printed, for the citation (`SEZIONE STRALCIO` -> `stralcio`)."""
    text = re.sub(r"^sezione\s+", "", " ".join((raw or "").split()).lower())
    return clip(text, 40) or None


def _decision_link(article: lxml.html.HtmlElement) -> str | None:
    """The first link of a hit that points at a decision page, as printed (not yet checked)."""
    for a in article.iter("a"):
        href = (a.get("href") or "").strip()
        if DOC_PATH in href:
            return href
    return None


def _printed_fields(article: lxml.html.HtmlElement) -> tuple[str | None, ...]:
    """(ecli, sede, section, decision type, portal number, registro generale, snippet) as the hit
    prints them; the snippet's `<em>` become the highlight marks."""
    ecli = None
    raw_sede = raw_section = dtype = raw_number = rg = None
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
                dtype, raw_sede, raw_section, raw_number = bolds[:4]
        elif txt.startswith("Numero ricorso"):
            b = div.find(".//b")
            rg = _text(b) or None
        elif m := ECLI_RE.search(txt):
            ecli = m.group(0)
    return ecli, raw_sede, raw_section, dtype, raw_number, rg, snippet


def _hit(article: lxml.html.HtmlElement, document_base: str) -> GaHit | None:
    url = _decision_link(article)
    ecli, raw_sede, raw_section, dtype, raw_number, rg, snippet = _printed_fields(article)
    document_url = None
    if url:
        try:
            document_url = check_document_url(url, document_base)
        except InvalidArg:
            document_url = None
    if document_url is None and ecli is None:
        if _PAGER_RE.search(_text(article)):
            return None  # the pagination footer is an `article.ricerca--item` too (reported)
        raise UpstreamChanged("GA result item without decision URL or ECLI")
    number, year = split_number(raw_number, ecli)
    sede = sede_of(raw_sede)
    em = ECLI_RE.fullmatch(ecli or "")
    if sede is None and em:
        sede = ECLI_COURTS.get(em.group(1))
    section = section_label(raw_section)
    if section is None and em and em.group(4) == "APLE":
        section = "Ad. plen."  # ECLI type of the Adunanza plenaria (reported)
    decision_type = dtype.capitalize() if dtype else None
    court = court_name(sede) or (clip(raw_sede.title(), 60) if raw_sede else None)
    return GaHit(
        citation=ga_citation(sede, section or _raw_section(raw_section), decision_type, number, year, court=court),
        ecli=ecli,
        court=court,
        sede=sede or clip(raw_sede, 60),
        region=SEATS[sede][0] if sede in SEATS else None,
        section=section or clip(raw_section, 60),
        decision_type=clip(decision_type, 60),
        number=clip(number, 12),
        year=year,
        portal_number=clip(raw_number, 20),
        registro_generale=clip(rg, 20),
        snippet=clip(snippet, MAX_SNIPPET_CHARS),
        document_url=document_url,
        pdf_only=bool(document_url and is_pdf_url(document_url)),
        source_url=document_url or (url if url and len(url) <= 1000 else None) or document_base,
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
    return total, [h for h in (_hit(a, document_base) for a in articles) if h is not None]


def filter_hits(hits: list[GaHit], anno: int | None, sezione: str | None) -> list[GaHit]:
    return [h for h in hits if (anno is None or h.year == anno) and (sezione is None or h.section == sezione)]
