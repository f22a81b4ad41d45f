"""Live case-law service: Cassazione (SentenzeWeb) and Giustizia Amministrativa.

Plain async functions, no MCP import: each takes `(client, settings, **args)` and returns a
msgspec Struct; failures are typed `it_eli.runtime.errors` exceptions. Answers are cached in memory
per client (searches for `settings.search_cache_seconds`, documents for a day); the client
does the per-host throttle. When the upstream is down (or answers in a shape we no longer read),
an expired cached answer (kept up to STALE_MAX_SECONDS) is served marked `stale` with a note,
instead of an error: an old answer the caller is told about beats none.
"""

from __future__ import annotations

import re
import sys
import time
import weakref
from typing import Any

import cachetools
import msgspec

from it_eli.sources import ga, sentenzeweb, tls
from it_eli.runtime.config import Settings
from it_eli.runtime.errors import InvalidArg, ItEliError, UpstreamChanged, UpstreamUnavailable, checked_int
from it_eli.sources.ga.decision import GaMetadata, GaSection, GaText
from it_eli.sources.ga.portal import GaHit, GaSearchResult
from it_eli.sources.http import HttpClient
from it_eli.sources.sentenzeweb.answers import (
    CassazioneFacets,
    CassazioneHit,
    CassazioneSearchResult,
    CassazioneText,
    FacetCount,
)

__all__ = [
    "it_cassazione_search",
    "it_cassazione_get",
    "it_ga_search",
    "it_ga_get_decision",
    "CassazioneSearchResult",
    "CassazioneHit",
    "CassazioneFacets",
    "FacetCount",
    "CassazioneText",
    "GaSearchResult",
    "GaHit",
    "GaText",
    "GaMetadata",
    "GaSection",
]

DOCUMENT_CACHE_SECONDS = 86400.0
CACHE_MAX_BYTES = 64 * 1024 * 1024  # searches and decision texts kept per client, in bytes
STALE_MAX_SECONDS = 7 * 86400.0  # how long past its TTL an answer may still be served as stale
DOWN = (UpstreamUnavailable, UpstreamChanged)
GA_SESSION_SECONDS = 600.0
MAX_CASS_LIMIT = 50
MAX_CASS_START = 10000  # the deepest hit a search may start from (the tool's offset bound)


def _size_of(value: Any) -> int:
    """Bytes an answer holds (bodies and texts by length): what the byte bound counts."""
    if isinstance(value, (bytes, bytearray, str)):
        return len(value)
    if isinstance(value, (tuple, list)):
        return sum(_size_of(v) for v in value) + 8 * len(value)
    if isinstance(value, msgspec.Struct):
        return len(msgspec.msgpack.encode(value))
    return sys.getsizeof(value)


class _TTLCache:
    """In-memory answers with their own TTL, kept STALE_MAX_SECONDS past it to be served stale
    when the upstream is down; bounded in bytes (`max_bytes`) or in entries (`size`), least
    recently used dropped first. cachetools' TLRUCache does the expiry, the bound and the order;
    this wrapper only adds the fresh/stale distinction it cannot know."""

    def __init__(self, size: int = 256, *, max_bytes: int | None = None) -> None:
        ttu = lambda _key, item, _now: item[0] + STALE_MAX_SECONDS  # noqa: E731 (gone when too stale)
        if max_bytes is None:
            self._data = cachetools.TLRUCache(maxsize=size, ttu=ttu, timer=time.monotonic)
        else:
            self._data = cachetools.TLRUCache(maxsize=max_bytes, ttu=ttu, timer=time.monotonic,
                                              getsizeof=lambda item: _size_of(item[1]))

    def get(self, key: Any) -> Any:
        """The fresh value, or None (an expired value stays for `get_stale`)."""
        item = self._data.get(key)
        if item is None or item[0] < time.monotonic():
            return None
        return item[1]

    def get_stale(self, key: Any) -> Any:
        """The value even if expired (up to STALE_MAX_SECONDS past its TTL), or None."""
        item = self._data.get(key)
        return None if item is None else item[1]

    def put(self, key: Any, value: Any, ttl: float) -> None:
        if ttl <= 0:
            return
        try:
            self._data[key] = (time.monotonic() + ttl, value)
        except ValueError:  # larger than the whole bound: not cached
            self._data.pop(key, None)

    def drop(self, key: Any) -> None:
        self._data.pop(key, None)


