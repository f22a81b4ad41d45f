"""The Constitutional Court index: build (streaming, atomic swap) and search.

Search goes through it_eli.search.query (never Tantivy's string parser), ranks with BM25 over the
decision's parts with the boosts of index_schema/decisions.toml, filters with range/term
queries on fast fields, counts facets with Tantivy aggregations, and cuts a highlighted snippet
from whichever part matched (ordinanze keep their reasoning in `epigrafe`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

import msgspec
import tantivy

from it_eli import __version__
from .analysis import INFLECTION_WEIGHT, Analyzer, mark_snippet, mark_words
from it_eli.runtime.config import Settings
from it_eli.sources.cortecost import Decision, SourceReport, iter_source, summarize_rejections
from it_eli.runtime.errors import (
    IndexCorrupt,
    IndexMissing,
    IndexSchemaMismatch,
    InvalidArg,
    ItEliError,
    NotFound,
    QueryError,
)
from .indexdir import IndexDir
from it_eli.search.query import MAX_HITS, HitWindow, QueryCompiler, prefix_forms, ranked_search
from it_eli.law.query import parse_query
from .schema import create_index, load_index_def, open_index, read_meta, write_meta

log = logging.getLogger(__name__)

DEFN_NAME = "decisions"
PROVENANCE = (
    "Corte costituzionale, open data (dati.cortecostituzionale.it), licence CC BY-SA 3.0; "
    "attribution: Corte costituzionale"
)
TYPE_NAMES = {"S": "sentenza", "O": "ordinanza", "D": "decreto"}
TYPE_ABBR = {"S": "sent.", "O": "ord.", "D": "decr."}
PARTS = ("epigrafe", "testo", "dispositivo")  # the searchable parts a snippet comes from
_ECLI_RE = re.compile(r"^ECLI:IT:COST:(\d{4}):(\d{1,5})$", re.I)


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


# ---------------------------------------------------------------- build

def _document(d: Decision) -> tantivy.Document:
    an = _analyzer()
    src = msgspec.msgpack.encode(
        {"epigrafe": d.epigrafe, "testo": d.testo, "dispositivo": d.dispositivo, "collegio": d.collegio}
    )
    doc = tantivy.Document(
        ecli=d.ecli,
        anno=d.anno,
        numero=d.numero,
        tipologia=d.tipologia,
        data_deposito=d.data_deposito or "",
        data_decisione=d.data_decisione or "",
        relatore=d.relatore,
        presidente=d.presidente,
        redattore=d.redattore,
        src=src,
    )
    add_parts(doc, {part: getattr(d, part) for part in PARTS}, an, _catch_all())
    return doc


def _catch_all() -> str | None:
    return load_index_def(DEFN_NAME).catch_all


def add_parts(doc: tantivy.Document, parts: dict[str, str], an: Analyzer, catch_all: str | None) -> None:
    """Index each part's char-filtered text in its field and, when the index has one, again in the
    catch-all field (one value per part: the whole decision as one bag of words)."""
    for part, text in parts.items():
        if text:
            prepared = an.prepare(text)
            doc.add_text(part, prepared)
            if catch_all:
                doc.add_text(catch_all, prepared)


_ANALYZERS: dict[str, Analyzer] = {}


def _analyzer(name: str = "it_legal") -> Analyzer:
    a = _ANALYZERS.get(name)
    if a is None:
        a = _ANALYZERS[name] = Analyzer(name)
    return a


DIGESTS_FILE = "digests.msgpack"  # ecli -> digest of the decision as indexed (incremental updates)


def decision_digest(d: Decision) -> bytes:
    """What identifies a decision's indexed content: a changed text or date gives a new digest."""
    return hashlib.blake2b(msgspec.msgpack.encode(d), digest_size=12).digest()


def read_digests(build: Path) -> dict[str, bytes] | None:
    try:
        return msgspec.msgpack.decode((build / DIGESTS_FILE).read_bytes(), type=dict[str, bytes])
    except (FileNotFoundError, msgspec.DecodeError):
        return None


def _write_digests(build: Path, digests: dict[str, bytes]) -> None:
    tmp = build / (DIGESTS_FILE + ".tmp")
    tmp.write_bytes(msgspec.msgpack.encode(digests))
    tmp.replace(build / DIGESTS_FILE)


class _Pass(msgspec.Struct, kw_only=True):
    """What one pass over the sources did to a writer."""

    reports: list[SourceReport]
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    duplicates: int = 0


def _index_sources(writer, sources: list[Path], digests: dict[str, bytes], *, incremental: bool,
                   progress, commit_every: int) -> _Pass:
    """Add every decision of the sources that `digests` (ecli -> digest, updated in place) does not
    already hold as it is; a decision whose digest changed replaces the indexed one."""
    out = _Pass(reports=[])
    seen: set[str] = set()
    written = 0
    for src in sources:
        report = SourceReport(source=str(src))
        out.reports.append(report)
        for d in iter_source(src, report):
            if d.ecli in seen:
                out.duplicates += 1
                continue
            seen.add(d.ecli)
            digest = decision_digest(d)
            old = digests.get(d.ecli)
            if old == digest:
                out.unchanged += 1
                continue
            if old is not None and incremental:
                writer.delete_documents_by_term("ecli", d.ecli)
                out.replaced += 1
            else:
                out.added += 1
            digests[d.ecli] = digest
            writer.add_document(_document(d))
            written += 1
            if commit_every and written % commit_every == 0:
                # bounds Tantivy's queue of pending documents: peak RSS 697 -> 469 MB on 25k
                # decisions; the build directory is published only after the last commit
                writer.commit()
            if progress and written % 250 == 0:
                progress(written, str(src))
    return out


def _index_summary(index: tantivy.Index) -> tuple[int, list[int] | None, dict[str, int]]:
    """(decisions, [first year, last year], decisions by type) of a committed index."""
    index.reload()
    searcher = index.searcher()
    agg = searcher.aggregate(tantivy.Query.all_query(), {
        "lo": {"min": {"field": "anno"}}, "hi": {"max": {"field": "anno"}},
        "t": {"terms": {"field": "tipologia", "size": 10}},
    })
    count = searcher.num_docs
    lo, hi = agg.get("lo", {}).get("value"), agg.get("hi", {}).get("value")
    years = [int(lo), int(hi)] if count and lo is not None and hi is not None else None
    return count, years, {b["key"]: int(b["doc_count"]) for b in agg.get("t", {}).get("buckets", [])}


