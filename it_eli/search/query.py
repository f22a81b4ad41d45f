"""The parsed query (`it_eli.law.query`) compiled to Tantivy queries, never string-spliced, and
the ranked search every local index shares: hit windows, proximity, exact forms, OR fill-in.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

import msgspec
import tantivy
from unidecode import unidecode

from it_eli.law.query import MIN_PREFIX_CHARS, And, Node, Not, Or, ParsedQuery, Term
from it_eli.runtime.errors import InvalidArg, QueryError

from .analysis import Analyzer

# ranked_search defaults (issue 6, benchmarks/ranking): see RESULTS.md for what each is worth
FILL_WITH_OR = True
PROXIMITY_WEIGHT = 0.5
PROXIMITY_SLOP = 3
AND_FIRST_MAX_TERMS = 2  # longer queries: ranked by any word (+ proximity), not all-words-first
MAX_PHRASE_VARIANTS = 16  # accent variants of a phrase's words tried together, at most
TIE_BREAKER = 0.3  # a word's score = best field + tie_breaker x the other fields (an index may set its own)


PREFIX_ENDINGS = ("", "a", "e", "i", "o", "à", "è", "ì", "ò", "ù")


def prefix_forms(prefix: str, analyzer: Analyzer) -> list[str]:
    """What `prefix*` stands for in the index: the prefix itself (folded), then the stems of the
    prefix completed by a final vowel. Terms are stems, often shorter than the words they stand
    for (`responsabilità` -> `respons`): `responsabilit*` must find `respons`, `fau*` finds `faun`."""
    forms = [re.sub(r"[^0-9a-z]", "", unidecode(prefix).lower())]
    for ending in PREFIX_ENDINGS:
        stem = analyzer._analyze_word(prefix + ending)
        if stem and len(stem[0]) >= MIN_PREFIX_CHARS and stem[0].isalnum():
            forms.append(stem[0])
    return list(dict.fromkeys(forms))


def prefix_pattern(prefix: str, analyzer: Analyzer) -> str:
    """The regex over index terms for `prefix*`: any term starting with the prefix, or exactly one
    of the stems it was widened to (`prefix_forms`)."""
    p, *stems = prefix_forms(prefix, analyzer)
    return "|".join(dict.fromkeys([re.escape(p) + ".*"] + [re.escape(s) for s in stems]))


class QueryCompiler:
    """Compile a parsed query against one index's fields, analyzers and boosts."""

    def __init__(
        self,
        schema: tantivy.Schema,
        default_fields: Mapping[str, float],
        field_aliases: Mapping[str, list[str]],
        analyzers: Mapping[str, Analyzer],
        *,
        conjunction: bool = True,
        tie_breaker: float = TIE_BREAKER,
    ) -> None:
        self.schema = schema
        self.default_fields = dict(default_fields)
        self.aliases = dict(field_aliases)
        self.analyzers = analyzers
        self.conjunction = conjunction
        self.tie_breaker = tie_breaker
        self.searchable_terms = 0
        self.loosened = False  # an implicit AND of two or more words was compiled as OR

    def compile(self, node: Node) -> tantivy.Query | None:
        if isinstance(node, Term):
            return self._term(node)
        if isinstance(node, Not):
            inner = self.compile(node.child)
            if inner is None:
                return None
            return tantivy.Query.boolean_query([(tantivy.Occur.MustNot, inner), (tantivy.Occur.Should, tantivy.Query.all_query())])
        if isinstance(node, Or):
            subs = [q for q in (self.compile(c) for c in node.children) if q is not None]
            if not subs:
                return None
            return subs[0] if len(subs) == 1 else tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in subs])
        if isinstance(node, And):
            occur = tantivy.Occur.Must if (self.conjunction or node.explicit) else tantivy.Occur.Should
            clauses = []
            positives = 0
            for child in node.children:
                if isinstance(child, Not):
                    inner = self.compile(child.child)
                    if inner is not None:
                        clauses.append((tantivy.Occur.MustNot, inner))
                    continue
                q = self.compile(child)
                if q is not None:
                    clauses.append((occur, q))
                    positives += 1
            if not clauses:
                return None
            if positives == 0:
                clauses.append((tantivy.Occur.Should, tantivy.Query.all_query()))
            if occur == tantivy.Occur.Should and positives >= 2:
                self.loosened = True
            return tantivy.Query.boolean_query(clauses)
        raise TypeError(node)

    def _fields_for(self, term: Term) -> dict[str, float]:
        if term.field is None:
            return self.default_fields
        fields = self.aliases.get(term.field)
        if fields is None:
            raise QueryError(
                f"unknown field {term.field!r}",
                valid="one of: " + ", ".join(sorted(a for a in self.aliases if not a.startswith("_")))
                + " (or no field: search everywhere)",
            )
        return {f: self.default_fields.get(f, 1.0) or 1.0 for f in fields}

    def _term(self, term: Term) -> tantivy.Query | None:
        fields = self._fields_for(term)
        per_field = []
        for field, boost in fields.items():
            analyzer = self.analyzers[field]
            q = self._field_query(field, analyzer, term)
            if q is None:
                continue
            per_field.append(tantivy.Query.boost_query(q, boost) if boost != 1.0 else q)
        if not per_field:
            return None
        self.searchable_terms += 1
        if len(per_field) == 1:
            return per_field[0]
        return tantivy.Query.disjunction_max_query(per_field, self.tie_breaker)

    def _field_query(self, field: str, analyzer: Analyzer, term: Term) -> tantivy.Query | None:
        words = analyzer.word_tokens(term.text)
        if not words:
            return None
        raw_words = analyzer._WORD.findall(analyzer.prepare(term.text))

        def raw(pos: int) -> str:
            return raw_words[pos] if pos < len(raw_words) else term.text

        if term.prefix:
            # expanded over the term dictionary (stems, folded)
            q = tantivy.Query.regex_query(self.schema, field, prefix_pattern(raw(words[-1][0]), analyzer))
        elif term.fuzzy:
            q = tantivy.Query.fuzzy_term_query(self.schema, field, words[-1][1], distance=term.fuzzy)
        elif len(words) == 1:
            q = self._single_word(field, analyzer, raw(words[0][0]), words[0][1])
        else:
            q = self._phrase(field, analyzer, term, words, raw)
        return tantivy.Query.boost_query(q, term.boost) if term.boost != 1.0 else q

    def _phrase(self, field: str, analyzer: Analyzer, term: Term, words, raw) -> tantivy.Query:
        # a phrase: each word as written and in its accent variant (`"responsabilita dello Stato"`
        # finds "responsabilità dello Stato"); inflections are not tried, a phrase is literal
        base = words[0][0]
        choices = [[(p - base, t) for t in (analyzer.term_variants(raw(p), inflections=False) or [tok])]
                   for p, tok in words]
        phrases: list[list[tuple[int, str]]] = [[]]
        for options in choices:
            phrases = [ph + [opt] for ph in phrases for opt in options]
            if len(phrases) > MAX_PHRASE_VARIANTS:
                phrases = [[(p - base, t) for p, t in words]]
                break
        qs = [tantivy.Query.phrase_query(self.schema, field, ph, term.slop) for ph in phrases]
        return qs[0] if len(qs) == 1 else tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in qs])

    def _single_word(self, field: str, analyzer: Analyzer, raw_word: str, token: str) -> tantivy.Query:
        variants = analyzer.weighted_variants(raw_word) or [(token, 1.0)]
        qs = [
            tantivy.Query.term_query(self.schema, field, v) if w == 1.0
            else tantivy.Query.boost_query(tantivy.Query.term_query(self.schema, field, v), w)
            for v, w in variants
        ]
        # the best-scoring form counts, so a text using two forms is not scored twice
        return qs[0] if len(qs) == 1 else tantivy.Query.disjunction_max_query(qs, 0.0)