_caches: weakref.WeakKeyDictionary[HttpClient, _TTLCache] = weakref.WeakKeyDictionary()
# GA search hits by document_url: it_ga_get_decision takes the portal's ECLI from there
_hit_caches: weakref.WeakKeyDictionary[HttpClient, _TTLCache] = weakref.WeakKeyDictionary()


def _cache(client: HttpClient) -> _TTLCache:
    cache = _caches.get(client)
    if cache is None:
        cache = _caches[client] = _TTLCache(max_bytes=CACHE_MAX_BYTES)
    return cache


def _ga_hits(client: HttpClient) -> _TTLCache:
    cache = _hit_caches.get(client)
    if cache is None:
        cache = _hit_caches[client] = _TTLCache(size=4096)
    return cache



def _stale_note(exc: ItEliError) -> str:
    return (
        f"served from this server's cache because the upstream could not be used now ({exc.code}: "
        f"{exc.message[:160]}); it may be out of date"
    )


def _mark_stale(result: Any, note: str | None) -> Any:
    return result if note is None else msgspec.structs.replace(result, stale=True, stale_note=note)


class _Uncached(Exception):
    """Raised by a fetch whose answer is served but not kept (a PDF where a decision's XML was asked)."""

    def __init__(self, value: Any) -> None:
        self.value = value


async def _fresh_or_stale(client: HttpClient, key: Any, fetch, ttl: float) -> tuple[Any, str | None]:
    """(value, stale note or None): the cached value while fresh; else `fetch()`, kept for `ttl`;
    when the upstream is down, the expired value with a note saying so, or the failure itself."""
    cache = _cache(client)
    cached = cache.get(key)
    if cached is not None:
        return cached, None
    try:
        value = await fetch()
    except _Uncached as exc:
        return exc.value, None
    except DOWN as exc:
        old = cache.get_stale(key)
        if old is None:
            raise
        return old, _stale_note(exc)
    cache.put(key, value, ttl)
    return value, None


async def _select(
    client: HttpClient, settings: Settings, params: list[tuple[str, str]], ttl: float
) -> tuple[tuple[bytes, str], str | None]:
    """((body, content type), stale note or None)."""

    async def fetch() -> tuple[bytes, str]:
        await tls.install_for_url(client, settings.sentenzeweb_url)
        answer = await sentenzeweb.fetch_select(client, settings.sentenzeweb_url, params)
        sentenzeweb.decode_answer(*answer)  # only well-formed answers are cached
        return answer

    return await _fresh_or_stale(client, ("sentenzeweb", settings.sentenzeweb_url, tuple(params)), fetch, ttl)


