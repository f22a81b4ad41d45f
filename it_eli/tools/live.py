"""Registration of the live case-law tools (Cassazione, Giustizia Amministrativa) with the registry."""

from __future__ import annotations

import msgspec

from . import caselaw_live as live
from .registry import tool


class CassSearchParams(msgspec.Struct, kw_only=True):
    query: str
    chamber: str | None = None
    section: str | None = None
    sub_chamber: str | None = None
    decision_type: str | None = None
    anno: int | None = None
    limit: int = 10
    offset: int = 0


class CassGetParams(msgspec.Struct, kw_only=True):
    sic_id: str
    max_chars: int | None = None
    offset: int = 0
    part: str = "text"


class GaSearchParams(msgspec.Struct, kw_only=True):
    query: str | None = None
    sede: str | None = None
    tipo: str | None = None
    numero: str | int | None = None
    anno: int | None = None
    sezione: str | None = None
    limit: int = 20


class GaGetParams(msgspec.Struct, kw_only=True):
    document_url: str
    max_chars: int | None = None
    offset: int = 0


@tool("it_cassazione_search", CassSearchParams, live.CassazioneSearchResult, open_world=True)
async def cassazione_search(app, **kwargs):
    """Search Corte di Cassazione decisions live on SentenzeWeb (free public service) with the
    query language of it_case_search: words and "quoted phrases" (all required), OR, NOT / -word,
    (parentheses), "phrase"~N. Filters, case-insensitive: chamber (civile|penale), section (1-7 or
    I-VII, lavoro, sezioni unite / SU, feriale, tributaria; sub_chamber is its older name),
    decision_type (sentenza|ordinanza|ordinanza interlocutoria|decreto), anno. Highlighted snippets,
    total found, facet counts by year, section, type and chamber whose values pass back as these
    filters; each hit has sic_id, Italian citation (Cass. civ., sez. III, ord. n. 24393/2025), dates,
    source_url."""
    return await live.it_cassazione_search(app.http, app.settings, **kwargs)


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
