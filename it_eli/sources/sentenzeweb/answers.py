"""The Solr answer read into Structs: hits with their citation, ECLI, PDF link and ⟦…⟧ snippets,
the facet counts, and one decision's text whole; anything but the expected JSON is refused."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import quote, urlsplit

import msgspec

from it_eli.runtime.errors import NotFound, UpstreamChanged, UpstreamUnavailable
from it_eli.sources.http import RETRY_LATER
from it_eli.sources.marks import HL_CLOSE, HL_OPEN, clip
from it_eli.sources.sentenzeweb.court import (
    CHAMBER_OF_KIND,
    SIC_ID_RE,
    SIC_ID_VALID,
    Chamber,
    section_label,
    type_abbr,
)
from it_eli.sources.sentenzeweb.query import solr_phrase
from it_eli.sources.sentenzeweb.request import SELECT_PATH

# Public PDF of a decision: the `filename` field with `.pdf` -> `.clean.pdf`, under this path.
PDF_PATH = "/xway/application/nif/clean/hc.dll"
# While a decision is being anonymised its text says so; the court's script then refuses to open
# the PDF (index.js `toTargetDoc` checks both phrases).
OBSCURING_MARKS = ("in fase di oscuramento", "in fase di valutazione oscuramento")
RATE_OVERFLOW_RETRY_SECONDS = 5


# Caps on fields copied from upstream answers, so no answer outgrows the budget (it_eli.mcp.budget).
MAX_SNIPPET_CHARS = 600
MAX_MATERIA = 5


# ---------------------------------------------------------------- raw Solr shapes


class SolrDoc(msgspec.Struct, kw_only=True):
    id: str
    kind: str | None = None
    anno: str | int | None = None
    numdec: str | int | None = None
    numdep: str | int | None = None
    szdec: str | None = None
    ssz: str | None = None
    tipoprov: str | None = None
    datdec: str | list[str] | None = None
    datdep: str | list[str] | None = None
    pd: str | list[str] | None = None
    materia: str | list[str] | None = None
    presidente: str | list[str] | None = None
    relatore: str | list[str] | None = None
    filename: str | list[str] | None = None
    ocr: str | list[str] | None = None
    ocrdis: str | list[str] | None = None


class SolrResult(msgspec.Struct):
    numFound: int
    start: int = 0
    docs: list[SolrDoc] = []


class SolrFacets(msgspec.Struct):
    facet_fields: dict[str, list[str | int]] = {}


class SolrAnswer(msgspec.Struct):
    response: SolrResult
    highlighting: dict[str, dict[str, list[str]]] = {}
    facet_counts: SolrFacets | None = None


# ---------------------------------------------------------------- public Structs


class FacetCount(msgspec.Struct, frozen=True):
    """One value of a facet and how many hits have it: pass `value` back as a filter."""

    value: str
    count: int


class CassazioneFacets(msgspec.Struct, frozen=True):
    """Counts over ALL hits (not only this page), so the caller can narrow the search: each
    value can be passed back as the filter of the same name (anno, section, decision_type, chamber)."""

    anno: list[FacetCount] = msgspec.field(default_factory=list)
    section: list[FacetCount] = msgspec.field(default_factory=list)
    decision_type: list[FacetCount] = msgspec.field(default_factory=list)
    chamber: list[FacetCount] = msgspec.field(default_factory=list)


class CassazioneIdentity(msgspec.Struct, frozen=True, kw_only=True):
    """What identifies a Cassazione decision and how it is cited (shared by hits and texts)."""

    sic_id: str
    citation: str
    chamber: Chamber | None = None
    section: str | None = None
    decision_type: str | None = None
    number: int | None = None
    year: int | None = None
    decision_date: str | None = None
    deposit_date: str | None = None
    materia: list[str] = msgspec.field(default_factory=list)
    ecli: str | None = None  # as the court prints it on SentenzeWeb (ECLI:IT:CASS:2025:30020CIV)
    pdf_url: str | None = None  # the court's PDF of the decision, when SentenzeWeb links one


class CassazioneHit(CassazioneIdentity, frozen=True, kw_only=True):
    """One Cassazione decision found by a search."""

    snippet: str | None = None
    source_url: str


class CassazioneSearchResult(msgspec.Struct, frozen=True, kw_only=True):
    """A page of SentenzeWeb hits; `snippet` marks matches as ⟦…⟧."""

    query: str
    solr_query: str
    filters: list[str] = msgspec.field(default_factory=list)
    total: int
    offset: int
    limit: int
    next_offset: int | None = None
    hits: list[CassazioneHit] = msgspec.field(default_factory=list)
    facets: CassazioneFacets = msgspec.field(default_factory=CassazioneFacets)
    notes: list[str] = msgspec.field(default_factory=list)
    licence: str = "IODL 2.0 (Corte di Cassazione, SentenzeWeb)"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


TextStatus = Literal["full", "obscuring_in_progress", "empty"]


class CassazioneText(CassazioneIdentity, frozen=True, kw_only=True):
    """One decision as SentenzeWeb holds it, whole: the full text (`ocr`) and the dispositivo
    (`ocrdis`, "" when the record has none). Paging them is the MCP tool's business."""

    presidente: str | None = None
    relatore: str | None = None
    text_status: TextStatus = "full"
    text: str
    dispositivo: str = ""
    source_url: str
    licence: str = "IODL 2.0 (Corte di Cassazione, SentenzeWeb)"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