async def it_cassazione_search(
    client: HttpClient,
    settings: Settings,
    *,
    query: str,
    chamber: str | None = None,
    sub_chamber: str | None = None,
    section: str | None = None,
    decision_type: str | None = None,
    anno: int | None = None,
    sort: str | None = None,
    limit: int = 10,
    start: int = 0,
) -> CassazioneSearchResult:
    """Search Cassazione decisions (SentenzeWeb) in the query language of it_case_search:
    words and "phrases" (all required), OR, NOT / -word, parentheses.

    Filters: chamber civile/penale, section (1-7, lavoro, sezioni unite, feriale, tributaria;
    `sub_chamber` is its older name), decision_type (sentenza, ordinanza, ordinanza
    interlocutoria, decreto), anno; all case-insensitive; sort relevance (default), deposit_date
    or decision_date. Requests are shaped as the court's own front-end shapes them: filters AND-ed
    into `q`, the search and the facet counts as two requests. The answer has highlighted snippets
    (⟦…⟧), the total, each hit's ECLI and PDF link, and facet counts whose values can be passed
    back as these filters (when the facet request fails, the hits come without them and a note).
    `limit` hits from hit `start` (0-based): Solr's own window, which the MCP tool calls offset.
    """
    if not isinstance(query, str):
        raise InvalidArg("query must be text", valid=sentenzeweb.QUERY_VALID)
    limit = checked_int("limit", limit, 1, MAX_CASS_LIMIT)
    start = checked_int("start", start, 0, MAX_CASS_START)
    q, _terms, notes = sentenzeweb.compile_query(query)
    filters = sentenzeweb.build_filters(chamber, sub_chamber, anno, section=section, decision_type=decision_type)
    params = sentenzeweb.search_params(q, filters, limit, start, sentenzeweb.resolve_sort(sort))
    (body, ctype), stale = await _select(client, settings, params, settings.search_cache_seconds)
    sentenzeweb.decode_answer(body, ctype)  # a bad search answer fails before the facet request
    try:
        (fbody, fctype), _ = await _select(
            client, settings, sentenzeweb.facet_params(q, filters), settings.search_cache_seconds
        )
        facets = sentenzeweb.parse_facets(fbody, fctype)
    except DOWN as exc:
        facets = CassazioneFacets()
        notes = [*notes, f"facet counts unavailable ({exc.code}): the hits are complete, the counts are not"]
    result = sentenzeweb.parse_search(
        body,
        query=query,
        solr_query=dict(params)["q"],
        filters=filters,
        rows=limit,
        start=start,
        sentenzeweb_url=settings.sentenzeweb_url,
        content_type=ctype,
        notes=notes,
        facets=facets,
    )
    return _mark_stale(result, stale)


async def it_cassazione_get(client: HttpClient, settings: Settings, *, sic_id: str) -> CassazioneText:
    """One Cassazione decision by its SentenzeWeb id (e.g. snciv2021521018O), with its full text
    and dispositivo whole: the MCP tool pages them, a service can read them entire."""
    sic_id = sentenzeweb.check_sic_id(sic_id)
    (body, ctype), stale = await _select(client, settings, sentenzeweb.get_params(sic_id), DOCUMENT_CACHE_SECONDS)
    result = sentenzeweb.parse_decision(body, sic_id=sic_id, sentenzeweb_url=settings.sentenzeweb_url, content_type=ctype)
    return _mark_stale(result, stale)


async def _ga_post(client: HttpClient, settings: Settings, form: dict[str, str]) -> tuple[int, list[GaHit]]:
    """Search with a cached session; on a page of unknown shape renew the session once."""
    cache = _cache(client)
    skey = ("ga-session", settings.ga_url)
    for attempt in (0, 1):
        p_auth = cache.get(skey)
        if p_auth is None:
            p_auth = await ga.open_session(client, settings.ga_url)
            cache.put(skey, p_auth, GA_SESSION_SECONDS)
        body = await ga.post_search(client, settings.ga_url, p_auth, form)
        try:
            return ga.parse_search_page(body, settings.ga_document_url)
        except UpstreamChanged:
            cache.drop(skey)
            if attempt:
                raise
    raise AssertionError("unreachable")


_OPERATORS = re.compile(r'(?:^|\s)(?:AND|OR|NOT)(?:\s|$)|(?:^|\s)[-+][\w"(]|[()"“”«»]|\w[*~^]')


def _ga_notes(q: str, anno: int | None, sez: str | None, limit: int) -> list[str]:
    """What a GA answer tells its reader: filters applied here on the first page, and operators
    the portal may not read as operators."""
    notes = []
    if anno is not None or sez is not None:
        what = " and ".join(x for x in (f"anno={anno}" if anno is not None else "",
                                        f"sezione={sez}" if sez is not None else "") if x)
        notes.append(
            f"{what} applied here to the first {ga.page_size(limit)} results (newest first): the portal "
            "has no such filter; total_upstream counts them all."
        )
    if q and _OPERATORS.search(q):
        notes.append(
            "the portal's free-text search has no documented operator syntax: AND/OR/NOT, -word, quotes and "
            "parentheses were sent as typed and may not act as operators (unlike it_cassazione_search)."
        )
    return notes