def build_index(
    settings: Settings,
    sources: Iterable[Path],
    *,
    incremental: bool = False,
    progress: Callable[[int, str], None] | None = None,
    heap_bytes: int = 192_000_000,
    threads: int = 2,
    commit_every: int = 2500,
) -> BuildReport:
    """Index every decision of the given local sources into a new build, then swap it in.

    `incremental` (`update_index`): only decisions the current index lacks are added, and changed
    ones replaced, into a build that starts as a copy of the current one (its segment files
    hard-linked, never written); without a current index of this schema (or its digests), a full
    build."""
    idir = IndexDir(index_root(settings))
    with idir.build_lock():
        base = idir.current() if incremental else None
        if base is not None:
            meta = read_meta(base)
            defn = load_index_def(DEFN_NAME)
            if meta.get("schema_version") != defn.version or meta.get("fingerprint") != defn.fingerprint \
                    or read_digests(base) is None:
                base = None
        # a build that fails (disk full, an error, an interrupt) is removed: nothing left behind
        with idir.building() as build:
            return _build(idir, build, [Path(s) for s in sources], base, progress, heap_bytes, threads, commit_every)


def update_index(settings: Settings, sources: Iterable[Path], **options) -> BuildReport:
    """Bring the index up to date with the sources (`build_index(..., incremental=True)`)."""
    return build_index(settings, sources, incremental=True, **options)


_TANTIVY_LOCKS = (".tantivy-writer.lock", ".tantivy-meta.lock")


def _copy_build(base: Path, build: Path) -> None:
    """The files of a published build into a new one: immutable segment files as hard links (the
    copy costs nothing and the old build keeps serving), metadata files as copies (a writer
    replaces them)."""
    for f in base.iterdir():
        if f.is_dir() or f.name in _TANTIVY_LOCKS:
            continue
        if f.suffix == ".json" or f.name == DIGESTS_FILE:
            shutil.copy2(f, build / f.name)
        else:
            try:
                os.link(f, build / f.name)
            except OSError:  # another file system, or no hard links: a plain copy
                shutil.copy2(f, build / f.name)


def _build(idir: IndexDir, build: Path, sources: list[Path], base: Path | None, progress, heap_bytes: int,
           threads: int, commit_every: int) -> BuildReport:
    defn = load_index_def(DEFN_NAME)
    started = time.monotonic()
    if base is not None:
        _copy_build(base, build)
        index, old_meta = open_index(build, defn)
        digests = read_digests(build) or {}
    else:
        index, old_meta, digests = create_index(build, defn), {}, {}
    writer = index.writer(heap_size=heap_bytes, num_threads=threads)
    done = _index_sources(writer, sources, digests, incremental=base is not None, progress=progress,
                          commit_every=commit_every)
    errors = [e for r in done.reports for e in r.errors]
    rejected = summarize_rejections(done.reports)
    common = dict(duplicates=done.duplicates, rejected=rejected, sources=[str(s) for s in sources],
                  schema_version=defn.version, added=done.added, replaced=done.replaced,
                  unchanged=done.unchanged, incremental=base is not None)
    if done.added + done.replaced == 0:
        writer.rollback()
        del writer, index
        shutil.rmtree(build, ignore_errors=True)
        idir.cleanup(keep=2)
        if base is None or done.unchanged + done.duplicates == 0:
            # sources holding no decision at all are an error, never "already up to date"
            errors = errors or ["no decisions found in the sources"]
        return BuildReport(
            indexed=0, errors=errors, seconds=round(time.monotonic() - started, 2),
            index_path=str(idir.current() or ""), published=False,
            year_range=old_meta.get("year_range"), **common,
        )
    writer.commit()
    writer.wait_merging_threads()
    del writer
    count, year_range, by_type = _index_summary(index)
    _write_digests(build, digests)
    all_sources = list(dict.fromkeys([*old_meta.get("sources", []), *map(str, sources)]))
    write_meta(
        build,
        defn,
        {
            "built_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "sources": all_sources,
            "count": count,
            "year_range": year_range,
            "by_type": by_type,
            "rejected": rejected,
            "errors": errors[:50],
            "it_eli_version": __version__,
            "updated_from": base.name if base is not None else None,
        },
    )
    idir.publish(build)
    idir.cleanup(keep=2)
    if progress:
        progress(done.added + done.replaced, "done")
    return BuildReport(
        indexed=done.added + done.replaced, errors=errors, seconds=round(time.monotonic() - started, 2),
        index_path=str(build), published=True, year_range=year_range, total=count, **common,
    )


# ---------------------------------------------------------------- search

MAX_LIMIT = MAX_HITS
SNIPPET_CHARS = 240
FIELD_ALIASES = {
    "epigrafe": ["epigrafe"],
    "testo": ["testo"],
    "motivazione": ["testo"],
    "dispositivo": ["dispositivo"],
    "relatore": ["relatore"],
    "presidente": ["presidente"],
    "redattore": ["redattore"],
}


MAX_SIBLINGS = 48  # indexed forms a scoped word stands for, the most frequent first