# ---------------------------------------------------------------- the shipped search strategy

MAX_HITS = 50  # hits in one window (the adapters' `limit`)
MAX_START = 10_000  # the deepest first hit of a window (the adapters' `offset`)


class HitWindow(msgspec.Struct, frozen=True):
    """Which hits of a ranked list to load: `size` of them from the `start`-th (0-based).

    Tantivy applies it (its limit and offset), so a deep window loads only its own hits. The
    MCP tools and the CLI, which own paging, build it from their `offset` and `limit`."""

    start: int = 0
    size: int = 10

    def validate(self, *, hint: str = "") -> "HitWindow":
        """Itself, or InvalidArg in the words of the adapters' arguments (`limit`, `offset`);
        `hint` ends the offset's `valid` (how the answer says where the next page starts)."""
        if not (1 <= self.size <= MAX_HITS):
            raise InvalidArg(f"limit={self.size}", valid=f"an integer from 1 to {MAX_HITS}")
        if not (0 <= self.start <= MAX_START):
            raise InvalidArg(f"offset={self.start}", valid=f"an integer from 0 to {MAX_START}{hint}")
        return self


class RankedSearch(msgspec.Struct, frozen=True):
    """Outcome of `ranked_search`: the window of hits as (score, DocAddress), the number of matching
    documents, the text query without filters (give it to the snippet generators) and whether
    documents lacking some of the words were added (`relaxed`: say so to the user)."""

    hits: list
    count: int
    query: object
    relaxed: bool