async def it_ga_search(
    client: HttpClient,
    settings: Settings,
    *,
    query: str | None = None,
    sede: str | None = None,
    tipo: str | None = None,
    numero: str | int | None = None,
    anno: int | None = None,
    sezione: str | None = None,
    limit: int = 20,
) -> GaSearchResult:
    """Search administrative decisions (Consiglio di Stato, C.G.A.R.S., TAR) on the GA portal.

    Only the newest page is served upstream; `anno` and `sezione` are applied here on that page
    (the portal ignores the year and has no section field), which the answer says.
    """
    if query is not None and (not isinstance(query, str) or len(query) > 500):
        raise InvalidArg("query must be text of at most 500 characters", valid="free text")
    q = " ".join((query or "").split())
    if anno is not None:
        anno = checked_int("anno", anno, 1900, 2100)
    numero, anno = ga.resolve_numero(numero, anno)
    if not q and not numero:
        raise InvalidArg("give a query or a numero", valid="query text and/or numero")
    limit = checked_int("limit", limit, 1, 60)
    sede_value = ga.resolve_sede(sede)
    sez = ga.resolve_sezione(sezione)
    form = ga.search_form(q, sede_value, ga.resolve_tipo(tipo), ga.portal_numero(numero, anno) if numero else None, limit)
    (total, hits), stale = await _fresh_or_stale(
        client, ("ga-search", settings.ga_url, tuple(sorted(form.items()))),
        lambda: _ga_post(client, settings, form), settings.search_cache_seconds)
    hit_cache = _ga_hits(client)
    for h in hits:
        if h.document_url:
            hit_cache.put(h.document_url, h, DOCUMENT_CACHE_SECONDS)
    notes = _ga_notes(q, anno, sez, limit)
    hits = ga.filter_hits(hits, anno, sez)[:limit]

    result = GaSearchResult(
        total_upstream=total,
        returned=len(hits),
        sede=sede_value,
        anno_filter=anno,
        anno_applied_client_side=anno is not None,
        sezione_filter=sez,
        note=" ".join(notes) or None,
        hits=hits,
    )
    return _mark_stale(result, stale)


async def it_ga_get_decision(client: HttpClient, settings: Settings, *, document_url: str) -> GaText:
    """One administrative decision by its `document_url` from it_ga_search, its text whole (the
    MCP tool pages it), with its Italian citation and ECLI.

    Only the decision host's /visualizza/ URLs are accepted. PDF-only decisions are flagged
    (`pdf_only`) and not parsed: open `source_url`.
    """
    url = ga.check_document_url(document_url, settings.ga_document_url)
    hit = _ga_hits(client).get_stale(url)
    if ga.is_pdf_url(url):
        return _ga_pdf(url, hit)

    async def fetch() -> bytes:
        body = await ga.fetch_document(client, url, settings.ga_document_url, settings.ga_url)
        if body.lstrip()[:5] == b"%PDF-":
            raise _Uncached(None)  # a PDF: served as pdf_only, never kept
        ga.parse_decision_xml(body)  # only a readable decision is kept
        return body

    body, stale = await _fresh_or_stale(client, ("ga-doc", url), fetch, DOCUMENT_CACHE_SECONDS)
    if body is None:
        return _ga_pdf(url, hit)
    metadata, text, sections = ga.parse_decision_xml(body)
    return _mark_stale(GaText(
        document_url=url,
        **ga.decision_identity(url, metadata, hit),
        metadata=metadata,
        sections=sections,
        text=text,
        source_url=url,
    ), stale)


def _ga_pdf(url: str, hit: GaHit | None) -> GaText:
    """A PDF-only decision: no text, but what its search hit said about it (when known here)."""
    if hit is None:
        return GaText(document_url=url, pdf_only=True, source_url=url)
    return GaText(
        document_url=url, pdf_only=True, source_url=url, citation=hit.citation, ecli=hit.ecli,
        ecli_source="portal" if hit.ecli else None, court=hit.court, sede=hit.sede, section=hit.section,
        decision_type=hit.decision_type, number=hit.number, year=hit.year,
    )