class PartAnalyzer(Analyzer):
    """A part field's analyzer (folded, not stemmed) that matches a query word with its stem
    siblings as this index holds them: `dispositivo:manifestamente` finds "manifesta", as it did
    when each part was stemmed. The siblings are the part's terms that start like the word's stem
    and stem to the same stem; they are looked up once per word and index generation (an
    instance lives as long as the searcher it was given)."""

    def __init__(self, name: str, field: str, searcher: tantivy.Searcher, stemmer: Analyzer) -> None:
        super().__init__(name)
        self.field, self.searcher, self.stemmer = field, searcher, stemmer
        self._siblings: dict[str, list[tuple[str, float]]] = {}
        self._lock = threading.Lock()

    def weighted_variants(self, word: str, *, inflections: bool = True) -> list[tuple[str, float]]:
        own = super().weighted_variants(word, inflections=inflections)
        if not inflections or not own:  # a phrase is literal
            return own
        hit = self._siblings.get(word)
        if hit is None:
            # a sibling is worth what an inflection is: the form typed ranks first here too
            hit = own + [(t, INFLECTION_WEIGHT) for t in self._lookup(word) if t not in {o for o, _ in own}]
            with self._lock:
                if len(self._siblings) < 10_000:
                    self._siblings[word] = hit
        return hit

    def _lookup(self, word: str) -> list[str]:
        stems = set(self.stemmer.term_variants(word, inflections=False))
        prefixes = {st[: max(3, len(st) - 1)] for st in stems if len(st) >= 3}
        found: list[tuple[int, str]] = []
        for prefix in prefixes:
            for term, count in self.searcher.terms_with_prefix(self.field, prefix):
                if stems & set(self.stemmer.term_variants(term, inflections=False)):
                    found.append((count, term))
        return [t for _, t in sorted(found, reverse=True)[:MAX_SIBLINGS]]


def _open_checked(path: Path, defn) -> tuple[tantivy.Index, dict]:
    """Open a build and read its segment list, so a corrupt meta or segment shows here."""
    index, meta = open_index(path, defn)
    index.searcher().num_docs
    return index, meta


