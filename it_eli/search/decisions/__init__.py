"""The Constitutional Court index: build (streaming, atomic swap) and search.

Search goes through it_eli.search.query (never Tantivy's string parser), ranks with BM25 over the
decision's parts with the boosts of index_schema/decisions.toml, filters with range/term
queries on fast fields, counts facets with Tantivy aggregations, and cuts a highlighted snippet
from whichever part matched (ordinanze keep their reasoning in `epigrafe`).

model: what the index is and answers with; arguments: how a caller names a decision and filters;
build: building and updating; snippets: cutting a hit's snippet; reader: DecisionIndex, the reader.
The names below are the package's face; code of it_eli imports them from their own modules.
"""

from .arguments import validate_decision_ref
from .build import build_index, update_index
from .model import (
    PROVENANCE,
    BuildReport,
    CaseSearchResult,
    CaseStats,
    DecisionHeader,
    RecentResult,
    StoredDecision,
    index_root,
    public_url,
)
from .reader import DecisionIndex

__all__ = [
    "PROVENANCE",
    "BuildReport",
    "CaseSearchResult",
    "CaseStats",
    "DecisionHeader",
    "DecisionIndex",
    "RecentResult",
    "StoredDecision",
    "build_index",
    "index_root",
    "public_url",
    "update_index",
    "validate_decision_ref",
]
