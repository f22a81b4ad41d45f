"""Full-text search of the statute index: each article once, in its text in force on the day
searched; the articles a query cites first; hits with a highlighted snippet and their status."""

from __future__ import annotations

from typing import Annotated

import msgspec
import tantivy
from msgspec import Meta

from it_eli.law import codes
from it_eli.law.provision_status import ProvisionEvent, ProvisionStatus, hit_status
from it_eli.law.scanner import ActRef, extract_citations
from it_eli.law.urn import parse_urn
from it_eli.runtime.errors import InvalidArg
from it_eli.sources.normattiva.akn import normalize_article_key

from ..analysis import Analyzer, mark_snippet
from ..query import HitWindow, ranked_search
from ..query_assist import EXPANSION_ALIAS, assisted_query
from .reading import StatuteReader, version_on
from .records import (
    DATASET_NOTE,
    ORIGINAL,
    StoredArticle,
    is_placeholder,
    statute_citation,
    with_effect_by,
)


class StatuteHit(msgspec.Struct, kw_only=True):
    urn: str
    article: str
    heading: str | None
    snippet: str
    eli: str | None
    in_force_date: str | None
    act_title: str | None
    human_readable_citation: str
    source_url: str
    repealed: bool
    score: float
    # whether the article is law in force on the day searched, from the export's own record
    # (repeal notices, Constitutional Court declarations, lapse); see `status_note` when not
    provision_status: ProvisionStatus = "in_force"
    status_note: str | None = None  # what took it (or part of it) out of force, by what, since when


class StatuteSearchResult(msgspec.Struct, kw_only=True):
    """Full-text hits in the local statute index (acts fetched or imported so far)."""

    query: str
    total: int
    hits: list[StatuteHit]
    acts_in_index: int
    offset: int = 0
    limit: int = 10
    next_offset: int | None = None  # pass back as offset for the next page; None: this is the last
    relaxed_to_or: bool = False
    at_date: str | None = None  # the date whose versions were searched (None: today's)
    notes: list[str] = msgspec.field(default_factory=list)
    cited_first: Annotated[int, Meta(description=(
        "How many hits at the top of the first page are the articles the query cites ('art. 52 c.p.'), "
        "given beside the page's `limit` ranked hits so that paging by the ranking loses none."))] = 0
    # What was done to the query before searching (question words dropped, typos corrected,
    # thesaurus expansions such as "scippo → furto con strappo"), so a hit can be explained.
    expanded: Annotated[list[str], Meta(description=(
        "Thesaurus expansions searched beside the words typed, weighted below them, one per term: "
        "'scippo → furto con strappo'. They explain why a hit without the typed word came."))] = \
        msgspec.field(default_factory=list)
    corrected: Annotated[list[str], Meta(description=(
        "Words no indexed article contains as typed, searched as the nearest word of the index "
        "vocabulary instead: 'stradle → stradale'. Check the correction is the word meant."))] = \
        msgspec.field(default_factory=list)
    question_words: Annotated[list[str], Meta(description=(
        "Words that frame the question, not searched as terms ('cosa rischia'), or replaced by "
        "the code's word for the notion asked about ('quanto dura → durata')."))] = msgspec.field(default_factory=list)
    dataset_note: str = DATASET_NOTE


SNIPPET_WINDOW = 20_000  # characters analysed per try: some articles are ~1 M characters
SNIPPET_WINDOWS = 3  # L. 296/2006 art. 1 took ~300 ms to highlight whole; now bounded