def proximity_query(
    parsed: ParsedQuery, schema: tantivy.Schema, default_fields: Mapping[str, float],
    analyzers: Mapping[str, Analyzer], *, slop: int = PROXIMITY_SLOP, weight: float = PROXIMITY_WEIGHT,
) -> tantivy.Query | None:
    """Should-clauses rewarding documents where consecutive plain words of the query stand close
    together (a sloppy phrase per adjacent pair, per default field): "danno ingiusto" ranks the
    article that says "danno ingiusto" above one that has the two words pages apart."""
    root = parsed.root
    terms = [root] if isinstance(root, Term) else (root.children if isinstance(root, And) else [])
    words = [t for t in terms if isinstance(t, Term) and t.field is None and not t.phrase]
    if len(words) < 2 or weight <= 0:
        return None
    clauses = []
    for field, boost in default_fields.items():
        an = analyzers[field]
        toks = [an.word_tokens(w.text) for w in words]
        toks = [t[-1][1] for t in toks if t]  # the word's (last) content token
        for a, b in zip(toks, toks[1:]):
            if a != b:
                q = tantivy.Query.phrase_query(schema, field, [(0, a), (1, b)], slop)
                clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(q, weight * boost)))
    if not clauses:
        return None
    return tantivy.Query.boolean_query(clauses)


def exact_form_query(
    parsed: ParsedQuery, schema: tantivy.Schema, exact_fields: Mapping[str, float],
    analyzers: Mapping[str, Analyzer],
) -> tantivy.Query | None:
    """Should-clauses rewarding a plain word's form as typed, in fields that hold the text
    unstemmed: the stemmed ranking field cannot tell `motociclista` from `motocicli` (one stem),
    these fields can, so the form typed ranks first (issue 13, "the form typed ranks first")."""
    clauses = []
    for node in _plain_positive_words(parsed.root):
        per_field = []
        for field, weight in exact_fields.items():
            toks = analyzers[field].word_tokens(node.text)
            if len(toks) == 1:
                q = tantivy.Query.term_query(schema, field, toks[0][1])
                per_field.append(tantivy.Query.boost_query(q, weight))
        if per_field:  # the best field counts: a word in two parts is not rewarded twice
            q = per_field[0] if len(per_field) == 1 else tantivy.Query.disjunction_max_query(per_field, 0.0)
            clauses.append((tantivy.Occur.Should, q))
    if not clauses:
        return None
    return tantivy.Query.boolean_query(clauses)


def _plain_positive_words(node: Node) -> list[Term]:
    """Unscoped single words (no phrase, prefix, fuzzy) outside any NOT."""
    if isinstance(node, Term):
        return [node] if node.field is None and not (node.phrase or node.prefix or node.fuzzy) else []
    if isinstance(node, (And, Or)):
        return [t for c in node.children for t in _plain_positive_words(c)]
    return []