class DecisionIndex:
    """A reader over the CURRENT build; switches to a newer build atomically when one appears."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.defn = load_index_def(DEFN_NAME)
        self.idir = IndexDir(index_root(settings))
        self._lock = threading.Lock()
        self._token: str | None = None
        self._index: tantivy.Index | None = None
        self._meta: dict = {}
        self.warning: str | None = None  # set while an earlier build stands in for a corrupt one
        self._field_analyzers: dict[str, Analyzer] = {}
        self._compatible: tuple[str | None, bool] | None = None
        self._analyzers = {f.name: _analyzer(f.analyzer or self.defn.default_analyzer) for f in self.defn.text_fields}
        # snippets: every word looked up as a term of the stemmed field, whatever part it was scoped to
        self._snippet_aliases = {k: ([SNIPPET_FIELD] if set(v) <= set(PARTS) else v) for k, v in FIELD_ALIASES.items()}

    def exists(self) -> bool:
        """Something to serve: CURRENT, or a complete build to stand in for a corrupt one."""
        return self.idir.current() is not None or bool(self.idir.complete_builds())

    def compatible(self) -> bool:
        """Whether the current build was made under this schema (else searching it is refused)."""
        token = self.idir.current_token()
        if self._compatible is not None and self._compatible[0] == token:
            return self._compatible[1]
        path = self.idir.current()
        meta = read_meta(path) if path is not None else {}
        ok = meta.get("schema_version") == self.defn.version and meta.get("fingerprint") == self.defn.fingerprint
        self._compatible = (token, ok)
        return ok

    def _open(self) -> tuple[tantivy.Index, dict]:
        token = self.idir.current_token()
        with self._lock:
            if self._index is None or token != self._token:
                self._index, self._meta, self.warning = self._open_serving()
                self._token = token
                self._field_analyzers = self._analyzers_for(self._index.searcher())
            return self._index, self._meta

    def _open_serving(self) -> tuple[tantivy.Index, dict, str | None]:
        """The CURRENT build; if it cannot be read, the newest earlier complete build, with an
        `index_corrupt` warning that names the rebuild command."""
        path = self.idir.current()
        if path is None and not self.idir.has_pointer() and not self.idir.complete_builds():
            raise IndexMissing(
                "the Constitutional Court index has not been built yet",
                valid="build it with `it-eli index build` (or `it-eli index build --source FILE.zip` offline)",
                command="it-eli index build",
            )
        try:
            if path is None:
                raise IndexCorrupt(f"CURRENT in {self.idir.root} names no build on disk")
            return (*_open_checked(path, self.defn), None)
        except IndexSchemaMismatch:
            raise
        except Exception as exc:
            why = exc.message if isinstance(exc, ItEliError) else f"{type(exc).__name__}: {str(exc)[:200]}"
        for prev in self.idir.complete_builds(exclude=path):
            try:
                index, meta = _open_checked(prev, self.defn)
            except Exception:
                continue
            warning = (f"index_corrupt: the current Constitutional Court index cannot be read ({why}); serving the "
                       f"previous complete build ({prev.name}, built {meta.get('built_at')}); rebuild with "
                       "`it-eli index build`")
            log.warning(warning)
            return index, meta, warning
        raise IndexCorrupt(f"the Constitutional Court index cannot be read ({why}) and no earlier complete build is on disk",
                           valid="rebuild it with `it-eli index build`", command="it-eli index build")

    def _analyzers_for(self, searcher: tantivy.Searcher) -> dict[str, Analyzer]:
        """The query analyzers of one index generation: part fields look up stem siblings in it."""
        out = dict(self._analyzers)
        for part in PARTS:
            f = self.defn.field(part)
            if f is not None and f.analyzer and f.analyzer != self.defn.default_analyzer:
                out[part] = PartAnalyzer(f.analyzer, part, searcher, _analyzer(self.defn.default_analyzer))
        return out

    def searcher(self) -> tuple[tantivy.Index, tantivy.Searcher, dict]:
        index, meta = self._open()
        return index, index.searcher(), meta

    # -- filters
    def _filters(self, index, anno, year_from, year_to, tipologia, relatore) -> list[tantivy.Query]:
        schema = index.schema
        out = []
        this_year = dt.date.today().year
        for label, value in (("anno", anno), ("year_from", year_from), ("year_to", year_to)):
            if value is not None and not (1956 <= value <= this_year + 1):
                raise InvalidArg(
                    f"{label}={value} is outside the Court's case law",
                    valid=f"a year from 1956 (the Court's first decisions) to {this_year}",
                )
        if anno is not None:
            out.append(tantivy.Query.range_query(schema, "anno", tantivy.FieldType.Integer, anno, anno))
        if year_from is not None or year_to is not None:
            lo, hi = year_from or 1956, year_to or this_year + 1
            if lo > hi:
                raise InvalidArg(f"year_from {lo} is after year_to {hi}", valid="year_from <= year_to")
            out.append(tantivy.Query.range_query(schema, "anno", tantivy.FieldType.Integer, lo, hi))
        if tipologia:
            code = normalise_tipologia(tipologia)
            out.append(tantivy.Query.term_query(schema, "tipologia", code))
        if relatore:
            toks = self._analyzers["relatore"].analyze(relatore)
            if not toks:
                raise InvalidArg("relatore has no letters", valid="a judge's surname, e.g. 'Zagrebelsky'")
            out.extend(tantivy.Query.term_query(schema, "relatore", t) for t in toks)
        return out

    def search(
        self,
        query: str,
        *,
        anno: int | None = None,
        year_from: int | None = None,
        year_to: int | None = None,
        tipologia: str | None = None,
        relatore: str | None = None,
        window: HitWindow = HitWindow(),
    ) -> CaseSearchResult:
        """Ranked decisions of `window` (validated here), with facet counts over every match."""
        window = window.validate()
        query_notes: list[str] = []
        if isinstance(query, str) and _FILTER_IN_QUERY.search(query):
            query, anno, tipologia, query_notes = _filters_from_query(query, anno, tipologia)
        parsed = parse_query(query, citations=True)
        index, searcher, _ = self.searcher()
        filters = self._filters(index, anno, year_from, year_to, tipologia, relatore)
        ranked = ranked_search(
            searcher, index.schema, parsed, self.defn.ranking_boosts, FIELD_ALIASES, self._field_analyzers,
            window=window, filters=filters,
            tie_breaker=self.defn.tie_breaker, proximity_fields=self.defn.proximity_boosts,
            exact_fields=self.defn.exact_boosts,
        )
        # snippets: the words as terms of the stemmed field (not executed, only read by the snippet
        # generator, which then runs on the text of the parts the query may have matched)
        snippet_q = QueryCompiler(
            index.schema, {SNIPPET_FIELD: 1.0}, self._snippet_aliases, self._analyzers, conjunction=False
        ).compile(parsed.root) or ranked.query
        hits = self._hits(index, searcher, snippet_q, ranked.hits, probe=snippet_probe(parsed.root, _analyzer()),
                          phrases=phrase_probe(parsed.root, _analyzer()), parts=snippet_parts(parsed.root))
        facets = self._facets(searcher, self._with_filters(ranked.query, filters))
        notes = query_notes + list(parsed.notes)
        if self.warning:
            notes.insert(0, self.warning)
        outside = _years_outside_index(self._meta, anno, year_from, year_to)
        if outside:
            notes.append(outside)
        if ranked.relaxed:
            notes.append("ranked by relevance over any of the words: decisions with only some of them are included")
        return CaseSearchResult(
            query=query, total=ranked.count, offset=window.start, limit=window.size, hits=hits, facets=facets,
            relaxed_to_or=ranked.relaxed, notes=notes,
        )

    @staticmethod
    def _with_filters(q: tantivy.Query, filters: list[tantivy.Query]) -> tantivy.Query:
        if not filters:
            return q
        clauses = [(tantivy.Occur.Must, q)] + [(tantivy.Occur.Must, f) for f in filters]
        return tantivy.Query.boolean_query(clauses)

    def _facets(self, searcher, query) -> dict[str, list[FacetBucket]]:
        agg = searcher.aggregate(
            query,
            {"anno": {"terms": {"field": "anno", "size": 200}}, "tipologia": {"terms": {"field": "tipologia", "size": 10}}},
        )
        out = {}
        for name in ("anno", "tipologia"):
            buckets = agg.get(name, {}).get("buckets", [])
            out[name] = [FacetBucket(value=str(b["key"]), count=int(b["doc_count"])) for b in buckets]
        out["anno"].sort(key=lambda b: b.value, reverse=True)
        return out

    def _hits(
        self, index, searcher, text_q, raw_hits, probe: Probe | None = None, phrases: PhraseProbe | None = None,
        parts: tuple[str, ...] = PARTS,
    ) -> list[CaseHit]:
        if not raw_hits:
            return []
        # one generator over the stemmed field, run on each candidate part's text: the snippet
        # comes from the part that matched, cut from its original text
        gen = tantivy.SnippetGenerator.create(searcher, text_q, index.schema, SNIPPET_FIELD)
        gen.set_max_num_chars(SNIPPET_CHARS)
        gens = {p: gen for p in parts}
        an = _analyzer()
        hits = []
        for score, addr in raw_hits:
            doc = searcher.doc(addr)
            f = doc.to_dict()
            src = msgspec.msgpack.decode(f["src"][0])
            snippet, part, highlights = _best_snippet(gens, src, an, probe, phrases)
            tip = f["tipologia"][0]
            anno, numero = f["anno"][0], f["numero"][0]
            ecli = f["ecli"][0]
            hits.append(
                CaseHit(
                    ecli=ecli, citation=italian_citation(tip, numero, anno), anno=anno, numero=numero,
                    tipologia=tip, tipo=TYPE_NAMES.get(tip, tip), data_deposito=f["data_deposito"][0] or None,
                    data_decisione=f["data_decisione"][0] or None, relatore=f["relatore"][0] if f.get("relatore") else "",
                    score=round(float(score), 4), snippet=snippet, snippet_part=part, highlights=highlights,
                    source_url=public_url(ecli),
                )
            )
        return hits

    def _get_doc(self, ecli: str | None, anno: int | None, numero: int | None) -> dict:
        index, searcher, _ = self.searcher()
        if ecli:
            q = tantivy.Query.term_query(index.schema, "ecli", ecli)
        else:
            q = tantivy.Query.boolean_query([
                (tantivy.Occur.Must, tantivy.Query.range_query(index.schema, "anno", tantivy.FieldType.Integer, anno, anno)),
                (tantivy.Occur.Must, tantivy.Query.range_query(index.schema, "numero", tantivy.FieldType.Integer, numero, numero)),
            ])
        res = searcher.search(q, limit=1)
        if not res.hits:
            what = ecli or f"n. {numero}/{anno}"
            raise NotFound(
                f"no Constitutional Court decision {what} in the local index",
                valid="check the number and year with it_case_search; the index covers "
                + _coverage(self._meta),
            )
        return searcher.doc(res.hits[0][1]).to_dict()

    def get_decision(
        self,
        *,
        ecli: str | None = None,
        anno: int | str | None = None,
        numero: int | str | None = None,
    ) -> StoredDecision:
        """One decision whole, by ECLI or by anno + numero ("238/2014" as cited names both).
        Whole because paging it to an answer budget is the MCP tool's business."""
        ecli, anno, numero = validate_decision_ref(ecli, anno, numero)
        f = self._get_doc(ecli, anno, numero)
        src = msgspec.msgpack.decode(f["src"][0])
        parts = [PartText(part=p, text=src[p]) for p in ("epigrafe", "testo", "dispositivo") if src.get(p)]
        tip = f["tipologia"][0]
        a, n, e = f["anno"][0], f["numero"][0], f["ecli"][0]
        return StoredDecision(
            ecli=e, citation=italian_citation(tip, n, a), anno=a, numero=n, tipologia=tip, tipo=TYPE_NAMES.get(tip, tip),
            data_decisione=f["data_decisione"][0] or None, data_deposito=f["data_deposito"][0] or None,
            presidente=_first(f, "presidente"), relatore=_first(f, "relatore"), redattore=_first(f, "redattore"),
            collegio=src.get("collegio") or "", parts=parts, total_chars=sum(len(p.text) for p in parts),
            source_url=public_url(e),
        )

    def recent(self, limit: int = 10) -> RecentResult:
        if not (1 <= limit <= MAX_LIMIT):
            raise InvalidArg(f"limit={limit}", valid=f"an integer from 1 to {MAX_LIMIT}")
        index, searcher, _ = self.searcher()
        # newest deposit date first; decisions deposited the same day by number, highest first. The
        # search takes every decision of the last dates the page reaches, so the tie order is ours.
        res = searcher.search(tantivy.Query.all_query(), limit=limit, order_by_field="data_deposito", order=tantivy.Order.Desc)
        docs = [searcher.doc(addr).to_dict() for _, addr in res.hits]
        if docs:
            last_day = docs[-1]["data_deposito"][0]
            same_day = searcher.search(
                tantivy.Query.term_query(index.schema, "data_deposito", last_day), limit=MAX_LIMIT * 4
            )
            seen = {d["ecli"][0] for d in docs}
            docs += [f for f in (searcher.doc(a).to_dict() for _, a in same_day.hits) if f["ecli"][0] not in seen]
            docs.sort(key=lambda f: (f["data_deposito"][0], f["anno"][0], f["numero"][0]), reverse=True)
            docs = docs[:limit]
        out = []
        for f in docs:
            tip = f["tipologia"][0]
            a, n, e = f["anno"][0], f["numero"][0], f["ecli"][0]
            out.append(RecentDecision(
                ecli=e, citation=italian_citation(tip, n, a), anno=a, numero=n, tipo=TYPE_NAMES.get(tip, tip),
                data_deposito=f["data_deposito"][0] or None, relatore=_first(f, "relatore"), source_url=public_url(e),
            ))
        return RecentResult(decisions=out)

    def exists_decision(self, anno: int, numero: int) -> bool:
        try:
            self._get_doc(None, anno, numero)
            return True
        except NotFound:
            return False

    def year_numbers(self, year: int) -> list[int]:
        """The numbers of the decisions of `year` the index holds, in order (to tell a hole in the
        Court's numbering from a year the index holds whole)."""
        index, searcher, _ = self.searcher()
        q = tantivy.Query.range_query(index.schema, "anno", tantivy.FieldType.Integer, year, year)
        res = searcher.search(q, limit=5000)
        return sorted(searcher.doc(a).to_dict()["numero"][0] for _, a in res.hits)

    def index_meta(self) -> dict:
        """What the index records about itself (sources, built_at, count, year_range)."""
        return self._open()[1]

    def stats(self) -> CaseStats:
        index, searcher, meta = self.searcher()
        agg = searcher.aggregate(tantivy.Query.all_query(), {"t": {"terms": {"field": "tipologia", "size": 10}}})
        by_type = {TYPE_NAMES.get(b["key"], b["key"]): int(b["doc_count"]) for b in agg["t"]["buckets"]}
        return CaseStats(
            total=searcher.num_docs, year_range=meta.get("year_range"), by_type=by_type, built_at=meta.get("built_at"),
            sources=meta.get("sources", []), schema_version=meta.get("schema_version", 0),
            index_path=str(self.idir.current()), it_eli_version=__version__, origin=index_origin(meta),
            warnings=[self.warning] if self.warning else [],
        )