def _windows(text: str):
    """The first few slices of a long text, cut at whitespace, for the snippet generator."""
    start = 0
    for _ in range(SNIPPET_WINDOWS):
        if start >= len(text):
            return
        end = start + SNIPPET_WINDOW
        if end < len(text):
            cut = text.rfind(" ", start + SNIPPET_WINDOW // 2, end)
            end = cut if cut > 0 else end
        yield text[start:end]
        start = end


def expansion_fields(defn) -> list[str]:
    """Where thesaurus expansions are searched: the rubrica, the partition headings and the
    catch-all, where the names of institutes stand (one clause per word and field, so an
    expansion costs a third of the default fields; measured in benchmarks/RESULTS.md)."""
    return [f for f in ("heading", "context") if defn.field(f)] + ([defn.catch_all] if defn.catch_all else ["text"])


def _snippet(gens, src: dict, an: Analyzer) -> str:
    for part in ("text", "heading"):
        for original in _windows(src.get(part) or ""):
            out = _highlight(gens[part], part, original, an)
            if out:
                return out
    text = src.get("text") or ""
    return text[:220].replace("\n", " ") + ("…" if len(text) > 220 else "")


def _highlight(gen, part: str, original: str, an: Analyzer) -> str | None:
    sn = gen.snippet_from_doc(tantivy.Document(**{part: an.prepare(original)}))
    if not sn.highlighted():
        return None
    return mark_snippet(original, sn)[0]


class StatuteSearcher(StatuteReader):
    """Ranked search over the statute index."""

    def cited_act_urn(self, act: ActRef) -> str | None:
        """The URN the index files the act of a citation under: a code by its registry URN, a
        year-only citation completed from the acts held; None when the citation does not identify it."""
        if act.act_type == "costituzione" or act.code == "cost":
            return codes.CODES_BY_ID["cost"].urn  # the exports write it without a date
        if act.code:
            code = codes.CODES_BY_ID.get(act.code)
            return code.urn if code is not None and code.urn else None
        if not act.urn:
            return None
        try:
            parsed = parse_urn(act.urn)
        except InvalidArg:
            return None
        return parsed.act_urn() if not parsed.partial else self.find_full_urn(parsed)

    def _cited_articles(self, query: str, searcher, schema, excluded, only_urn: str | None) -> list:
        """Addresses of the articles a query cites ('art. 52 c.p.', 'l. 241/1990 art. 21-octies'),
        in the text in force that day: a lawyer who types a citation wants that article first."""
        out = []
        for c in extract_citations(query)[:5]:
            if c.kind != "statute" or c.act is None or c.article is None:
                continue
            act_urn = self.cited_act_urn(c.act)
            if act_urn is None or (only_urn and act_urn != only_urn):
                continue
            try:
                key = normalize_article_key(c.article)
            except (InvalidArg, ValueError):
                continue
            clauses = [(tantivy.Occur.Must, tantivy.Query.term_query(schema, "urn", act_urn)),
                       (tantivy.Occur.Must, tantivy.Query.term_query(schema, "article", key))]
            if excluded is not None:
                clauses.append((tantivy.Occur.MustNot, excluded))
            res = searcher.search(tantivy.Query.boolean_query(clauses), limit=1)
            if res.hits and res.hits[0][1] not in out:
                out.append(res.hits[0][1])
        return out

    def _not_in_force(self, day: str) -> tantivy.Query | None:
        """A query matching every cached text that is NOT the one in force on `day`, so a search
        sees one text per article: of whole-act exports, only the version in force that day
        (`version_on`); of single articles (OpenData API), only one whose window holds the day and
        that is newer than that version's text. Memoized until the next commit."""
        return self._memoized(("not_in_force", day), lambda: self._compute_not_in_force(day))

    def _compute_not_in_force(self, day: str) -> tantivy.Query | None:
        index, searcher = self._searcher()
        schema = index.schema
        clauses: list[tantivy.Query] = []
        chosen: dict[str, str] = {}
        for urn in self.list_acts():
            versions = self.versions(urn)
            pick = version_on(versions, day)
            if pick is not None:
                chosen[urn] = pick.version
            for v in versions:
                if pick is None or v.version != pick.version:
                    clauses.append(tantivy.Query.term_query(schema, "act_version", f"{urn}@{v.version}"))
        singles: dict[tuple[str, str], list[StoredArticle]] = {}
        q = tantivy.Query.term_query(schema, "kind", "article")
        for f in self._docs_where(searcher, index, q):
            a = self._stored(f)
            singles.setdefault((a.urn, a.article), []).append(a)
        for (urn, key), arts in singles.items():
            ok = [a for a in arts if a.in_force_date and a.in_force_date <= day
                  and (a.valid_to is None or a.valid_to >= day) and not is_placeholder(a.text)]
            best = max(ok, key=lambda a: (a.in_force_date, a.fetched_at)) if ok else None
            for a in arts:
                if a is not best:
                    clauses.append(tantivy.Query.term_query(schema, "doc_id", f"{urn}#{key}@{a.version}"))
            act_version = chosen.get(urn)
            if best is None or act_version is None:
                continue
            if act_version != ORIGINAL and act_version >= best.in_force_date:
                clauses.append(tantivy.Query.term_query(schema, "doc_id", f"{urn}#{key}@{best.version}"))
            else:  # the single article is the newer text: the export's copy gives way
                clauses.append(tantivy.Query.term_query(schema, "doc_id", f"{urn}#{key}@{act_version}"))
        if not clauses:
            return None
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, c) for c in clauses])

    def search(
        self, query: str, *, urn: str | None = None, window: HitWindow = HitWindow(), at_date: str | None = None,
    ) -> StatuteSearchResult:
        """Ranked articles of `window` (validated here); each article once, in the text in force
        today (or on `at_date`). The adapters say where the next window starts (`next_offset`)."""
        from it_eli.runtime.clock import today_iso

        window = window.validate(hint=" (pass next_offset back)")
        index, searcher = self._searcher()
        assisted = assisted_query(query, searcher, index.schema, vocab_field=self.defn.catch_all or "text",
                                  exact_field=(self.defn.exact_fields or [None])[0], an=self._an)
        parsed = assisted.parsed
        aliases, analyzers = self._fields_searched()
        day = at_date or today_iso()
        filt, excluded = self._in_force_filters(index, urn, day)

        ranked = ranked_search(
            searcher, index.schema, parsed, self.defn.boosts, aliases, analyzers, window=window, filters=filt,
            tie_breaker=self.defn.tie_breaker, proximity_fields=self.defn.proximity_boosts,
            exact_fields=self.defn.exact_boosts, proximity_of=assisted.typed,
        )
        relaxed = ranked.relaxed
        hits, first = self._page_hits(query, index, searcher, ranked, window, excluded, urn, day)
        notes = list(parsed.notes) + assisted.assist.notes()
        if first:
            notes.append("the article the query cites comes first, then the articles the words find")
        if relaxed:
            notes.append("ranked by relevance over any of the words: articles with only some of them are included")
        if at_date:
            notes.append(f"each article once, in its text in force on {at_date} among the cached versions (acts with "
                         "no cached version in force then are left out)")
        return StatuteSearchResult(
            query=query, total=ranked.count, offset=window.start, limit=window.size, hits=hits, acts_in_index=self.acts_count(),
            relaxed_to_or=relaxed, at_date=at_date, notes=notes, expanded=assisted.assist.expanded,
            corrected=assisted.assist.corrected, question_words=assisted.assist.question_words, cited_first=len(first),
        )

    def _fields_searched(self) -> tuple[dict[str, list[str]], dict[str, Analyzer]]:
        """The field names a query may use ('rubrica:', 'testo:' ...) and the analyzer of each field."""
        aliases = {"rubrica": ["heading"], "heading": ["heading"], "testo": ["text"], "text": ["text"], "titolo": ["act_title"],
                   "contesto": ["context"], "context": ["context"]}
        aliases[EXPANSION_ALIAS] = expansion_fields(self.defn)
        analyzers = {"heading": self._an, "text": self._an, "act_title": self._an, "context": self._an}
        for f in self.defn.exact_fields or ():
            analyzers[f] = self._exact_an
        if self.defn.catch_all:
            analyzers[self.defn.catch_all] = self._an
        return aliases, analyzers

    def _in_force_filters(self, index, urn: str | None, day: str) -> tuple[list[tantivy.Query], tantivy.Query | None]:
        """The search's filters (the act asked for; the texts in force on `day`) and the query of
        the texts left out (`_not_in_force`), which the cited articles are kept out of too."""
        filt = [tantivy.Query.term_query(index.schema, "urn", urn)] if urn else []
        excluded = self._not_in_force(day)
        if excluded is not None:
            filt.append(tantivy.Query.boolean_query([
                (tantivy.Occur.Must, tantivy.Query.all_query()), (tantivy.Occur.MustNot, excluded),
            ]))
        return filt, excluded

    def _page_hits(self, query: str, index, searcher, ranked, window: HitWindow, excluded, urn: str | None,
                   day: str) -> tuple[list[StatuteHit], list]:
        """The page's hits, each article once with its snippet and status on `day`; on the first
        page the articles the query cites come first (returned too, as `first`)."""
        text_q = ranked.query
        hits: list[StatuteHit] = []
        seen: set[tuple[str, str]] = set()
        gens = {p: tantivy.SnippetGenerator.create(searcher, text_q, index.schema, p) for p in ("text", "heading")}
        for g in gens.values():
            g.set_max_num_chars(220)
        # the articles the query cites head the first page, on top of the window's ranked hits (so
        # paging by the ranking loses none), and are not repeated on any page
        cited = self._cited_articles(query, searcher, index.schema, excluded, urn)
        cited_keys = {(d["urn"][0], d["article"][0]) for d in (searcher.doc(a).to_dict() for a in cited)}
        top = max((float(sc) for sc, _ in ranked.hits), default=0.0)
        first = [(top, a) for a in cited] if window.start == 0 else []
        for score, addr in first + list(ranked.hits):
            f = searcher.doc(addr).to_dict()
            key = (f["urn"][0], f["article"][0])
            if key in seen or (key in cited_keys and not (first and addr in cited)):
                continue  # shown already (the filter leaves one text per article), or cited: on top of page 1 only
            seen.add(key)
            src = msgspec.msgpack.decode(f["src"][0])
            version = f["in_force_date"][0]
            status, status_note = hit_status(
                with_effect_by(msgspec.convert(src.get("lifecycle") or [], list[ProvisionEvent]),
                               None if version == ORIGINAL else version), day,
                repealed_flag=bool(f["repealed"][0]), commi=[c["num"] for c in src.get("commi", [])])
            hits.append(StatuteHit(
                urn=key[0], article=key[1], heading=src.get("heading"), snippet=_snippet(gens, src, self._an),
                eli=src.get("eli"), in_force_date=None if version == ORIGINAL else version, act_title=src.get("act_title"),
                human_readable_citation=statute_citation(src, key[1]), source_url=src.get("source_url", ""),
                repealed=bool(f["repealed"][0]), score=round(float(score), 4),
                provision_status=status, status_note=status_note,
            ))
            if len(hits) >= window.size + len(first):
                break
        return hits, first
