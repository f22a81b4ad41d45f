"""SentenzeWeb (Corte di Cassazione): the public Solr behind www.italgiure.giustizia.it/sncass/.

Parsing is pure (bytes in, Structs out); `fetch.fetch_select` is the one I/O function and uses the
`HttpClient` it is given. Every upstream fact relied on here is in DISCOVERY.md (SentenzeWeb, GA, TLS).
This face hands on the names callers use as `sentenzeweb.<name>`.

Query safety: user text never reaches Solr as syntax. The query is parsed by `it_eli.law.query`
(the language of it_case_search: words, "phrases", AND / OR / NOT, `-word`, parentheses) and
compiled in `query`; each word and each phrase becomes one phrase clause `ocr:"..."` in which only `\\`
and `"` are special (both backslash-escaped). The only Solr syntax in `q` is ours: the clauses,
`AND` / `OR` / `NOT`, parentheses, `*:*` (everything, for a purely negative group) and the
numbers of `~N` (phrase slop) and `^N` (weight) that the parser has already validated. Words are
ANDed by default because the upstream ORs bare words.
"""

from __future__ import annotations

from it_eli.sources.sentenzeweb.answers import (
    CassazioneFacets,
    CassazioneSearchResult,
    SolrDoc,
    decode_answer,
    parse_decision,
    parse_facets,
    parse_search,
)
from it_eli.sources.sentenzeweb.court import (
    DECISION_TYPES,
    KIND_OF_CHAMBER,
    SECTION_CODES,
    resolve_decision_type,
    resolve_section,
    section_label,
)
from it_eli.sources.sentenzeweb.fetch import fetch_select, split_request
from it_eli.sources.sentenzeweb.query import QUERY_VALID, build_q, compile_query
from it_eli.sources.sentenzeweb.request import (
    SELECT_PATH,
    SORTS,
    build_filters,
    check_sic_id,
    court_query,
    facet_params,
    get_params,
    resolve_sort,
    search_params,
)

__all__ = [
    "CassazioneFacets", "CassazioneSearchResult", "SolrDoc", "decode_answer", "parse_decision", "parse_facets",
    "parse_search",
    "DECISION_TYPES", "KIND_OF_CHAMBER", "SECTION_CODES", "resolve_decision_type", "resolve_section", "section_label",
    "fetch_select", "split_request",
    "QUERY_VALID", "build_q", "compile_query",
    "SELECT_PATH", "SORTS", "build_filters", "check_sic_id", "court_query", "facet_params", "get_params",
    "resolve_sort", "search_params",
]  # fmt: skip