def ranked_search(
    searcher: tantivy.Searcher,
    schema: tantivy.Schema,
    parsed: ParsedQuery,
    default_fields: Mapping[str, float],
    field_aliases: Mapping[str, list[str]],
    analyzers: Mapping[str, Analyzer],
    *,
    window: HitWindow = HitWindow(),
    filters: list[tantivy.Query] | tuple = (),
    fill: bool = FILL_WITH_OR,
    proximity: float = PROXIMITY_WEIGHT,
    and_first_max_terms: int = AND_FIRST_MAX_TERMS,
    tie_breaker: float = TIE_BREAKER,
    proximity_fields: Mapping[str, float] | None = None,
    exact_fields: Mapping[str, float] | None = None,
    proximity_of: ParsedQuery | None = None,
) -> RankedSearch:
    """Search the way every it_eli index does (decisions, statutes).

    1. The words are ANDed (explicit operators, phrases, fields and NOTs as written), plus a
       proximity bonus for adjacent words (`proximity_query`).
    2. A query with more than `and_first_max_terms` searchable words (a pasted rubrica or massima
       heading, a question) is ranked as a whole by BM25 over any of its words plus the proximity
       bonus: requiring every word of a long query first mostly finds documents that happen to
       share its commonest words (`relaxed` is then True).
    3. When fewer documents than a window (`window.size`, wherever it starts) have all the words and the
       query has at least two plain words, the list is filled with the documents that have only some of them (ORed, BM25
       ranks those with more of the words first), after every document that has them all
       (`fill=False`: only when none has them all, the pre-issue-6 behaviour).
    `count` counts both groups. Raises QueryError when the query has no searchable word. The
    window is not validated here (the searches do it, in their callers' words).

    `tie_breaker` combines a word's per-field scores (0: the best field only); the proximity bonus
    is computed on `proximity_fields` (field -> boost; None: the default fields). An index with a
    catch-all field (IndexDef.catch_all) passes it among the default fields and as the proximity
    field, with tie_breaker 0 (IndexDef.tie_breaker, IndexDef.proximity_boosts). `exact_fields`
    (field -> weight; IndexDef.exact_boosts) adds the bonus of `exact_form_query`.
    `proximity_of`: the query whose adjacent words earn the proximity bonus, when `parsed` is a
    rewrite of it (the thesaurus alternatives of it_eli.search.query_assist).
    """
    prox_fields = default_fields if proximity_fields is None else proximity_fields
    prox = proximity_query(proximity_of or parsed, schema, prox_fields, analyzers, weight=proximity) if proximity > 0 else None
    exact = exact_form_query(parsed, schema, exact_fields, analyzers) if exact_fields else None
    compile_ = functools.partial(_compile, parsed, schema, default_fields, field_aliases, analyzers, tie_breaker)
    scored = functools.partial(_scored, filters=filters, prox=prox, exact=exact)

    limit, offset = window.size, window.start
    qc_and = QueryCompiler(schema, default_fields, field_aliases, analyzers, conjunction=True, tie_breaker=tie_breaker)
    q_and = qc_and.compile(parsed.root)
    if q_and is None:
        compile_(True)  # raises the QueryError
    if parsed.plain_words >= 2 and qc_and.searchable_terms > and_first_max_terms:
        q_or, loosened = compile_(False)
        res = searcher.search(scored(q_or), limit=limit, offset=offset, count=True)
        return RankedSearch(hits=list(res.hits), count=res.count, query=q_or, relaxed=loosened)
    res = searcher.search(scored(q_and), limit=limit, offset=offset, count=True)
    return _filled(searcher, parsed, q_and, list(res.hits), res.count, window, fill, compile_, scored)


def _compile(parsed: ParsedQuery, schema: tantivy.Schema, default_fields: Mapping[str, float],
             field_aliases: Mapping[str, list[str]], analyzers: Mapping[str, Analyzer], tie_breaker: float,
             conjunction: bool) -> tuple[tantivy.Query, bool]:
    """The query, and whether some implicit AND was loosened into OR (else it is the AND)."""
    qc = QueryCompiler(schema, default_fields, field_aliases, analyzers, conjunction=conjunction,
                       tie_breaker=tie_breaker)
    q = qc.compile(parsed.root)
    if q is None:
        raise QueryError(
            "the query has only stopwords or no searchable words",
            valid="include at least one meaningful word (e.g. 'legittimità', 'responsabilità')",
        )
    return q, qc.loosened


def _scored(q: tantivy.Query, exclude: tantivy.Query | None = None, *, filters, prox: tantivy.Query | None,
            exact: tantivy.Query | None) -> tantivy.Query:
    """`q` under the filters, without `exclude`, with the proximity and exact-form bonuses."""
    clauses = [(tantivy.Occur.Must, q)] + [(tantivy.Occur.Must, f) for f in filters]
    if exclude is not None:
        clauses.append((tantivy.Occur.MustNot, exclude))
    if prox is not None:
        clauses.append((tantivy.Occur.Should, prox))
    if exact is not None:
        clauses.append((tantivy.Occur.Should, exact))
    return clauses[0][1] if len(clauses) == 1 else tantivy.Query.boolean_query(clauses)


def _filled(searcher: tantivy.Searcher, parsed: ParsedQuery, q_and: tantivy.Query, hits: list, count: int,
            window: HitWindow, fill: bool, compile_, scored) -> RankedSearch:
    """The hits of the AND query, followed by those of the OR query when fewer than a window
    have every word (step 3 of ranked_search)."""
    limit, offset = window.size, window.start
    # whether to fill depends on the query and the page size, never on the offset: every page of
    # one query then belongs to the same list, with the same total
    if parsed.plain_words < 2 or count >= limit or (count > 0 and not fill):
        return RankedSearch(hits=hits, count=count, query=q_and, relaxed=False)
    q_or, loosened = compile_(False)
    if not loosened:  # explicit operators only: the OR query is the AND query
        return RankedSearch(hits=hits, count=count, query=q_and, relaxed=False)
    rest = searcher.search(scored(q_or, exclude=q_and if count else None),
                           limit=limit - len(hits), offset=max(0, offset - count), count=True)
    if rest.count == 0:
        return RankedSearch(hits=hits, count=count, query=q_and, relaxed=False)
    return RankedSearch(hits=hits + list(rest.hits), count=count + rest.count, query=q_or, relaxed=True)
