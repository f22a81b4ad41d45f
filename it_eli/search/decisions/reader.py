"""Reading the Court's index: the current build opened (an earlier complete one standing in when
it cannot be read), searched with filters and facet counts, and asked for a decision, the newest
ones, a year's numbers and its own stats. What a serving process holds.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

import msgspec
import tantivy

from it_eli import __version__
from it_eli.law.query import parse_query
from it_eli.runtime.config import Settings
from it_eli.runtime.errors import (
    IndexMissing,
    InvalidArg,
    NotFound,
)
from it_eli.search.query import MAX_HITS, HitWindow, QueryCompiler, ranked_search

from ..analysis import INFLECTION_WEIGHT, Analyzer
from ..indexdir import IndexDir
from ..schema import load_index_def, read_meta
from .arguments import FILTER_IN_QUERY, filters_from_query, normalise_tipologia, validate_decision_ref
from .model import (
    DEFN_NAME,
    FIELD_ALIASES,
    PARTS,
    TYPE_NAMES,
    CaseHit,
    CaseSearchResult,
    CaseStats,
    FacetBucket,
    PartText,
    RecentDecision,
    RecentResult,
    StoredDecision,
    index_origin,
    index_root,
    italian_citation,
    public_url,
    shared_analyzer,
)
from .snippets import (
    SNIPPET_CHARS,
    SNIPPET_FIELD,
    PhraseProbe,
    Probe,
    best_snippet,
    phrase_probe,
    snippet_parts,
    snippet_probe,
)

log = logging.getLogger(__name__)

MAX_LIMIT = MAX_HITS
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
        self._analyzers = {f.name: shared_analyzer(f.analyzer or self.defn.default_analyzer) for f in self.defn.text_fields}
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
        path, index, meta, why = self.idir.open_served(self.defn, "the Constitutional Court index",
                                                       valid="rebuild it with `it-eli index build`",
                                                       command="it-eli index build")
        if why is None:
            return index, meta, None
        warning = (f"index_corrupt: the current Constitutional Court index cannot be read ({why}); serving the "
                   f"previous complete build ({path.name}, built {meta.get('built_at')}); rebuild with "
                   "`it-eli index build`")
        log.warning(warning)
        return index, meta, warning

    def _analyzers_for(self, searcher: tantivy.Searcher) -> dict[str, Analyzer]:
        """The query analyzers of one index generation: part fields look up stem siblings in it."""
        out = dict(self._analyzers)
        for part in PARTS:
            f = self.defn.field(part)
            if f is not None and f.analyzer and f.analyzer != self.defn.default_analyzer:
                out[part] = PartAnalyzer(f.analyzer, part, searcher, shared_analyzer(self.defn.default_analyzer))
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
        if isinstance(query, str) and FILTER_IN_QUERY.search(query):
            query, anno, tipologia, query_notes = filters_from_query(query, anno, tipologia)
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
        hits = self._hits(index, searcher, snippet_q, ranked.hits, probe=snippet_probe(parsed.root, shared_analyzer()),
                          phrases=phrase_probe(parsed.root, shared_analyzer()), parts=snippet_parts(parsed.root))
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
        an = shared_analyzer()
        hits = []
        for score, addr in raw_hits:
            doc = searcher.doc(addr)
            f = doc.to_dict()
            src = msgspec.msgpack.decode(f["src"][0])
            snippet, part, highlights = best_snippet(gens, src, an, probe, phrases)
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
