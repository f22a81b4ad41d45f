"""Registration of the live case-law tools (Cassazione, Giustizia Amministrativa) with the registry."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from ..services import caselaw_live as live
from .registry import tool


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
    return await live.it_cassazione_search(app.http, app.settings, start=offset, **kwargs)


@tool("it_cassazione_get", CassGetParams, live.CassazioneDecision, open_world=True)
async def cassazione_get(app, **kwargs):
    """Full text of one Cassazione decision by its SentenzeWeb id (sic_id from it_cassazione_search,
    e.g. snciv2025224393O), with its dispositivo; paged by max_chars/offset (next_offset). A very
    long dispositivo comes cut (dispositivo_truncated): part="dispositivo" pages it."""
    return await live.it_cassazione_get(app.http, app.settings, **kwargs)


@tool("it_ga_search", GaSearchParams, live.GaSearchResult, open_world=True)
async def ga_search(app, **kwargs):
    """Search administrative decisions live (Consiglio di Stato, C.G.A.R.S., TAR) on the Giustizia
    Amministrativa portal: free text, sede (as lawyers write it: Cons. Stato, CGA, TAR Lazio, Roma,
    TRGA Trento; a region with two TAR seats asks which), tipo, numero (11970 or 11970/2026);
    anno and sezione (IV, I-bis) are applied on the newest page (the portal has no such filter) and
    the answer says so. Hits with Italian citation (T.A.R. Lazio, Roma, sez. I-bis, sent. n.
    11970/2026), native ECLI, court, sede, section, number and year, snippet, document_url."""
    return await live.it_ga_search(app.http, app.settings, **kwargs)


@tool("it_ga_get_decision", GaGetParams, live.GaDecision, open_world=True)
async def ga_get_decision(app, **kwargs):
    """Text of one administrative decision by the document_url given by it_ga_search (only the
    decision host is accepted), split into epigrafe, fatto e diritto, motivazione and dispositivo,
    paged; with Italian citation, ECLI, publication date; PDF-only decisions are flagged."""
    return await live.it_ga_get_decision(app.http, app.settings, **kwargs)
