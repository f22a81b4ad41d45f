"""SentenzeWeb (Corte di Cassazione): the public Solr behind www.italgiure.giustizia.it/sncass/.

Parsing is pure (bytes in, Structs out); `fetch_select` is the one I/O function and uses the
`HttpClient` it is given. Every upstream fact relied on here is in DISCOVERY.md (SentenzeWeb, GA, TLS).

Query safety: user text never reaches Solr as syntax. Each word, and each "quoted phrase",
becomes one phrase clause `ocr:"..."` in which only `\\` and `"` are special (both are
backslash-escaped); clauses are joined with ` AND `. So `OR`, `*`, `:`, brackets, `-` etc.
are just characters inside a phrase. Words are ANDed because the upstream ORs bare words.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import quote, urlsplit

import msgspec

from .budget import fit_end
from .errors import InvalidArg, NotFound, UpstreamChanged, UpstreamUnavailable
from .http import HttpClient

SELECT_PATH = "/isapi/hc.dll/sn.solr/sn-collection/select"
# Public PDF of a decision: the `filename` field with `.pdf` -> `.clean.pdf`, under this path.
PDF_PATH = "/xway/application/nif/clean/hc.dll"

# `id` = kind + year + section char + decision number + type letter (snciv2021521018O,
# snciv2026L24908O, snpen2024710787O in the captures).
SIC_ID_RE = re.compile(r"^(snciv|snpen)(\d{4})([0-9A-Z])(\d{1,6})([A-Z])$")
SIC_ID_VALID = "kind+year+section+number+type, e.g. snciv2021521018O or snpen2024710787O"

HL_OPEN = "\u27e6"  # ⟦  highlight markers replacing Solr's <em>…</em>
HL_CLOSE = "\u27e7"  # ⟧

OBSCURING_MARK = "in fase di oscuramento"

Chamber = Literal["civile", "penale"]
SubChamber = Literal["lavoro", "tributaria"]

KIND_OF_CHAMBER: dict[str, str] = {"civile": "snciv", "penale": "snpen"}
CHAMBER_OF_KIND: dict[str, Chamber] = {"snciv": "civile", "snpen": "penale"}
SZDEC_OF_SUB: dict[str, str] = {"lavoro": "L", "tributaria": "5"}

_ROMAN = {"1": "I", "2": "II", "3": "III", "4": "IV", "5": "V", "6": "VI", "7": "VII"}
# tipoprov (the upstream's words) -> citation abbreviation.
TIPOPROV_ABBR: dict[str, str] = {
    "sentenza": "sent.",
    "ordinanza": "ord.",
    "ordinanza interlocutoria": "ord. interl.",
    "decreto": "decr.",
}
# last letter of the id / `@t` of the filename, when tipoprov is missing.
TYPE_LETTER_ABBR: dict[str, str] = {"S": "sent.", "O": "ord.", "I": "ord. interl.", "D": "decr."}

SEARCH_FIELDS = "id,kind,anno,numdec,szdec,ssz,tipoprov,datdec,datdep,pd,materia,filename"
FACET_FIELDS = ("anno", "szdec", "tipoprov", "kind")


# ---------------------------------------------------------------- raw Solr shapes


class SolrDoc(msgspec.Struct, kw_only=True):
    id: str
    kind: str | None = None
    anno: str | int | None = None
    numdec: str | int | None = None
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
    """Counts over ALL hits (not only this page), so the caller can narrow the search."""

    anno: list[FacetCount] = msgspec.field(default_factory=list)
    section: list[FacetCount] = msgspec.field(default_factory=list)
    decision_type: list[FacetCount] = msgspec.field(default_factory=list)
    chamber: list[FacetCount] = msgspec.field(default_factory=list)


class _CassazioneIdentity(msgspec.Struct, frozen=True, kw_only=True):
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


class CassazioneHit(_CassazioneIdentity, frozen=True, kw_only=True):
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
    licence: str = "IODL 2.0 (Corte di Cassazione, SentenzeWeb)"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


class CassazioneDecision(_CassazioneIdentity, frozen=True, kw_only=True):
    """One decision's text, paged: ask again with offset=next_offset for more."""

    presidente: str | None = None
    relatore: str | None = None
    text_status: Literal["full", "obscuring_in_progress", "empty"] = "full"
    text: str
    offset: int
    total_chars: int
    next_offset: int | None = None
    dispositivo: str | None = None
    source_url: str
    licence: str = "IODL 2.0 (Corte di Cassazione, SentenzeWeb)"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


