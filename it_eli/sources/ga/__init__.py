"""Giustizia Amministrativa: the portal's decision search and the mdp decision texts.

Parsing is pure (bytes in, Structs out, lxml with no network and no entity expansion); `fetch` does
the I/O with the `HttpClient` it is given. Facts relied on are in DISCOVERY.md (SentenzeWeb, GA,
TLS). This face hands on the names callers use as `ga.<name>`.
"""

from __future__ import annotations

from it_eli.sources.ga.courts import (
    ECLI_COURTS,
    SEDE_OPTIONS,
    build_ecli,
    ga_citation,
    resolve_sede,
    resolve_sezione,
    resolve_tipo,
    section_label,
    split_number,
)
from it_eli.sources.ga.decision import decision_identity, parse_decision_xml
from it_eli.sources.ga.document_url import check_document_url, is_pdf_url
from it_eli.sources.ga.fetch import fetch_document, open_session, post_search
from it_eli.sources.ga.portal import (
    NS,
    PORTLET_ID,
    extract_p_auth,
    filter_hits,
    page_size,
    parse_search_page,
    portal_numero,
    resolve_numero,
    search_form,
)

__all__ = [
    "ECLI_COURTS", "SEDE_OPTIONS", "build_ecli", "ga_citation", "resolve_sede", "resolve_sezione", "resolve_tipo",
    "section_label", "split_number",
    "decision_identity", "parse_decision_xml",
    "check_document_url", "is_pdf_url",
    "fetch_document", "open_session", "post_search",
    "NS", "PORTLET_ID", "extract_p_auth", "filter_hits", "page_size", "parse_search_page", "portal_numero",
    "resolve_numero", "search_form",
]  # fmt: skip
