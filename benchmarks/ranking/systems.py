"""The setups compared by the ranking benchmark. Each one indexes a Collection's docs and answers a
query with a ranked list of up to 100 document ids.

- it_eli setups index with the index definition of the collection's kind (index_schema/*.toml:
  fields, analyzers, boosts, catch-all field, tie-breaker, proximity fields) in a RAM Tantivy index,
  and search through `it_eli.search.query` exactly as the appliance does; the ablations switch off one
  analyzer piece (`disable`), the field boosts, the catch-all field (`catch_all=False`), or use the
  previous search strategy; `catch_all=True` adds one to an index definition that has none (the
  statute proposal in RESULTS.md).
- fts5 / fts5-or: SQLite FTS5 as the reference server configures it (one column per text field,
  `tokenize='unicode61 remove_diacritics 2'`, ORDER BY bm25(), the query's words quoted and ANDed
  — or ORed).
- bm25s: bm25s with its own tokenization, its Italian stopwords and PyStemmer's Snowball Italian
  stemmer, over all text fields concatenated.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

import tantivy

from .data import Collection

TOP = 100


class System:
    name: str = ""
    description: str = ""

    def index(self, col: Collection) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def search(self, query: str) -> list[str]:  # pragma: no cover - interface
        raise NotImplementedError


# ------------------------------------------------------------------ it_eli

@dataclass
class ItEli(System):
    name: str
    description: str
    disable: frozenset[str] = frozenset()
    flat_boosts: bool = False
    strategy: str = "shipped"  # "shipped" (it_eli.search.query.ranked_search) | "v1" (AND, OR if nothing)
    options: dict = field(default_factory=dict)  # keyword arguments for ranked_search (tuning runs)
    boost_overrides: dict = field(default_factory=dict)  # field -> boost, where the field exists
    catch_all: bool | None = None  # None: as the index definition says; False: drop it; True: add `body`
    # issue 13 (statute collections): question frames, typo correction, thesaurus, exact-form bonus
    assist: dict = field(default_factory=dict)  # keyword arguments for it_eli.search.query_assist.assisted_query
    drop_fields: frozenset[str] = frozenset()  # document fields left out of the index (ablations)
    _state: dict = field(default_factory=dict, repr=False)

    def index(self, col: Collection) -> None:
        from it_eli.search.analysis import Analyzer
        from it_eli.search.schema import build_schema, load_index_def, register_analyzers

        from it_eli.search.decisions.build import add_parts

        defn = load_index_def({"statutes": "statute_articles", "decisions": "decisions"}[col.kind])
        if self.catch_all is False:
            defn = without_catch_all(defn)
        elif self.catch_all and not defn.catch_all:
            defn = with_catch_all(defn)
        index = tantivy.Index(build_schema(defn))
        register_analyzers(index, disable=self.disable)
        analyzers: dict[str, Analyzer] = {}
        text_fields = {f.name: f for f in defn.text_fields}
        for f in defn.text_fields:
            analyzers[f.name] = Analyzer(f.analyzer or defn.default_analyzer, disable=self.disable)
        id_field = "doc_id" if col.kind == "statutes" else "ecli"
        writer = index.writer(heap_size=200_000_000, num_threads=1)
        part_analyzers = {analyzers[n].name for n in defn.parts}
        assert len(part_analyzers) == 1, "add_parts analyzes every part alike"
        part_an = analyzers[defn.parts[0]]
        from it_eli.search.statutes.records import add_searchable

        for d in col.docs:
            doc = tantivy.Document()
            doc.add_text(id_field, d.id)
            fields = {n: t for n, t in d.fields.items() if n not in self.drop_fields}
            # as the appliance does (it_eli.search.decisions.build._document, it_eli.search.statutes.add_searchable)
            if col.kind == "statutes":
                add_searchable(doc, defn, {n: t for n, t in fields.items() if n in defn.parts}, part_an)
            else:
                add_parts(doc, {n: t for n, t in fields.items() if n in defn.parts}, part_an, defn.catch_all)
            for name, text in fields.items():
                if text and name in text_fields and name not in defn.parts:
                    doc.add_text(name, analyzers[name].prepare(text))
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        present = {n for d in col.docs for n, t in d.fields.items() if t} | {defn.catch_all}
        if col.kind == "statutes":  # filled from the parts by add_searchable
            present |= set(defn.exact_fields or ())
        boosts = {n: b for n, b in defn.ranking_boosts.items() if n in present}
        if self.flat_boosts:
            boosts = {n: 1.0 for n in boosts}
        boosts.update({n: b for n, b in self.boost_overrides.items() if n in boosts})
        prox = defn.proximity_boosts
        if prox is not None and self.flat_boosts:
            prox = {n: 1.0 for n in prox}
        self._state = {
            "index": index, "searcher": index.searcher(), "boosts": boosts, "id_field": id_field,
            "analyzers": analyzers, "aliases": {n: [n] for n in text_fields} | _expansion_alias(defn),
            "ranking": {"tie_breaker": defn.tie_breaker, "proximity_fields": prox,
                        "exact_fields": {n: w for n, w in (defn.exact_boosts or {}).items() if n in present} or None},
            "assisted": col.kind == "statutes" and bool(defn.exact_fields) and self.strategy == "shipped",
            "defn": defn,
        }

    def search(self, query: str) -> list[str]:
        from it_eli.runtime.errors import ItEliError
        from it_eli.search.query import HitWindow, QueryCompiler, ranked_search
        from it_eli.law.query import parse_query

        st = self._state
        index, searcher = st["index"], st["searcher"]
        try:
            extra = {}
            if st["assisted"]:
                from it_eli.search.query_assist import assisted_query

                defn = st["defn"]
                a = assisted_query(query, searcher, index.schema, vocab_field=defn.catch_all or "text",
                                   exact_field=defn.exact_fields[0], an=st["analyzers"][defn.parts[0]], **self.assist)
                parsed, extra = a.parsed, {"proximity_of": a.typed}
            else:
                parsed = parse_query(query)
            if self.strategy == "v1":
                hits = _v1_search(index, searcher, parsed, st)
            else:
                hits = ranked_search(
                    searcher, index.schema, parsed, st["boosts"], st["aliases"], st["analyzers"], window=HitWindow(size=TOP),
                    **{**st["ranking"], **extra, **self.options},
                ).hits
        except ItEliError:
            return []
        idf = st["id_field"]
        return [searcher.doc(addr)[idf][0] for _, addr in hits]


def _expansion_alias(defn) -> dict:
    """Where the thesaurus expansions are searched, as it_eli.search.statutes.search maps it."""
    from it_eli.search.query_assist import EXPANSION_ALIAS
    from it_eli.search.statutes.search import expansion_fields

    return {EXPANSION_ALIAS: expansion_fields(defn)}


def with_catch_all(defn):
    """The index definition with a catch-all `body` field over its parts, searched beside them
    (tie_breaker 0, proximity on body): what decisions.toml v3 does."""
    import msgspec
    from it_eli.search.schema import FieldDef

    body = FieldDef(name="body", type="text", analyzer=defn.default_analyzer, stored=False, boost=1.0)
    return msgspec.structs.replace(defn, fields=[*defn.fields, body], catch_all="body", tie_breaker=0.0,
                                   proximity_fields=["body"])


def without_catch_all(defn):
    """The index definition without its catch-all field: parts only, the shared default tie-breaker
    and proximity over the default fields (decisions.toml v2)."""
    import msgspec
    from it_eli.search.query import TIE_BREAKER

    if not defn.catch_all:
        return defn
    return msgspec.structs.replace(defn, fields=[f for f in defn.fields if f.name != defn.catch_all], catch_all=None,
                                   tie_breaker=TIE_BREAKER, proximity_fields=None, rank_fields=None)


def _v1_search(index, searcher, parsed, st):
    """The strategy it_eli shipped before issue 6 (decisions.py at c80c0c0): every word required,
    and only when nothing has them all, any word."""
    from it_eli.search.query import QueryCompiler

    def run(conj: bool):
        q = QueryCompiler(index.schema, st["boosts"], st["aliases"], st["analyzers"], conjunction=conj).compile(parsed.root)
        return searcher.search(q, limit=TOP, count=True) if q is not None else None

    res = run(True)
    if res is None:
        return []
    if res.count == 0 and parsed.plain_words >= 2:
        res = run(False)
    return res.hits


# ------------------------------------------------------------------ SQLite FTS5

_WORD_CHARS = re.compile(r"\w")


@dataclass
class Fts5(System):
    name: str
    description: str
    operator: str = "AND"
    _state: dict = field(default_factory=dict, repr=False)

    def index(self, col: Collection) -> None:
        cols = sorted({n for d in col.docs for n in d.fields})
        con = sqlite3.connect(":memory:")
        con.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(doc_id UNINDEXED, "
            + ", ".join(cols) + ", tokenize='unicode61 remove_diacritics 2')"
        )
        with con:
            con.executemany(
                f"INSERT INTO docs (doc_id, {', '.join(cols)}) VALUES ({', '.join('?' * (len(cols) + 1))})",
                ((d.id, *(d.fields.get(c, "") for c in cols)) for d in col.docs),
            )
        self._state = {"con": con}

    def match_expression(self, query: str) -> str:
        """The reference's query handling: each whitespace word quoted (so no character is an
        operator), words without a letter or digit dropped, joined by AND (FTS5's implicit AND) or OR."""
        words = [w.replace('"', "").strip("“”«»") for w in query.split()]
        words = [w for w in words if _WORD_CHARS.search(w)]
        return f" {self.operator} ".join(f'"{w}"' for w in words)

    def search(self, query: str) -> list[str]:
        expr = self.match_expression(query)
        if not expr:
            return []
        try:
            rows = self._state["con"].execute(
                "SELECT doc_id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?", (expr, TOP)
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [r[0] for r in rows]


# ------------------------------------------------------------------ bm25s + Snowball

@dataclass
class Bm25s(System):
    name: str
    description: str
    _state: dict = field(default_factory=dict, repr=False)

    def index(self, col: Collection) -> None:
        import bm25s
        import Stemmer

        tok = bm25s.tokenization.Tokenizer(stemmer=Stemmer.Stemmer("italian"), stopwords="it")
        texts = [" ".join(t for t in d.fields.values() if t) for d in col.docs]
        ids = tok.tokenize(texts, return_as="ids", show_progress=False)
        retriever = bm25s.BM25()
        retriever.index(ids, show_progress=False)
        self._state = {"tok": tok, "retriever": retriever, "ids": [d.id for d in col.docs]}

    def search(self, query: str) -> list[str]:
        st = self._state
        q = st["tok"].tokenize([query], return_as="ids", update_vocab=False, show_progress=False)
        # unknown words map to the tokenizer's empty-string id (or nothing): keep the real ones
        known = [t for t in q[0] if st["tok"].get_vocab_dict().get("") != t]
        if not known:
            return []
        n = len(st["ids"])
        docs, scores = st["retriever"].retrieve([known], k=min(TOP, n), show_progress=False, n_threads=1)
        return [st["ids"][int(d)] for d, s in zip(docs[0], scores[0]) if s > 0]


def all_systems() -> list[System]:
    return [
        ItEli("it_eli", "it_eli as shipped (index_schema analyzer + boosts, it_eli.search.query.ranked_search)"),
        ItEli("it_eli-v1", "before issue 6 (c80c0c0): AND, OR only when nothing matches; dispositivo boost 1.6",
              strategy="v1", boost_overrides={"dispositivo": 1.6}, catch_all=False),
        ItEli("-stem", "it_eli without the Snowball stemmer", disable=frozenset({"stemmer"})),
        ItEli("-fold", "it_eli without ascii folding", disable=frozenset({"ascii_fold"})),
        ItEli("-accent", "it_eli without the apostrophe-accent char filter (facolta' stays facolta)",
              disable=frozenset({"apostrophe_accent"})),
        ItEli("-elision", "it_eli with a tokenizer that keeps dell'arte as one token", disable=frozenset({"elision_split"})),
        ItEli("-boosts", "it_eli with every field boost = 1", flat_boosts=True),
        ItEli("-stopwords", "it_eli without the stopword filter", disable=frozenset({"stopwords"})),
        ItEli("-catchall", "it_eli without the catch-all body field: parts only, tie-breaker 0.3 (decisions.toml v2)",
              catch_all=False),
        ItEli("+catchall", "it_eli with a catch-all body field where the index has none (the statute proposal)",
              catch_all=True),
        ItEli("-assist", "statutes: no question frames, typo correction, thesaurus nor exact-form bonus (issue 13)",
              assist={"questions": False, "typos": False, "thesaurus_on": False}, options={"exact_fields": None}),
        ItEli("-thesaurus", "statutes: it_eli without the thesaurus", assist={"thesaurus_on": False}),
        ItEli("-questions", "statutes: it_eli without dropping question frames", assist={"questions": False}),
        ItEli("-typos", "statutes: it_eli without typo correction", assist={"typos": False}),
        ItEli("-exact", "it_eli without the exact-form bonus", options={"exact_fields": None}),
        ItEli("-context", "statutes: it_eli without the partition headings (context)", drop_fields=frozenset({"context"})),
        Fts5("fts5", "SQLite FTS5 as the reference server: unicode61 remove_diacritics 2, bm25(), words ANDed"),
        Fts5("fts5-or", "the same FTS5 with the words ORed", operator="OR"),
        Bm25s("bm25s", "bm25s, Snowball Italian stemmer (PyStemmer), bm25s tokenization + Italian stopwords"),
    ]