# ---------------------------------------------------------------- query building


def solr_phrase(text: str) -> str:
    """One Solr phrase literal: inside quotes only backslash and quote are special."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_TOKEN_RE = re.compile(r'"([^"]*)"|(\S+)')


def query_terms(query: str) -> list[str]:
    """Split user text into phrases ("quoted") and words; drop pieces with no letter/digit.

    An unbalanced quote is treated as an ordinary character of its word.
    """
    terms: list[str] = []
    for m in _TOKEN_RE.finditer(query):
        piece = m.group(1) if m.group(1) is not None else m.group(2)
        piece = " ".join(piece.split())
        if piece and any(ch.isalnum() for ch in piece):
            terms.append(piece)
    return terms


def build_q(query: str, field: str = "ocr") -> str:
    """The Solr `q` for user text: every term a phrase on `field`, all ANDed."""
    terms = query_terms(query)
    if not terms:
        raise InvalidArg(
            "the query has no words to search for",
            valid='words and/or "quoted phrases", e.g. responsabilità medica "perdita di chance"',
        )
    return " AND ".join(f"{field}:{solr_phrase(t)}" for t in terms)


def build_filters(chamber: str | None, sub_chamber: str | None, anno: int | None) -> list[str]:
    """Validated filters as `fq` values (never user text)."""
    if chamber is not None and chamber not in KIND_OF_CHAMBER:
        raise InvalidArg(f"unknown chamber {chamber!r}", valid="civile, penale or none")
    if sub_chamber is not None:
        if sub_chamber not in SZDEC_OF_SUB:
            raise InvalidArg(f"unknown sub_chamber {sub_chamber!r}", valid="lavoro, tributaria or none")
        if chamber == "penale":
            raise InvalidArg("sub_chamber applies to civil decisions only", valid="chamber=civile or none")
        chamber = "civile"
    fq: list[str] = []
    if chamber is not None:
        fq.append(f"kind:{KIND_OF_CHAMBER[chamber]}")
    if sub_chamber is not None:
        fq.append(f"szdec:{SZDEC_OF_SUB[sub_chamber]}")
    if anno is not None:
        if isinstance(anno, bool) or not isinstance(anno, int) or not 1900 <= anno <= 2100:
            raise InvalidArg(f"anno {anno!r} is not a year", valid="a year such as 2024")
        fq.append(f"anno:{anno}")
    return fq


def search_params(q: str, fq: list[str], limit: int, offset: int) -> list[tuple[str, str]]:
    params = [
        ("q", q),
        ("wt", "json"),
        ("app.query", ""),
        ("rows", str(limit)),
        ("start", str(offset)),
        ("fl", SEARCH_FIELDS),
        ("sort", "score desc,pd desc"),
        ("hl", "true"),
        ("hl.fl", "ocr"),
        ("hl.snippets", "1"),
        ("hl.fragsize", "200"),
        ("facet", "true"),
        ("facet.mincount", "1"),
        ("facet.limit", "60"),
    ]
    params += [("facet.field", f) for f in FACET_FIELDS]
    params += [("fq", f) for f in fq]
    return params


def get_params(sic_id: str) -> list[tuple[str, str]]:
    check_sic_id(sic_id)
    return [("q", f"id:{solr_phrase(sic_id)}"), ("wt", "json"), ("app.query", ""), ("rows", "1"), ("fl", "*")]


def check_sic_id(sic_id: object) -> str:
    if not isinstance(sic_id, str) or not SIC_ID_RE.fullmatch(sic_id):
        raise InvalidArg(f"not a SentenzeWeb id: {str(sic_id)[:60]!r}", valid=SIC_ID_VALID)
    return sic_id


# ---------------------------------------------------------------- parsing


def decode_answer(body: bytes, content_type: str = "") -> SolrAnswer:
    """Decode a select answer; anything but the expected JSON is `upstream_changed`."""
    head = body.lstrip()[:200].lower()
    if b"rate overflow" in head:
        raise UpstreamUnavailable("SentenzeWeb: rate overflow (too many requests)", retry_after_seconds=5)
    if not head:
        raise UpstreamChanged("SentenzeWeb answered with an empty body")
    if head.startswith(b"<") or "html" in content_type:
        raise UpstreamChanged("SentenzeWeb answered HTML where Solr JSON was expected", content_type=content_type)
    try:
        return msgspec.json.decode(body, type=SolrAnswer)
    except msgspec.DecodeError as exc:
        raise UpstreamChanged(f"SentenzeWeb answer is not the expected Solr JSON: {exc}")


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
    return int(value) if value and value.isdigit() else None


def section_label(kind: str | None, szdec: str | None, ssz: str | None = None) -> str | None:
    """Section as cited: I..VII, `lav.` (L), `un.` (U), `VI-3` for the old sixth's subsections."""
    if not szdec:
        return None
    if szdec == "L":
        return "lav."
    if szdec == "U":
        return "un."
    if szdec == "F":
        return "fer."
    roman = _ROMAN.get(szdec, szdec)
    if szdec == "6" and ssz and ssz not in ("0", ""):
        return f"{roman}-{'lav.' if ssz == 'L' else 'trib.' if ssz == 'T' else ssz}"
    return roman