def _first(f: dict, key: str) -> str:
    v = f.get(key)
    return v[0] if v else ""


def _years_outside_index(meta: dict, anno, year_from, year_to) -> str | None:
    """A note when the years asked for lie (partly) outside what the local index holds: an empty
    answer must not read as "the Court never decided on this"."""
    yr = meta.get("year_range")
    if not yr or (anno is None and year_from is None and year_to is None):
        return None
    lo, hi = (anno, anno) if anno is not None else (year_from or 1956, year_to or dt.date.today().year)
    if lo >= yr[0] and hi <= yr[1]:
        return None
    return (f"the local index holds decisions of {yr[0]}-{yr[1]} only; years outside that range are not "
            f"searched (build the full index with `it-eli index build`)")


def _coverage(meta: dict) -> str:
    yr = meta.get("year_range")
    return f"{yr[0]}-{yr[1]}" if yr else "no years yet"


_FILTER_IN_QUERY = re.compile(r"(?<!\S)(anno|tipologia|tipo):(\S+)(?!\S)", re.I)


def _filters_from_query(query: str, anno, tipologia) -> tuple[str, int | None, str | None, list[str]]:
    """`anno:2014` and `tipologia:sentenza` written inside the query are the filters of the same
    name (clients and models write them that way); the rest of the query is searched."""
    notes: list[str] = []

    def take(m: re.Match) -> str:
        nonlocal anno, tipologia
        name, value = m.group(1).lower(), m.group(2)
        if name == "anno":
            if not value.isdigit():
                raise InvalidArg(f"anno:{value[:20]} is not a year", valid="anno:YYYY, e.g. anno:2014")
            if anno is not None and anno != int(value):
                raise InvalidArg(f"anno:{value} in the query and anno={anno} disagree", valid="one year, once")
            anno = int(value)
        else:
            if tipologia is not None and normalise_tipologia(tipologia) != normalise_tipologia(value):
                raise InvalidArg(f"{name}:{value} in the query and tipologia={tipologia} disagree", valid="one type, once")
            tipologia = value
        notes.append(f"{name}:{value} read as the {('anno' if name == 'anno' else 'tipologia')} filter")
        return " "
    rest = _FILTER_IN_QUERY.sub(take, query).strip()
    if not rest:
        raise QueryError(
            "the query has only filters and no words to search",
            valid="some words to search, with the filters as the anno / tipologia arguments (e.g. it_case_recent for the newest)",
        )
    return rest, anno, tipologia, notes


