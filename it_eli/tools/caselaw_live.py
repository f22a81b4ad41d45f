"""Live case-law tools: Cassazione (SentenzeWeb) and Giustizia Amministrativa.

Plain async functions, no MCP import: each takes `(client, settings, **args)` and returns a
msgspec Struct; failures are typed `it_eli.errors` exceptions. Answers are cached in memory
per client (searches for `settings.search_cache_seconds`, documents for a day); the client
does the per-host throttle. When the upstream is down (or answers in a shape we no longer read),
an expired cached answer (kept up to STALE_MAX_SECONDS) is served marked `stale` with a note,
instead of an error: an old answer the caller is told about beats none.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import msgspec

from .. import ga, sentenzeweb, tls
from ..config import Settings
from ..errors import InvalidArg, ItEliError, UpstreamChanged, UpstreamUnavailable
from ..ga import GaDecision, GaHit, GaMetadata, GaSearchResult, GaSection
from ..http import HttpClient
from ..sentenzeweb import (
    CassazioneDecision,
    CassazioneFacets,
    CassazioneHit,
    CassazioneSearchResult,
    Chamber,
    FacetCount,
    SubChamber,
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
    "CassazioneDecision",
    "GaSearchResult",
    "GaHit",
    "GaDecision",
    "GaMetadata",
    "GaSection",
]

DOCUMENT_CACHE_SECONDS = 86400.0
STALE_MAX_SECONDS = 7 * 86400.0  # how long past its TTL an answer may still be served as stale
DOWN = (UpstreamUnavailable, UpstreamChanged)
GA_SESSION_SECONDS = 600.0
MAX_QUERY_CHARS = 2000
MAX_CASS_LIMIT = 50


class _TTLCache:
    """Small in-memory cache: entries expire after their own TTL; oldest dropped past `size`."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._data: dict[Any, tuple[float, Any]] = {}

    def get(self, key: Any) -> Any:
        """The fresh value, or None (an expired value stays for `get_stale`)."""
        item = self._data.get(key)
        if item is None or item[0] < time.monotonic():
            return None
        return item[1]

    def get_stale(self, key: Any) -> Any:
        """The value even if expired (up to STALE_MAX_SECONDS past its TTL), or None."""
        item = self._data.get(key)
        if item is None or item[0] + STALE_MAX_SECONDS < time.monotonic():
            self._data.pop(key, None)
            return None
        return item[1]

    def put(self, key: Any, value: Any, ttl: float) -> None:
        if ttl <= 0:
            return
        self._data.pop(key, None)  # re-insert at the end: eviction drops the oldest write
        if len(self._data) >= self.size:
            self._data.pop(next(iter(self._data)))
        self._data[key] = (time.monotonic() + ttl, value)

    def drop(self, key: Any) -> None:
        self._data.pop(key, None)


_caches: weakref.WeakKeyDictionary[HttpClient, _TTLCache] = weakref.WeakKeyDictionary()


def _cache(client: HttpClient) -> _TTLCache:
    cache = _caches.get(client)
    if cache is None:
        cache = _caches[client] = _TTLCache()
    return cache


def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidArg(f"{name}={value!r} is out of range", valid=f"an integer from {lo} to {hi}")
    return value


def _max_chars(settings: Settings, max_chars: int | None) -> int:
    cap = max(1000, settings.max_answer_chars)
    return cap if max_chars is None else _check_int("max_chars", max_chars, 100, cap)


def _stale_note(exc: ItEliError) -> str:
    return (
        f"served from this server's cache because the upstream could not be used now ({exc.code}: "
        f"{exc.message[:160]}); it may be out of date"
    )


def _mark_stale(result: Any, note: str | None) -> Any:
    return result if note is None else msgspec.structs.replace(result, stale=True, stale_note=note)


async def _select(
    client: HttpClient, settings: Settings, params: list[tuple[str, str]], ttl: float
) -> tuple[tuple[bytes, str], str | None]:
    """((body, content type), stale note or None)."""
    key = ("sentenzeweb", settings.sentenzeweb_url, tuple(params))
    cache = _cache(client)
    cached = cache.get(key)
    if cached is not None:
        return cached, None
    try:
        await tls.install_for_url(client, settings.sentenzeweb_url)
        answer = await sentenzeweb.fetch_select(client, settings.sentenzeweb_url, params)
        sentenzeweb.decode_answer(*answer)  # only well-formed answers are cached
    except DOWN as exc:
        old = cache.get_stale(key)
        if old is None:
            raise
        return old, _stale_note(exc)
    cache.put(key, answer, ttl)
    return answer, None


async def it_cassazione_search(
    client: HttpClient,
    settings: Settings,
    *,
    query: str,
    chamber: Chamber | None = None,
    sub_chamber: SubChamber | None = None,
    anno: int | None = None,
    limit: int = 10,
    offset: int = 0,
) -> CassazioneSearchResult:
    """Search Cassazione decisions (SentenzeWeb) by words and "quoted phrases", all required.

    Filters: chamber civile/penale, sub_chamber lavoro/tributaria (civil), anno. The answer
    has highlighted snippets (⟦…⟧), the total, and facet counts to narrow the search.
    """
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        raise InvalidArg("query must be text of at most 2000 characters", valid="words and/or quoted phrases")
    limit = _check_int("limit", limit, 1, MAX_CASS_LIMIT)
    offset = _check_int("offset", offset, 0, 10000)
    q = sentenzeweb.build_q(query)
    fq = sentenzeweb.build_filters(chamber, sub_chamber, anno)
    params = sentenzeweb.search_params(q, fq, limit, offset)
    (body, ctype), stale = await _select(client, settings, params, settings.search_cache_seconds)
    result = sentenzeweb.parse_search(
        body,
        query=query,
        solr_query=q,
        filters=fq,
        limit=limit,
        offset=offset,
        sentenzeweb_url=settings.sentenzeweb_url,
        content_type=ctype,
    )
    return _mark_stale(result, stale)