def type_abbr(tipoprov: str | None, sic_id: str) -> str:
    if tipoprov and tipoprov.strip().lower() in TIPOPROV_ABBR:
        return TIPOPROV_ABBR[tipoprov.strip().lower()]
    return TYPE_LETTER_ABBR.get(sic_id[-1:], "provv.")


def citation(doc: SolrDoc) -> str:
    """Italian citation, e.g. `Cass. civ., sez. III, ord. n. 24393/2025`."""
    m = SIC_ID_RE.fullmatch(doc.id)
    kind = doc.kind or (m.group(1) if m else None)
    szdec = doc.szdec or (m.group(3) if m else None)
    number = _int(_first(doc.numdec)) or (int(m.group(4)) if m else None)
    year = _first(doc.anno) or (m.group(2) if m else None)
    parts = ["Cass. civ." if kind == "snciv" else "Cass. pen." if kind == "snpen" else "Cass."]
    sez = section_label(kind, szdec, doc.ssz)
    if sez:
        parts.append(f"sez. {sez}")
    ref = type_abbr(doc.tipoprov, doc.id)
    if number is not None and year:
        ref += f" n. {number}/{year}"
    parts.append(ref)
    return ", ".join(parts)


def public_base(sentenzeweb_url: str) -> str:
    parts = urlsplit(sentenzeweb_url)
    return f"{parts.scheme}://{parts.netloc}"


def source_url(doc: SolrDoc, sentenzeweb_url: str) -> str:
    """The decision's public PDF: from `filename`, or derived from the fields when absent."""
    filename = _first(doc.filename)
    m = SIC_ID_RE.fullmatch(doc.id)
    kind = doc.kind or (m.group(1) if m else "snciv")
    if not filename and m:
        dep = _first(doc.datdep) or _first(doc.pd)
        if dep and re.fullmatch(r"\d{8}", dep):
            ssz = doc.ssz if doc.ssz and re.fullmatch(r"[0-9A-Z]", doc.ssz) else "0"
            filename = f"./{dep}/{kind}@s{m.group(3)}{ssz}@a{m.group(2)}@n{int(m.group(4)):05d}@t{m.group(5)}.pdf"
    base = public_base(sentenzeweb_url)
    if filename:
        if filename.endswith(".pdf") and not filename.endswith(".clean.pdf"):
            filename = filename[: -len(".pdf")] + ".clean.pdf"
        return f"{base}{PDF_PATH}?verbo=attach&db={quote(kind, safe='')}&id={quote(filename, safe='./@')}"
    # Last resort: the Solr record itself (opens in a browser as JSON).
    return f"{sentenzeweb_url}{SELECT_PATH}?q={quote('id:' + solr_phrase(doc.id), safe='')}&wt=json"


def clean_snippet(fragment: str) -> str:
    """Solr's `<em>` markup -> ⟦ ⟧ markers; nothing else of the fragment is markup."""
    text = fragment.replace(HL_OPEN, "").replace(HL_CLOSE, "")
    text = re.sub(r"<em>", HL_OPEN, text, flags=re.I)
    text = re.sub(r"</em>", HL_CLOSE, text, flags=re.I)
    text = text.replace(HL_CLOSE + HL_OPEN, "")
    return " ".join(text.split())