def normalise_tipologia(value: str) -> str:
    v = value.strip().lower().rstrip(".")
    table = {"s": "S", "sent": "S", "sentenza": "S", "sentenze": "S", "o": "O", "ord": "O", "ordinanza": "O", "ordinanze": "O"}
    if v not in table:
        raise InvalidArg(f"tipologia={value!r}", valid="'sentenza' (S) or 'ordinanza' (O)")
    return table[v]


def _as_int(name: str, value: int | str | None) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InvalidArg(f"{name}={value!r}", valid=f"{name} as an integer")
    if isinstance(value, int):
        return value
    s = str(value).strip()
    if not s.isdigit():
        example = {"anno": "2014", "numero": "238"}.get(name, "238")
        also = ", or number/year as cited: 238/2014" if name == "numero" else ""
        raise InvalidArg(f"{name}={value!r} is not a number", valid=f"{name} as an integer, e.g. {example}{also}")
    return int(s)


_NUMERO_ANNO_RE = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{4})\s*")


def validate_decision_ref(ecli, anno, numero) -> tuple[str | None, int | None, int | None]:
    m = _NUMERO_ANNO_RE.fullmatch(numero) if isinstance(numero, str) else None
    if m:  # "238/2014", as decisions are cited: the number and the year
        numero, year = m.group(1), int(m.group(2))
        if anno is not None and anno != "" and _as_int("anno", anno) != year:
            raise InvalidArg(f"numero says {year}, anno says {anno}", valid="the same year in both, or the year in one only")
        anno = year
    anno_i, numero_i = _as_int("anno", anno), _as_int("numero", numero)
    if ecli:
        m = _ECLI_RE.match(str(ecli).strip())
        if not m:
            raise InvalidArg(
                f"ecli={str(ecli)[:80]!r} is not a Constitutional Court ECLI",
                valid="ECLI:IT:COST:<year>:<number>, e.g. ECLI:IT:COST:2014:238",
            )
        e_anno, e_num = int(m.group(1)), int(m.group(2))
        this_year = dt.date.today().year
        if not (1956 <= e_anno <= this_year + 1) or e_num <= 0:
            raise InvalidArg(f"ecli={str(ecli)[:80]!r}: year {e_anno}, number {e_num}",
                             valid=f"a year from 1956 (the Court's first decisions) to {this_year}, a number >= 1")
        if (anno_i is not None and anno_i != e_anno) or (numero_i is not None and numero_i != e_num):
            raise InvalidArg("ecli and anno/numero disagree", valid="give the ECLI alone, or anno and numero")
        return f"ECLI:IT:COST:{e_anno}:{e_num}", None, None
    if anno_i is None or numero_i is None:
        raise InvalidArg("which decision?", valid="ecli (ECLI:IT:COST:2014:238) or both anno and numero")
    this_year = dt.date.today().year
    if not (1956 <= anno_i <= this_year + 1) or numero_i <= 0:
        raise InvalidArg(f"anno={anno_i}, numero={numero_i}", valid=f"anno from 1956 to {this_year}, numero >= 1")
    return None, anno_i, numero_i


SNIPPET_FIELD = "body"  # the stemmed field: its generator marks every stem sibling of a query word


def _snippet_doc(prepared: str) -> tantivy.Document:
    """A part's (char-filtered) text handed to the snippet generator, as the stemmed field."""
    return tantivy.Document(**{SNIPPET_FIELD: prepared})


def _full_part_snippet(gens, src: dict, an: Analyzer):
    """The slow path: every part whole (when the probe finds nothing the generator would)."""
    best = None
    for part, gen in gens.items():
        original = src.get(part) or ""
        if not original:
            continue
        sn = gen.snippet_from_doc(_snippet_doc(an.prepare(original)))
        hl = sn.highlighted()
        if hl and (best is None or len(hl) > best[0]):
            best = (len(hl), part, original, sn)
    return best


WINDOW_BEFORE, WINDOW_AFTER = 150, 450  # characters around the cluster handed to the generator (a snippet is 240)


# lower case, one byte per character (Latin-1; others become "?"), the accented vowels folded:
# the probe then searches plain folded stems, a literal alternation the regex engine scans fast
# (bytes.translate is a table lookup in C; str.translate cost more than the search it saved)
_PROBE_FOLD = bytes.maketrans("àáâäèéêëìíîïòóôöùúûü".encode("latin-1"), b"aaaaeeeeiiiioooouuuu")


def _lower_fold_table() -> bytes | None:
    """`_PROBE_FOLD` after lower-casing, as one table for Latin-1 bytes: the view of a Latin-1
    text in one C pass instead of three (str.lower over a whole part was most of the probe's time).
    None if some Latin-1 character lowers to something else than one Latin-1 character."""
    out = bytearray()
    for b in range(256):
        low = chr(b).lower()
        if len(low) != 1 or ord(low) > 255:
            return None
        out.append(_PROBE_FOLD[ord(low)])
    return bytes(out)


_LOWER_FOLD = _lower_fold_table()
_ASCII_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")  # bytes-mode \w


