"""What the Constitutional Court index is and answers with: its name, parts and query fields, how
a decision is cited and linked, the analyzers its fields share, and the answer structs. Building,
searching and the faces all speak these, so they sit below each of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec

from it_eli.runtime.config import Settings

from ..analysis import Analyzer

DEFN_NAME = "decisions"
PROVENANCE = (
    "Corte costituzionale, open data (dati.cortecostituzionale.it), licence CC BY-SA 3.0; "
    "attribution: Corte costituzionale"
)
TYPE_NAMES = {"S": "sentenza", "O": "ordinanza", "D": "decreto"}
TYPE_ABBR = {"S": "sent.", "O": "ord.", "D": "decr."}
PARTS = ("epigrafe", "testo", "dispositivo")  # the searchable parts a snippet comes from


def index_root(settings: Settings) -> Path:
    return settings.home / "indexes" / DEFN_NAME


def italian_citation(tipologia: str, numero: int, anno: int) -> str:
    return f"Corte cost., {TYPE_ABBR.get(tipologia, 'pron.')} n. {numero}/{anno}"


def public_url(ecli: str) -> str:
    return f"https://www.cortecostituzionale.it/actionSchedaPronuncia.do?param_ecli={ecli}"


# ---------------------------------------------------------------- contract

class BuildReport(msgspec.Struct, kw_only=True):
    """Outcome of one index build."""

    indexed: int
    duplicates: int
    rejected: dict[str, int]
    errors: list[str]
    sources: list[str]
    seconds: float
    index_path: str
    published: bool
    schema_version: int
    year_range: list[int] | None = None
    # an update (`incremental`) adds what the index lacks and replaces what changed; a full build
    # adds everything. `total`: decisions in the published index.
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    incremental: bool = False
    total: int = 0


class Highlight(msgspec.Struct, frozen=True):
    start: int
    end: int


class CaseHit(msgspec.Struct, kw_only=True):
    ecli: str
    citation: str = msgspec.field(name="citation")
    anno: int
    numero: int
    tipologia: str
    tipo: str
    data_deposito: str | None
    data_decisione: str | None
    relatore: str
    score: float
    snippet: str
    snippet_part: str | None
    highlights: list[Highlight]
    source_url: str


class FacetBucket(msgspec.Struct, frozen=True):
    value: str
    count: int


class CaseSearchResult(msgspec.Struct, kw_only=True):
    """Ranked Constitutional Court decisions with facet counts."""

    query: str
    total: int
    offset: int
    limit: int
    hits: list[CaseHit]
    facets: dict[str, list[FacetBucket]]
    relaxed_to_or: bool = False
    notes: list[str] = msgspec.field(default_factory=list)
    dataset_note: str = PROVENANCE


class PartText(msgspec.Struct, frozen=True):
    part: Literal["epigrafe", "testo", "dispositivo"]
    text: str


class DecisionHeader(msgspec.Struct, kw_only=True):
    """Who decided what, when: the same for a decision held whole and for a page of it."""

    ecli: str
    citation: str
    anno: int
    numero: int
    tipologia: str
    tipo: str
    data_decisione: str | None
    data_deposito: str | None
    presidente: str
    relatore: str
    redattore: str
    collegio: str


class StoredDecision(DecisionHeader, kw_only=True):
    """One decision whole, as the index holds it: the MCP tool pages it (it_case_get_decision),
    verification reads its metadata."""

    parts: list[PartText]  # the parts that have text, in order (an ordinanza has no testo)
    total_chars: int
    source_url: str


class RecentDecision(msgspec.Struct, kw_only=True):
    ecli: str
    citation: str
    anno: int
    numero: int
    tipo: str
    data_deposito: str | None
    relatore: str
    source_url: str


class RecentResult(msgspec.Struct, kw_only=True):
    decisions: list[RecentDecision]
    dataset_note: str = PROVENANCE


class IndexOrigin(msgspec.Struct, kw_only=True):
    """Where the local index came from: built here from the open-data sources, or imported from
    a pre-built archive (`it-eli index import`, or IT_ELI_CASELAW_INDEX_URL on first use)."""

    kind: Literal["built", "imported"]
    sources: list[str]  # the open-data archives the index was built from (where it was built)
    built_at: str | None
    built_by: str | None  # the it_eli version that built it
    archive: str | None = None  # imported: the archive's URL or path
    archive_sha256: str | None = None
    imported_at: str | None = None


def index_origin(meta: dict) -> IndexOrigin:
    imported = meta.get("imported") or {}
    return IndexOrigin(
        kind="imported" if imported else "built", sources=list(meta.get("sources") or []),
        built_at=meta.get("built_at"), built_by=meta.get("it_eli_version"),
        archive=imported.get("archive"), archive_sha256=imported.get("sha256"), imported_at=imported.get("imported_at"),
    )


class CaseStats(msgspec.Struct, kw_only=True):
    """What the local Constitutional Court index holds and where it came from."""

    total: int
    year_range: list[int] | None
    by_type: dict[str, int]
    built_at: str | None
    sources: list[str]
    schema_version: int
    index_path: str
    it_eli_version: str
    origin: IndexOrigin | None = None
    provenance: str = PROVENANCE
    warnings: list[str] = msgspec.field(default_factory=list)  # e.g. index_corrupt: an earlier build serves


_ANALYZERS: dict[str, Analyzer] = {}


def shared_analyzer(name: str = "it_legal") -> Analyzer:
    a = _ANALYZERS.get(name)
    if a is None:
        a = _ANALYZERS[name] = Analyzer(name)
    return a


FIELD_ALIASES = {
    "epigrafe": ["epigrafe"],
    "testo": ["testo"],
    "motivazione": ["testo"],
    "dispositivo": ["dispositivo"],
    "relatore": ["relatore"],
    "presidente": ["presidente"],
    "redattore": ["redattore"],
}