def _hit(doc: SolrDoc, highlighting: dict[str, dict[str, list[str]]], sentenzeweb_url: str) -> CassazioneHit:
    m = SIC_ID_RE.fullmatch(doc.id)
    if m is None:
        raise UpstreamChanged(f"SentenzeWeb returned an id of unknown shape: {doc.id[:60]!r}")
    frags = highlighting.get(doc.id, {}).get("ocr") or []
    return CassazioneHit(
        sic_id=doc.id,
        citation=citation(doc),
        chamber=CHAMBER_OF_KIND.get(doc.kind or m.group(1)),
        section=doc.szdec or m.group(3),
        decision_type=doc.tipoprov,
        number=_int(_first(doc.numdec)) or int(m.group(4)),
        year=_int(_first(doc.anno)) or int(m.group(2)),
        decision_date=iso_date(_first(doc.datdec)),
        deposit_date=iso_date(_first(doc.datdep) or _first(doc.pd)),
        materia=_all(doc.materia),
        snippet=" … ".join(clean_snippet(f) for f in frags) or None,
        source_url=source_url(doc, sentenzeweb_url),
    )


def _facet(pairs: list[str | int]) -> list[FacetCount]:
    out = []
    for i in range(0, len(pairs) - 1, 2):
        value, count = pairs[i], pairs[i + 1]
        if isinstance(count, int) and count > 0:
            out.append(FacetCount(value=str(value), count=count))
    return out


def parse_search(
    body: bytes,
    *,
    query: str,
    solr_query: str,
    filters: list[str],
    limit: int,
    offset: int,
    sentenzeweb_url: str,
    content_type: str = "",
) -> CassazioneSearchResult:
    answer = decode_answer(body, content_type)
    hits = [_hit(d, answer.highlighting, sentenzeweb_url) for d in answer.response.docs]
    ff = answer.facet_counts.facet_fields if answer.facet_counts else {}
    facets = CassazioneFacets(
        anno=sorted(_facet(ff.get("anno", [])), key=lambda f: f.value, reverse=True),
        section=_facet(ff.get("szdec", [])),
        decision_type=_facet(ff.get("tipoprov", [])),
        chamber=[FacetCount(value=CHAMBER_OF_KIND.get(f.value, f.value), count=f.count) for f in _facet(ff.get("kind", []))],
    )
    total = answer.response.numFound
    nxt = offset + len(hits)
    return CassazioneSearchResult(
        query=query,
        solr_query=solr_query,
        filters=filters,
        total=total,
        offset=offset,
        limit=limit,
        next_offset=nxt if hits and nxt < total else None,
        hits=hits,
        facets=facets,
    )


def page(text: str, offset: int, max_chars: int, budget: int | None = None) -> tuple[str, int | None]:
    """At most `max_chars` characters, and at most `budget` once JSON-encoded (it_eli.budget)."""
    if offset > len(text):
        raise InvalidArg(f"offset {offset} is past the end of the text", valid=f"0..{len(text)}")
    end = min(len(text), offset + max_chars)
    if budget is not None:
        end = min(end, fit_end(text, offset, budget))
    return text[offset:end], (end if end < len(text) else None)


def parse_decision(
    body: bytes, *, sic_id: str, max_chars: int, offset: int, sentenzeweb_url: str, content_type: str = "",
    budget: int | None = None,
) -> CassazioneDecision:
    answer = decode_answer(body, content_type)
    docs = [d for d in answer.response.docs if d.id == sic_id]
    if not docs:
        raise NotFound(f"SentenzeWeb has no decision {sic_id}", valid=SIC_ID_VALID, sic_id=sic_id)
    doc = docs[0]
    hit = _hit(doc, {}, sentenzeweb_url)
    full = "\n\n".join(_all(doc.ocr)).strip()
    status: Literal["full", "obscuring_in_progress", "empty"] = "full"
    if not full:
        status = "empty"
    elif OBSCURING_MARK in full.lower() and len(full) < 300:
        status = "obscuring_in_progress"
    text, nxt = page(full, offset, max_chars, budget)
    return CassazioneDecision(
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
        presidente=_first(doc.presidente),
        relatore=_first(doc.relatore),
        text_status=status,
        text=text,
        offset=offset,
        total_chars=len(full),
        next_offset=nxt,
        dispositivo="\n".join(_all(doc.ocrdis)).strip() or None,
        source_url=hit.source_url,
    )


# ---------------------------------------------------------------- I/O


async def fetch_select(client: HttpClient, sentenzeweb_url: str, params: list[tuple[str, str]]) -> tuple[bytes, str]:
    """One GET on the Solr select; returns (body, content type). Any non-200 is unavailable."""
    resp = await client.request(
        "GET",
        sentenzeweb_url + SELECT_PATH,
        params=params,
        headers={"Accept": "application/json", "Referer": sentenzeweb_url + "/"},
        not_found_statuses=(),
        what="SentenzeWeb",
    )
    return resp.body, resp.content_type
