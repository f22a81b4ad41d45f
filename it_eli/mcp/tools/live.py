"""Registration of the live case-law tools (Cassazione, Giustizia Amministrativa) with the registry.

The service hands over whole decisions; this adapter owns their answers: it pages the text to
`max_chars` and the answer budget (`offset`/`next_offset`, with it_eli.mcp.tools.paging).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from it_eli.sources import ga, sentenzeweb
from it_eli.mcp.budget import fit_end, json_cost
from it_eli.runtime.errors import InvalidArg
from it_eli.sources.ga.decision import GaMetadata, GaSection, GaText
from it_eli.sources.sentenzeweb.answers import CassazioneIdentity, CassazioneText, TextStatus
from it_eli.services import caselaw_live as live
from . import paging
from .registry import tool

MAX_DISPOSITIVO_CHARS = 4000  # longer ones are cut here and paged with part="dispositivo"


class CassazioneDecision(CassazioneIdentity, frozen=True, kw_only=True):
    """One decision's text, paged: ask again with offset=next_offset for more. `part` says which
    text is paged: the full text (default) or the dispositivo (when it was too long to come whole)."""

    presidente: str | None = None
    relatore: str | None = None
    text_status: TextStatus = "full"
    part: Literal["text", "dispositivo"] = "text"
    text: str
    offset: int
    total_chars: int
    next_offset: int | None = None
    dispositivo: str | None = None
    dispositivo_chars: int = 0
    dispositivo_truncated: bool = False
    note: str | None = None
    source_url: str
    licence: str = "IODL 2.0 (Corte di Cassazione, SentenzeWeb)"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


# what a page copies from the whole decision as it is (text and dispositivo are paged)
_DECISION_AS_IS = tuple(f for f in CassazioneText.__struct_fields__
                        if f in CassazioneDecision.__struct_fields__ and f not in ("text", "dispositivo"))


def resolve_part(part: object) -> str:
    """`text` or `dispositivo`, case and spaces aside: checked before any request, so a wrong
    part is a bad argument even while the court is down."""
    name = part.strip().lower() if isinstance(part, str) else part
    if name not in ("text", "dispositivo"):
        raise InvalidArg(f"unknown part {str(part)[:40]!r}", valid="part: text (the full text) or dispositivo")
    return name


def decision_page(doc: CassazioneText, *, part: str, offset: int, size: int, budget: int) -> CassazioneDecision:
    """One page of a decision. The answer's text budget is shared: the dispositivo (whole when it
    is at most MAX_DISPOSITIVO_CHARS, else its head and `dispositivo_truncated`) is paid for first,
    the page of `text` gets the rest. `part="dispositivo"` pages the dispositivo itself."""
    dispositivo = doc.dispositivo
    note = None
    if part == "dispositivo":
        paged, disp_out, truncated = dispositivo, None, False
    else:
        paged = doc.text
        cut = fit_end(dispositivo, 0, min(MAX_DISPOSITIVO_CHARS, max(200, budget // 4))) if dispositivo else 0
        truncated = cut < len(dispositivo)
        disp_out = (dispositivo[:cut] + " […]") if truncated else (dispositivo or None)
        if truncated:
            note = (f"the dispositivo has {len(dispositivo)} characters: only its beginning is in `dispositivo`; "
                    "ask again with part='dispositivo' to page through it")
        budget = max(200, budget - (json_cost(disp_out) if disp_out else 0))
    text, nxt = paging.page(paged, offset, size, budget)
    return CassazioneDecision(
        **{f: getattr(doc, f) for f in _DECISION_AS_IS},
        part=part,  # type: ignore[arg-type]
        text=text,
        offset=offset,
        total_chars=len(paged),
        next_offset=nxt,
        dispositivo=disp_out,
        dispositivo_chars=len(dispositivo),
        dispositivo_truncated=truncated,
        note=note,
    )


class CassSearchParams(msgspec.Struct, kw_only=True):
    query: Annotated[str, Meta(description='Words and "phrases" (all required), OR, NOT / -word, (groups), "phrase"~N.')]
    chamber: Annotated[str | None, Meta(description="civile or penale.")] = None
    section: Annotated[str | None, Meta(description="1-7 or I-VII, lavoro, sezioni unite (SU), feriale, tributaria.")] = None
    sub_chamber: Annotated[str | None, Meta(description="Older name of section.")] = None
    decision_type: Annotated[str | None, Meta(description="sentenza, ordinanza, ordinanza interlocutoria or decreto.")] = None
    anno: Annotated[int | None, Meta(description="Year of the decision.")] = None
    sort: Annotated[str | None, Meta(description="relevance (default), deposit_date or decision_date (newest first).")] = None
    limit: Annotated[int, Meta(ge=1, le=live.MAX_CASS_LIMIT, description="Hits per page.")] = 10
    offset: Annotated[int, Meta(ge=0, le=live.MAX_CASS_START, description="Hits to skip (paging).")] = 0


class CassGetParams(msgspec.Struct, kw_only=True):
    sic_id: Annotated[str, Meta(description="The decision's SentenzeWeb id, from it_cassazione_search (e.g. snciv2021521018O).")]
    max_chars: Annotated[int | None, Meta(description="Characters in this answer (at most the server's answer budget).")] = None
    offset: Annotated[int, Meta(ge=0, description="Where this page starts: pass next_offset back.")] = 0
    part: Annotated[str, Meta(description="text (the decision) or dispositivo.")] = "text"


class GaDecision(GaText, frozen=True, kw_only=True):
    """One decision's text, paged; `pdf_only` decisions carry no text (open `source_url`).

    `ecli_source`: `portal` (the ECLI printed by the portal next to this decision's link),
    `built` (ECLI:IT:<court>:<year>:<number>SENT, from the decision's own data), or None."""

    offset: int = 0
    total_chars: int = 0
    next_offset: int | None = None


def ga_page(doc: GaText, *, offset: int, size: int, budget: int) -> GaDecision:
    """One page of an administrative decision's text; a PDF-only decision has none to page."""
    same = msgspec.structs.asdict(doc)
    if doc.pdf_only:
        return GaDecision(**same)
    text, nxt = paging.page(doc.text, offset, size, budget)
    return GaDecision(**same | {"text": text}, offset=offset, total_chars=len(doc.text), next_offset=nxt)


class GaSearchParams(msgspec.Struct, kw_only=True):
    query: Annotated[str | None, Meta(description="Words, sent to the portal as typed.")] = None
    sede: Annotated[str | None, Meta(description="Court: Cons. Stato, CGA, TAR + region or seat (TAR Lazio, Milano, Brescia ...).")] = None
    tipo: Annotated[str | None, Meta(description="Type of decision: sentenza, ordinanza, decreto, parere.")] = None
    numero: Annotated[str | int | None, Meta(description="Decision number (11970 or 11970/2026).")] = None
    anno: Annotated[int | None, Meta(description="Year of the decision.")] = None
    sezione: Annotated[str | None, Meta(description="Section, e.g. IV or 1B (applied to the first page).")] = None
    limit: Annotated[int, Meta(ge=1, le=60, description="Hits (1-60).")] = 20


class GaGetParams(msgspec.Struct, kw_only=True):
    document_url: Annotated[str, Meta(description="The decision's URL from it_ga_search (mdp.giustizia-amministrativa.it only).")]
    max_chars: Annotated[int | None, Meta(description="Characters in this answer (at most the server's answer budget).")] = None
    offset: Annotated[int, Meta(ge=0, description="Where this page starts: pass next_offset back.")] = 0


@tool("it_cassazione_search", CassSearchParams, live.CassazioneSearchResult, open_world=True)
async def cassazione_search(app, *, offset=0, **kwargs):
    """Search Corte di Cassazione decisions live on SentenzeWeb (free public service) with the
    query language of it_case_search: words and "quoted phrases" (all required), OR, NOT / -word,
    (parentheses), "phrase"~N. Filters, case-insensitive: chamber (civile|penale), section (1-7 or
    I-VII, lavoro, sezioni unite / SU, feriale, tributaria; sub_chamber is its older name),
    decision_type (sentenza|ordinanza|ordinanza interlocutoria|decreto), anno; sort relevance
    (default), deposit_date or decision_date. Highlighted snippets, total found, facet counts by
    year, section, type and chamber whose values pass back as these filters; each hit has sic_id,
    Italian citation (Cass. civ., sez. III, ord. n. 24393/2025), the ECLI the court prints
    (ECLI:IT:CASS:2025:30020CIV), dates, pdf_url (the court's PDF, when linked) and source_url."""
    # the tool's `offset` (hits to skip) is Solr's `start`
    whole = await live.it_cassazione_search(app.http, app.settings, start=offset, **kwargs)
    return cassazione_page(whole, paging.answer_budget(app.settings))


def cassazione_page(whole: live.CassazioneSearchResult, budget: int) -> live.CassazioneSearchResult:
    """The search answer within `budget`: hits cut from the end (next_offset continues from the
    first one left out), then the facet counts if it still does not fit."""
    start = whole.offset

    def make(hits: list) -> live.CassazioneSearchResult:
        if len(hits) == len(whole.hits):
            return whole
        nxt = start + len(hits)
        return msgspec.structs.replace(
            whole, hits=hits, next_offset=nxt if hits and nxt < whole.total else None,
            notes=[*whole.notes, f"only {len(hits)} hits fit the answer size; continue with offset={nxt}"])

    result, _ = paging.fit_hits(make, whole.hits, budget)
    if paging.encoded_size(result) > budget:
        result = msgspec.structs.replace(result, facets=sentenzeweb.CassazioneFacets())
    return result


@tool("it_cassazione_get", CassGetParams, CassazioneDecision, open_world=True)
async def cassazione_get(app, *, sic_id, max_chars=None, offset=0, part="text"):
    """Full text of one Cassazione decision by its SentenzeWeb id (sic_id from it_cassazione_search,
    e.g. snciv2025224393O), with its dispositivo; paged by max_chars/offset (next_offset). A very
    long dispositivo comes cut (dispositivo_truncated): part="dispositivo" pages it."""
    # every argument is checked before the request (in this order), so a wrong one is invalid_arg
    # even while the court is down
    sic_id = sentenzeweb.check_sic_id(sic_id)
    size = paging.page_size(paging.answer_budget(app.settings), max_chars, least=100)
    offset = paging.check_offset(offset)
    part = resolve_part(part or "text")
    doc = await live.it_cassazione_get(app.http, app.settings, sic_id=sic_id)
    return decision_page(doc, part=part, offset=offset, size=size, budget=paging.answer_budget(app.settings))


@tool("it_ga_search", GaSearchParams, live.GaSearchResult, open_world=True)
async def ga_search(app, **kwargs):
    """Search administrative decisions live (Consiglio di Stato, C.G.A.R.S., TAR) on the Giustizia
    Amministrativa portal: free text, sede (as lawyers write it: Cons. Stato, CGA, TAR Lazio, Roma,
    TRGA Trento; a region with two TAR seats asks which), tipo, numero (11970 or 11970/2026);
    anno and sezione (IV, I-bis) are applied on the newest page (the portal has no such filter) and
    the answer says so. Hits with Italian citation (T.A.R. Lazio, Roma, sez. I-bis, sent. n.
    11970/2026), native ECLI, court, sede, section, number and year, snippet, document_url."""
    whole = await live.it_ga_search(app.http, app.settings, **kwargs)
    return ga_search_page(whole, paging.answer_budget(app.settings))


def ga_search_page(whole: live.GaSearchResult, budget: int) -> live.GaSearchResult:
    """The GA search answer within `budget`: hits cut from the end, and the answer says so."""
    def make(hits: list) -> live.GaSearchResult:
        if len(hits) == len(whole.hits):
            return whole
        extra = f"only {len(hits)} of {len(whole.hits)} hits fit the answer size: lower limit"
        return msgspec.structs.replace(whole, hits=hits, returned=len(hits),
                                       note=" ".join(x for x in (whole.note, extra) if x))

    return paging.fit_hits(make, whole.hits, budget)[0]


@tool("it_ga_get_decision", GaGetParams, GaDecision, open_world=True)
async def ga_get_decision(app, *, document_url, max_chars=None, offset=0):
    """Text of one administrative decision by the document_url given by it_ga_search (only the
    decision host is accepted), split into epigrafe, fatto e diritto, motivazione and dispositivo,
    paged; with Italian citation, ECLI, publication date; PDF-only decisions are flagged."""
    # every argument is checked before the request (in this order), so a wrong one is invalid_arg
    url = ga.check_document_url(document_url, app.settings.ga_document_url)
    size = paging.page_size(paging.answer_budget(app.settings), max_chars, least=100)
    offset = paging.check_offset(offset)
    doc = await live.it_ga_get_decision(app.http, app.settings, document_url=url)
    return ga_page(doc, offset=offset, size=size, budget=paging.answer_budget(app.settings))