async def it_cassazione_get(
    client: HttpClient,
    settings: Settings,
    *,
    sic_id: str,
    max_chars: int | None = None,
    offset: int = 0,
) -> CassazioneDecision:
    """Full text of one Cassazione decision by its SentenzeWeb id (e.g. snciv2021521018O), paged."""
    sentenzeweb.check_sic_id(sic_id)
    size = _max_chars(settings, max_chars)
    offset = _check_int("offset", offset, 0, 50_000_000)
    (body, ctype), stale = await _select(client, settings, sentenzeweb.get_params(sic_id), DOCUMENT_CACHE_SECONDS)
    result = sentenzeweb.parse_decision(
        body, sic_id=sic_id, max_chars=size, offset=offset, sentenzeweb_url=settings.sentenzeweb_url, content_type=ctype,
        budget=max(1000, settings.max_answer_chars),
    )
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


async def it_ga_search(
    client: HttpClient,
    settings: Settings,
    *,
    query: str | None = None,
    sede: str | None = None,
    tipo: str | None = None,
    numero: str | None = None,
    anno: int | None = None,
    limit: int = 20,
) -> GaSearchResult:
    """Search administrative decisions (Consiglio di Stato, C.G.A.R.S., TAR) on the GA portal.

    Only the newest page is served upstream; `anno` is applied here on that page (the portal
    ignores it), which the answer says.
    """
    if query is not None and (not isinstance(query, str) or len(query) > 500):
        raise InvalidArg("query must be text of at most 500 characters", valid="free text")
    q = " ".join((query or "").split())
    if numero is not None:
        numero = str(numero).strip()
        if not numero.isdigit() or len(numero) > 9:
            raise InvalidArg(f"numero {numero!r} is not a decision number", valid="1 to 9 digits, e.g. 5268")
    if not q and not numero:
        raise InvalidArg("give a query or a numero", valid="query text and/or numero")
    if anno is not None:
        _check_int("anno", anno, 1900, 2100)
    limit = _check_int("limit", limit, 1, 60)
    form = ga.search_form(q, ga.resolve_sede(sede), ga.resolve_tipo(tipo), numero, limit)
    key = ("ga-search", settings.ga_url, tuple(sorted(form.items())))
    cached = _cache(client).get(key)
    stale = None
    if cached is None:
        try:
            cached = await _ga_post(client, settings, form)
        except DOWN as exc:
            cached = _cache(client).get_stale(key)
            if cached is None:
                raise
            stale = _stale_note(exc)
        else:
            _cache(client).put(key, cached, settings.search_cache_seconds)
    total, hits = cached
    note = None
    if anno is not None:
        hits = [h for h in hits if h.year == anno]
        note = (
            f"anno={anno} was applied here to the first {ga.page_size(limit)} results (newest first): "
            "the portal ignores the year; total_upstream counts all years."
        )
    hits = hits[:limit]
    return _mark_stale(GaSearchResult(
        total_upstream=total,
        returned=len(hits),
        anno_filter=anno,
        anno_applied_client_side=anno is not None,
        note=note,
        hits=hits,
    ), stale)


async def it_ga_get_decision(
    client: HttpClient,
    settings: Settings,
    *,
    document_url: str,
    max_chars: int | None = None,
    offset: int = 0,
) -> GaDecision:
    """Text of one administrative decision by its `document_url` from it_ga_search, paged.

    Only the decision host's /visualizza/ URLs are accepted. PDF-only decisions are flagged
    (`pdf_only`) and not parsed: open `source_url`.
    """
    url = ga.check_document_url(document_url, settings.ga_document_url)
    size = _max_chars(settings, max_chars)
    offset = _check_int("offset", offset, 0, 50_000_000)
    if ga.is_pdf_url(url):
        return GaDecision(document_url=url, pdf_only=True, source_url=url)
    key = ("ga-doc", url)
    body = _cache(client).get(key)
    stale = None
    if body is None:
        try:
            body = await ga.fetch_document(client, url, settings.ga_document_url, settings.ga_url)
            if body.lstrip()[:5] == b"%PDF-":
                return GaDecision(document_url=url, pdf_only=True, source_url=url)
            ga.parse_decision_xml(body)
        except DOWN as exc:
            body = _cache(client).get_stale(key)
            if body is None:
                raise
            stale = _stale_note(exc)
        else:
            _cache(client).put(key, body, DOCUMENT_CACHE_SECONDS)
    metadata, text, sections = ga.parse_decision_xml(body)
    chunk, nxt = sentenzeweb.page(text, offset, size, max(1000, settings.max_answer_chars))
    return _mark_stale(GaDecision(
        document_url=url,
        metadata=metadata,
        sections=sections,
        text=chunk,
        offset=offset,
        total_chars=len(text),
        next_offset=nxt,
        source_url=url,
    ), stale)