# ---------------------------------------------------------------- parsing


def decode_answer(body: bytes, content_type: str = "") -> SolrAnswer:
    """Decode a select answer; anything but the expected JSON is `upstream_changed`."""
    head = body.lstrip()[:200].lower()
    if b"rate overflow" in head:
        raise UpstreamUnavailable(
            "SentenzeWeb: rate overflow (too many requests)",
            valid=f"retry after {RATE_OVERFLOW_RETRY_SECONDS} s",
            retry_after_seconds=RATE_OVERFLOW_RETRY_SECONDS,
        )
    if not head:
        raise UpstreamChanged("SentenzeWeb answered with an empty body", valid=RETRY_LATER)
    if head.startswith(b"<") or "html" in content_type:
        raise UpstreamChanged("SentenzeWeb answered HTML where Solr JSON was expected", content_type=content_type)
    try:
        return msgspec.json.decode(body, type=SolrAnswer)
    except (msgspec.DecodeError, RecursionError) as exc:  # RecursionError: JSON nested too deep
        raise UpstreamChanged(f"SentenzeWeb answer is not the expected Solr JSON: {str(exc)[:200]}") from None


def _first(value: str | int | list[str] | None) -> str | None:
    if isinstance(value, list):
        return str(value[0]) if value else None
    return None if value is None else str(value)