class Probe:
    """Where a query's (positive) words stand in a text, found by regex over the text folded.

    The snippet generator tokenizes everything it is given, so running it over a whole 40 KB
    decision for every hit and part dominated query time; the probe picks the part and a window
    around the densest cluster of matches, and the generator runs on that window only. Offsets
    found on the folded view hold on the text (same length; else the accent-tolerant pattern runs
    on the text itself).
    """

    __slots__ = ("fast", "slow", "words")

    def __init__(self, stems: set[str]) -> None:
        ordered = sorted(stems, key=len, reverse=True)
        encoded = [s.encode("latin-1", "replace") for s in ordered]
        self.fast = re.compile(rb"\b(?:" + b"|".join(re.escape(s) for s in encoded) + b")")
        self.slow = re.compile(r"\b(?:" + "|".join(_accent_tolerant(s) for s in ordered) + ")", re.I)
        # stems of ASCII word characters only (nearly always): `matches` finds them with
        # bytes.find, which gives what the fast pattern gives (see there) at a third of its cost
        self.words = tuple(encoded) if encoded and all(s and set(s) <= _ASCII_WORD for s in encoded) else None

    def view(self, text: str) -> tuple[str | bytes, re.Pattern]:
        if _LOWER_FOLD is not None:
            try:
                return text.encode("latin-1").translate(_LOWER_FOLD), self.fast
            except UnicodeEncodeError:
                pass
        lower = text.lower()
        if len(lower) != len(text):
            return text, self.slow
        return lower.encode("latin-1", "replace").translate(_PROBE_FOLD), self.fast

    def matches(self, view: str | bytes, rx: re.Pattern) -> list[tuple[int, str | bytes]]:
        """(position, word) of the matches from the first one on, within PROBE_REGION_CHARS of
        it, at most MAX_PROBE_MATCHES: the fast pattern's `finditer` from its first match.

        For stems of word characters, that pattern matches at a position where no word character
        precedes (`\\b`) the longest stem starting there, and two matches never overlap (a match is
        all word characters, so no boundary lies inside it or right after it): the same list comes
        from finding each stem with bytes.find, keeping boundary positions and the longest stem at
        each. A find bounded by the region's end, like the pattern's endpos, keeps only whole
        occurrences."""
        words = self.words
        if words is None or rx is not self.fast:
            first = rx.search(view)
            if first is None:
                return []
            return [(m.start(), m.group(0).lower()) for m in itertools.islice(
                rx.finditer(view, first.start(), first.start() + PROBE_REGION_CHARS), MAX_PROBE_MATCHES)]
        word = _ASCII_WORD
        start = -1
        for s in words:
            i = view.find(s)
            while i > 0 and view[i - 1] in word:
                i = view.find(s, i + 1)
            if i >= 0 and (start < 0 or i < start):
                start = i
        if start < 0:
            return []
        end = start + PROBE_REGION_CHARS
        at: dict[int, bytes] = {}
        for s in words:  # longest first: a position keeps the first stem found there
            i = view.find(s, start, end)
            while i >= 0:
                if (i == 0 or view[i - 1] not in word) and i not in at:
                    at[i] = s
                i = view.find(s, i + 1, end)
        return [(i, at[i]) for i in sorted(at)[:MAX_PROBE_MATCHES]]


def snippet_probe(root, an: Analyzer) -> Probe | None:
    """The probe of a query's positive words (their stems and variants), or None when it has none."""
    stems = _probe_stems(root, an)
    return Probe(stems) if stems else None


class PhraseProbe(msgspec.Struct, frozen=True):
    """Where a query's phrases stand in a text: a loose regex (the phrase's stems in order, at
    most two words between them) proposes a place, the analyzer confirms it (same terms at the
    same relative positions as the index would see them)."""

    pattern: re.Pattern
    phrases: list[list[tuple[int, frozenset[str]]]]  # per phrase: (relative position, accepted terms)

    def find(self, text: str, an: Analyzer) -> int | None:
        for m in itertools.islice(self.pattern.finditer(text), MAX_PROBE_MATCHES):
            toks = an.word_tokens(m.group(0))
            if not toks:
                continue
            got = [(p - toks[0][0], t) for p, t in toks]
            for phrase in self.phrases:
                if len(got) == len(phrase) and all(
                    gp == pp and gt in terms for (gp, gt), (pp, terms) in zip(got, phrase)
                ):
                    return m.start()
        return None


def phrase_probe(root, an: Analyzer) -> PhraseProbe | None:
    """The query's (positive) phrases, to show a phrase where it stands rather than in a part
    that only has its words apart."""
    from it_eli.law.query import And, Or, Term

    patterns: list[str] = []
    phrases: list[list[tuple[int, frozenset[str]]]] = []

    def walk(node) -> None:
        if isinstance(node, Term) and node.phrase:
            raw = an._WORD.findall(an.prepare(node.text))
            toks = an.word_tokens(node.text)
            if len(toks) < 2:
                return
            expected, alts = [], []
            for pos, tok in toks:
                variants = an.term_variants(raw[pos], inflections=False) if pos < len(raw) else [tok]
                variants = variants or [tok]
                expected.append((pos - toks[0][0], frozenset(variants)))
                alts.append("(?:" + "|".join(_accent_tolerant(v) for v in variants) + ")")
            phrases.append(expected)
            patterns.append(r"\b" + r"\w*(?:\W+\w+){0,3}?\W+".join(alts) + r"\w*")
        elif isinstance(node, (And, Or)):
            for c in node.children:
                walk(c)

    walk(root)
    if not patterns:
        return None
    return PhraseProbe(pattern=re.compile("|".join(patterns), re.I), phrases=phrases)


def snippet_parts(root) -> tuple[str, ...]:
    """The parts a snippet may come from: those its positive words were scoped to
    (`dispositivo:manifestamente` shows the dispositivo), every part when one word is unscoped."""
    from it_eli.law.query import And, Or, Term

    scoped: set[str] = set()
    unscoped = False

    def walk(node) -> None:
        nonlocal unscoped
        if isinstance(node, Term):
            fields = FIELD_ALIASES.get(node.field, []) if node.field else None
            if fields is None:
                unscoped = True
            else:
                scoped.update(f for f in fields if f in PARTS)
        elif isinstance(node, (And, Or)):
            for c in node.children:
                walk(c)

    walk(root)
    if unscoped or not scoped:
        return PARTS
    return tuple(p for p in PARTS if p in scoped)