def _all(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [v for v in value if v]


def iso_date(value: str | None) -> str | None:
    """`20210722` -> `2021-07-22`; anything else -> None."""
    if value and re.fullmatch(r"\d{8}", value):
        return f"{value[:4]}-{value[4:6]}-{value[6:]}"
    return None


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() and len(value) <= 9 else None


def citation(doc: SolrDoc) -> str:
    """Italian citation, e.g. `Cass. civ., sez. III, ord. n. 24393/2025`."""
    m = SIC_ID_RE.fullmatch(doc.id)
    kind = doc.kind or (m.group(1) if m else None)
    szdec = doc.szdec or (m.group(3) if m else None)
    number = _int(_first(doc.numdec)) or (int(m.group(4)) if m else None)
    year = _first(doc.anno) or (m.group(2) if m else None)
    parts = ["Cass. civ." if kind == "snciv" else "Cass. pen." if kind == "snpen" else "Cass."]
    sez = section_label(kind, clip(szdec, 8), clip(doc.ssz, 8))
    if sez:
        parts.append(f"sez. {sez}")
    ref = type_abbr(doc.tipoprov, doc.id)
    if number is not None and year:
        ref += f" n. {number}/{clip(year, 8)}"
    parts.append(ref)
    return ", ".join(parts)


def ecli(doc: SolrDoc) -> str | None:
    """The ECLI the court's front-end prints on every card: `ECLI:IT:CASS:<anno>:<numdec without
    leading zeros><CIV|PEN>` (index.js; seen on 205 rendered cards, e.g. ECLI:IT:CASS:2022:4CIV for
    numdec 00004)."""
    m = SIC_ID_RE.fullmatch(doc.id)
    if m is None:
        return None
    year = _first(doc.anno) or m.group(2)
    number = (_first(doc.numdec) or m.group(4)).lstrip("0")
    if not (re.fullmatch(r"\d{4}", year) and number.isdigit() and len(number) <= 7):
        return None
    return f"ECLI:IT:CASS:{year}:{number}{'PEN' if m.group(1) == 'snpen' else 'CIV'}"


def _filename(doc: SolrDoc) -> str | None:
    filename = _first(doc.filename)
    if filename and (len(filename) > 200 or not re.fullmatch(r"[\w./@-]+", filename)):
        return None  # not the shape seen in the captures
    return filename or None


def _pdf_link(kind: str, filename: str, sentenzeweb_url: str) -> str:
    """The court's PDF address for a file name (index.js: `.pdf` -> `.clean.pdf` unless it has `.clean.`)."""
    if ".clean." not in filename:
        filename = filename.replace(".pdf", ".clean.pdf")
    return (f"{public_base(sentenzeweb_url)}{PDF_PATH}?verbo=attach&db={quote(kind, safe='')}"
            f"&id={quote(filename, safe='./@')}")


def pdf_url(doc: SolrDoc, sentenzeweb_url: str) -> str | None:
    """The court's PDF link, only when the record has a `filename` (as the front-end shows it)."""
    filename = _filename(doc)
    m = SIC_ID_RE.fullmatch(doc.id)
    return _pdf_link(m.group(1), filename, sentenzeweb_url) if filename and m else None


def public_base(sentenzeweb_url: str) -> str:
    parts = urlsplit(sentenzeweb_url)
    return f"{parts.scheme}://{parts.netloc}"


def source_url(doc: SolrDoc, sentenzeweb_url: str) -> str:
    """The decision's public PDF: the court's link, or one derived from the fields when the record
    has no `filename` (ssz assumed `0`), or last the Solr record itself."""
    linked = pdf_url(doc, sentenzeweb_url)
    if linked:
        return linked
    m = SIC_ID_RE.fullmatch(doc.id)
    dep = _first(doc.datdep) or _first(doc.pd)
    if m and dep and re.fullmatch(r"\d{8}", dep):
        ssz = doc.ssz if doc.ssz and re.fullmatch(r"[0-9A-Z]", doc.ssz) else "0"
        kind = m.group(1)
        derived = f"./{dep}/{kind}@s{m.group(3)}{ssz}@a{m.group(2)}@n{int(m.group(4)):05d}@t{m.group(5)}.pdf"
        return _pdf_link(kind, derived, sentenzeweb_url)
    # Last resort: the Solr record itself (opens in a browser as JSON).
    return f"{sentenzeweb_url}{SELECT_PATH}?q={quote('id:' + solr_phrase(doc.id), safe='')}&wt=json"


def clean_snippet(fragment: str) -> str:
    """Solr's `<em>` markup -> ⟦ ⟧ markers; nothing else of the fragment is markup."""
    text = fragment.replace(HL_OPEN, "").replace(HL_CLOSE, "")
    text = re.sub(r"<em\b[^>]*>", HL_OPEN, text, flags=re.I)
    text = re.sub(r"</em>", HL_CLOSE, text, flags=re.I)
    text = text.replace(HL_CLOSE + HL_OPEN, "")
    return " ".join(text.split())


def _hit(doc: SolrDoc, highlighting: dict[str, dict[str, list[str]]], sentenzeweb_url: str) -> CassazioneHit:
    m = SIC_ID_RE.fullmatch(doc.id)
    if m is None:
        raise UpstreamChanged(f"SentenzeWeb returned an id of unknown shape: {doc.id[:60]!r}")
    frags = (highlighting.get(doc.id, {}).get("ocr") or [])[:4]
    snippet = " … ".join(clean_snippet(f[: MAX_SNIPPET_CHARS * 4]) for f in frags) or None
    return CassazioneHit(
        sic_id=doc.id,
        citation=citation(doc),
        chamber=CHAMBER_OF_KIND.get(m.group(1)),
        section=clip(doc.szdec, 8) or m.group(3),
        decision_type=clip(doc.tipoprov, 60),
        number=_int(_first(doc.numdec)) or int(m.group(4)),
        year=_int(_first(doc.anno)) or int(m.group(2)),
        decision_date=iso_date(_first(doc.datdec)),
        deposit_date=iso_date(_first(doc.datdep) or _first(doc.pd)),
        materia=[clip(v) for v in _all(doc.materia)[:MAX_MATERIA]],
        ecli=ecli(doc),
        pdf_url=pdf_url(doc, sentenzeweb_url),
        snippet=clip(snippet, MAX_SNIPPET_CHARS),
        source_url=source_url(doc, sentenzeweb_url),
    )


def _facet(pairs: list[str | int]) -> list[FacetCount]:
    out = []
    for i in range(0, len(pairs) - 1, 2):
        value, count = pairs[i], pairs[i + 1]
        if isinstance(count, int) and count > 0:
            out.append(FacetCount(value=clip(str(value), 60), count=count))
    return out


def facets_of(answer: SolrAnswer) -> CassazioneFacets:
    ff = answer.facet_counts.facet_fields if answer.facet_counts else {}
    return CassazioneFacets(
        anno=sorted(_facet(ff.get("anno", [])), key=lambda f: f.value, reverse=True),
        section=_facet(ff.get("szdec", [])),
        decision_type=_facet(ff.get("tipoprov", [])),
        chamber=[FacetCount(value=CHAMBER_OF_KIND.get(f.value, f.value), count=f.count) for f in _facet(ff.get("kind", []))],
    )


def parse_facets(body: bytes, content_type: str = "") -> CassazioneFacets:
    """The answer of a `select?app.facet` request."""
    return facets_of(decode_answer(body, content_type))


def parse_search(
    body: bytes,
    *,
    query: str,
    solr_query: str,
    filters: list[str],
    rows: int,
    start: int,
    sentenzeweb_url: str,
    content_type: str = "",
    notes: list[str] | None = None,
    facets: CassazioneFacets | None = None,
) -> CassazioneSearchResult:
    """The answer to `search_params(..., rows, start)`: at most `rows` hits, the first being hit
    `start` of the search (Solr's window; the result calls it `offset`/`limit`, as the tool does).
    Every hit the court sent: the MCP tool cuts the answer to its budget, verification reads it all."""
    answer = decode_answer(body, content_type)
    hits = [_hit(d, answer.highlighting, sentenzeweb_url) for d in answer.response.docs[:rows]]
    if facets is None:
        facets = facets_of(answer)
    total = answer.response.numFound

    nxt = start + len(hits)
    return CassazioneSearchResult(
        query=clip(query, 2000) or "",
        solr_query=solr_query,
        filters=filters,
        total=total,
        offset=start,
        limit=rows,
        next_offset=nxt if hits and nxt < total else None,
        hits=hits,
        facets=facets,
        notes=list(notes or []),
    )


def parse_decision(body: bytes, *, sic_id: str, sentenzeweb_url: str, content_type: str = "") -> CassazioneText:
    """One decision by id, its text and dispositivo whole (`get_params` asked for every field)."""
    answer = decode_answer(body, content_type)
    docs = [d for d in answer.response.docs if d.id == sic_id]
    if not docs:
        raise NotFound(f"SentenzeWeb has no decision {sic_id}", valid=SIC_ID_VALID, sic_id=sic_id)
    doc = docs[0]
    hit = _hit(doc, {}, sentenzeweb_url)
    full = "\n\n".join(_all(doc.ocr)).strip()
    status: TextStatus = "full"
    if not full:
        status = "empty"
    elif any(mark in full.lower() for mark in OBSCURING_MARKS) and len(full) < 300:
        status = "obscuring_in_progress"
    return CassazioneText(
        sic_id=sic_id,
        citation=hit.citation,
        chamber=hit.chamber,
        section=hit.section,
        decision_type=hit.decision_type,
        number=hit.number,
        year=hit.year,
        decision_date=hit.decision_date,
        deposit_date=hit.deposit_date,
        materia=hit.materia,
        ecli=hit.ecli,
        pdf_url=hit.pdf_url if status != "obscuring_in_progress" else None,  # as the court: no PDF yet
        presidente=clip(_first(doc.presidente)),
        relatore=clip(_first(doc.relatore)),
        text_status=status,
        text=full,
        dispositivo="\n".join(_all(doc.ocrdis)).strip(),
        source_url=hit.source_url,
    )