def _probe_stems(root, an: Analyzer) -> set[str]:
    from it_eli.law.query import And, Or, Term

    stems: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, Term) and node.prefix:
            # `respons*`: the prefix as typed and the stems it was widened to start the words it found
            stems.update(prefix_forms(node.text, an))
        elif isinstance(node, Term):
            for word in an._WORD.findall(an.prepare(node.text)):
                for v in an.term_variants(word):
                    if len(v) >= 2:
                        stems.add(v)
        elif isinstance(node, (And, Or)):
            for c in node.children:
                walk(c)
        # Not: its words are not in the hits

    walk(root)
    return stems


_VOWEL_CLASSES = {"a": "[aàáâ]", "e": "[eèéê]", "i": "[iìíî]", "o": "[oòóô]", "u": "[uùúû]"}


def _accent_tolerant(stem: str) -> str:
    """A stem is folded; the text may carry the accent: 'perc' must find 'perché' and 'perche'."""
    return "".join(_VOWEL_CLASSES.get(ch, re.escape(ch)) for ch in stem)


MAX_PROBE_MATCHES = 100  # matches looked at per part when choosing the window
PROBE_REGION_CHARS = 6000  # ... within this stretch from the first match
CLUSTER_CHARS = 300  # about a snippet: the span in which distinct query words are counted


def _window(text: str, probe: Probe) -> tuple[int, int, int] | None:
    """(start, end, distinct words) of a window around the densest cluster of probe matches:
    the span of CLUSTER_CHARS holding the most distinct query words, the tightest such span
    first, so `responsabilità civile` is shown where the two words stand together, not where
    `civile` first appears."""
    view, rx = probe.view(text)
    # matches are looked for in a bounded stretch after the first one: query time stays flat on
    # 40 KB decisions, at the price of missing a denser cluster further on
    matches = probe.matches(view, rx)
    if not matches:
        return None
    best = (0, 0, matches[0][0])  # (distinct, -width, position)
    for i, (pos, _) in enumerate(matches):
        seen: set[str] = set()
        width = 0
        for later, key in itertools.takewhile(lambda m: m[0] - pos <= CLUSTER_CHARS, matches[i:]):
            if key not in seen:
                seen.add(key)
                width = later - pos
        best = max(best, (len(seen), -width, -pos))
    distinct, _, neg_pos = best
    start, end = _around(text, -neg_pos if neg_pos <= 0 else neg_pos)
    return start, end, distinct


def _around(text: str, pos: int, *, before: int = WINDOW_BEFORE, after: int = WINDOW_AFTER) -> tuple[int, int]:
    """A window from `before` characters ahead of `pos` to `after` past it, widened to whole words."""
    start = max(0, pos - before)
    end = min(len(text), pos + after)
    while start > 0 and not text[start - 1].isspace() and pos - start < before + 40:
        start -= 1
    while end < len(text) and not text[end].isspace() and end - pos < after + 40:
        end += 1
    return start, end


def _probe_snippet(text: str, probe: Probe) -> tuple[str, list[Highlight]] | None:
    """A snippet around the first probe match with every probe-matched word marked `**word**`."""
    if not text:
        return None
    view, rx = probe.view(text)
    first = rx.search(view)
    if first is None:
        return None
    start, end = _around(text, first.start(), before=60, after=SNIPPET_CHARS - 60)
    piece = text[start:end].replace("\n", " ")
    segments: list[tuple[str, str]] = []
    cursor = 0
    word_rest = rb"\w*" if isinstance(rx.pattern, bytes) else r"\w*"
    for m in re.finditer(rx.pattern + word_rest, view[start:end], rx.flags):
        segments.append((piece[cursor : m.start()], piece[m.start() : m.end()]))
        cursor = m.end()
    marked, marks = mark_words(segments, piece[cursor:])
    return marked, [Highlight(start=a, end=b) for a, b in marks]


def _best_snippet(
    gens, src: dict, an: Analyzer, probe: Probe | None = None, phrases: PhraseProbe | None = None,
) -> tuple[str, str | None, list[Highlight]]:
    """The snippet of the part that matched best, cut from the ORIGINAL text."""
    best = None
    if phrases is not None:
        # a phrase query: the part where the phrase itself stands, around its first occurrence
        for part in gens:
            original = src.get(part) or ""
            at = phrases.find(original, an) if original else None
            if at is not None:
                # narrow: the generator's best fragment must be the one holding the phrase
                start, end = _around(original, at, before=60, after=SNIPPET_CHARS)
                piece = original[start:end]
                sn = gens[part].snippet_from_doc(_snippet_doc(an.prepare(piece)))
                if sn.highlighted():
                    best = (len(sn.highlighted()), part, piece, sn)
                    break
    if best is None and probe is not None:
        windows = []
        for order, part in enumerate(gens):
            original = src.get(part) or ""
            w = _window(original, probe) if original else None
            if w is not None:
                windows.append((-w[2], order, part, original[w[0] : w[1]]))
        for _, _, part, piece in sorted(windows)[:2]:
            sn = gens[part].snippet_from_doc(_snippet_doc(an.prepare(piece)))
            if sn.highlighted():
                best = (len(sn.highlighted()), part, piece, sn)
                break
    if best is None:
        best = _full_part_snippet(gens, src, an)
    if best is None and probe is not None:
        # words the generator cannot point at (a `prefix*` word): marked where the probe finds them
        for part in gens:
            marked = _probe_snippet(src.get(part) or "", probe)
            if marked is not None:
                return marked[0], part, marked[1]
    if best is None:
        for part in ("epigrafe", "testo", "dispositivo"):
            text = src.get(part) or ""
            if text:
                cut = text[:SNIPPET_CHARS]
                return (cut + ("…" if len(text) > SNIPPET_CHARS else "")).replace("\n", " "), part, []
        return "", None, []
    _, part, original, sn = best
    text, marks = mark_snippet(original, sn)
    return text, part, [Highlight(start=a, end=b) for a, b in marks]
