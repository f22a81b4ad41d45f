"""The local statute index: every act fetched or imported, article by article.

Each article is stored with its act's URN and ELI, the date its text is in force for, when it
was fetched and where from. Writes (server caching, `it-eli statutes import`) take an exclusive
file lock around a short-lived Tantivy writer, so two processes sharing IT_ELI_HOME queue up
instead of failing or corrupting; readers reload before answering and see the other's commits.
The raw exports are kept (gzip) so `it-eli statutes rebuild` can re-create the index under a
new schema version.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import logging
import os
import re
import stat
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import msgspec
from msgspec import Meta
import tantivy
from cachetools import LRUCache

from .analysis import Analyzer, mark_snippet
from it_eli.runtime.config import Settings
from it_eli.runtime.errors import InvalidArg, ItEliError
from .indexdir import IndexDir
from it_eli.law import codes
from it_eli.law.scanner.model import ActRef
from it_eli.law.scanner.scan import extract_citations
from it_eli.law.urn import parse_urn
from it_eli.runtime.locking import exclusive
from it_eli.sources.normattiva.akn import Act, normalize_article_key, parse_act
from it_eli.law.provision_status import ProvisionEvent
from it_eli.law.provision_status import ProvisionStatus, hit_status
from .query import HitWindow, ranked_search
from .query_assist import EXPANSION_ALIAS, assisted_query
from .schema import create_index, load_index_def, open_index, read_meta, write_meta

log = logging.getLogger(__name__)

DEFN_NAME = "statute_articles"
DATASET_NOTE = (
    "Testi da Normattiva (Istituto Poligrafico e Zecca dello Stato), licence CC BY 4.0 - attribution "
    "required; official texts are outside copyright (art. 5 l. 633/1941). Only the Gazzetta Ufficiale "
    "text is authentic. Single acts relayed with their source URL; not a bulk copy of Normattiva."
)
ORIGINAL = "originale"


class StoredComma(msgspec.Struct, frozen=True):
    num: str
    text: str


class StoredArticle(msgspec.Struct, kw_only=True):
    urn: str
    eli: str | None
    article: str
    num: str
    heading: str | None
    text: str
    commi: list[StoredComma]
    repealed: bool
    amended: bool
    order: int
    in_force_date: str | None  # ISO; None for the original (as published) text
    version: str  # ISO date or 'originale'
    fetched_at: str
    source_url: str
    act_title: str | None
    act_type: str | None
    act_number: str | None
    act_date: str | None
    act_year: int | None
    kind: str = "act"  # 'act' (from a whole-act export) or 'article' (OpenData API)
    valid_to: str | None = None
    original: bool = False  # the original text (URN @originale / ELI ORIGINAL), not a consolidated version
    # what the export records happened to the article (normattiva/lifecycle.py); [] for API answers
    lifecycle: list[ProvisionEvent] = msgspec.field(default_factory=list)
    text_gaps: list[str] = msgspec.field(default_factory=list)  # what the export's text lacks (akn.Article)


class ActVersion(msgspec.Struct, kw_only=True):
    urn: str
    eli: str | None
    title: str | None
    act_type: str | None
    number: str | None
    date: str | None
    year: int | None
    version: str
    in_force_date: str | None
    fetched_at: str
    source_url: str
    article_count: int
    first_article: str | None
    last_article: str | None
    keys: list[str]
    # When this version was last known to be the text in force today (a fetch without a date, or
    # an import), None when it was only ever fetched for a past date: only such a version, while
    # fresh, answers for "today".
    current_at: str | None = None
    # The latest date this version is known to be in force (the dates it was fetched for).
    known_to: str | None = None
    # A decree-law's preface note, as the export prints it: the law that converted it ("L. 17 luglio
    # 2020, n. 77"), or that it lapsed; None in documents written before it was kept (not known)
    converted_by: str | None = None
    lapsed: bool | None = None

    @property
    def original(self) -> bool:
        return self.version == ORIGINAL


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


class ImportReport(msgspec.Struct, kw_only=True):
    acts: int
    articles: int
    seconds: float
    errors: list[str]
    imported: list[str]


def index_root(settings: Settings) -> Path:
    return settings.home / "indexes" / DEFN_NAME


def version_label(in_force_date: str | None) -> str:
    return in_force_date or ORIGINAL


def version_on(versions: list[ActVersion], day: str) -> ActVersion | None:
    """The cached version in force on `day`: the newest one starting on or before it (a version
    starting later, even a future one, is not that day's text); the original (no start date) when
    no dated version starts by then. `versions` newest first, as `StatuteStore.versions` gives."""
    for v in versions:
        if v.in_force_date is not None and v.in_force_date <= day:
            return v
    return next((v for v in versions if v.in_force_date is None), None)


def with_effect_by(events: list[ProvisionEvent], version_start: str | None) -> list[ProvisionEvent]:
    """The events as read from a text in force from `version_start`: one whose date of effect
    the export does not give had effect by that day at the latest (provision_status.in_effect)."""
    if not version_start:
        return events
    return [msgspec.structs.replace(e, effect_by=version_start)
            if e.since is None and e.effect_by is None and e.kind in ("repealed", "unconstitutional") else e
            for e in events]


def is_placeholder(text: str) -> bool:
    """Normattiva's text for an article asked before it existed ("NON ANCORA ESISTENTE O VIGENTE",
    OpenData API `urn_non_ancora_vigente.json`): not a text of the article."""
    return "NON ANCORA ESISTENTE O VIGENTE" in (text or "")[:200].upper()


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _citation(src: dict, article: str | None = None) -> str:
    from it_eli.law import codes, urn as urnmod

    act_type, number, date, year = src.get("act_type"), src.get("act_number"), src.get("act_date"), src.get("act_year")
    code = codes.lookup_act(act_type, year, number) if (act_type and year and number) else None
    decree = bool(article and article.startswith("dec-"))  # an article of the decree approving a code
    if act_type == "costituzione":
        act = "Cost."
    elif code is not None and not decree:
        act = code.abbreviation
    else:
        try:
            act = urnmod.act_citation(act_type or "", date=date, year=year, number=number)
        except Exception:
            act = src.get("act_title") or src.get("urn") or "atto"
    return f"{_article_citation(article)} {act}" if article else act


def _article_citation(key: str) -> str:
    """How a key is cited: 'art. 2043', 'disp. trans. XVIII', 'art. 12 allegato II.12', 'art. 1' (dec-1)."""
    from it_eli.law.grammar import int_to_roman as _int_to_roman

    m = re.fullmatch(r"disp-trans-(\d+)", key)
    if m:
        return f"disp. trans. {_int_to_roman(int(m.group(1)))}"
    m = re.fullmatch(r"dec-(.+)", key)
    if m:
        return f"art. {m.group(1)}"
    m = re.fullmatch(r"(?P<group>[a-z][a-z0-9.]*(?:-[a-z0-9.]+)*?)-art-(?P<n>.+)", key)
    if m:
        word, _, rest = m.group("group").partition("-")
        return f"art. {m.group('n')} {word}" + (f" {rest.upper()}" if rest else "")
    return f"art. {key}"


def _memo_size(entry: tuple) -> int:
    """Approximate bytes of a memo entry (its value as msgpack, plus overhead)."""
    try:
        return 200 + len(msgspec.msgpack.encode(entry[1]))
    except (TypeError, msgspec.EncodeError):
        return 4096


class StatuteStore:
    """Reader/writer over the statute index in IT_ELI_HOME."""

    WRITE_LOCK_TIMEOUT = 120.0
    MEMO_BYTES = 32 * 1024 * 1024

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.defn = load_index_def(DEFN_NAME)
        self.idir = IndexDir(index_root(settings))
        self.raw_dir = settings.home / "statutes" / "acts"
        self._an = Analyzer()
        self._exact_an = Analyzer("it_fold")  # the exact-form field's analyzer (index_schema)
        self._lock = threading.Lock()
        self._index: tantivy.Index | None = None
        self._token: str | None = None
        # Reader cache: the searcher is reused until the index's meta.json changes (a commit by
        # this or another process rewrites it), so a cached lookup costs no reload.
        self._searcher_cache: tuple[tantivy.Searcher, tuple] | None = None
        # bounded in bytes: keys come from callers (any URN, any date), so a client asking for many
        # distinct ones must not grow it without end between two commits
        self._memo: LRUCache = LRUCache(maxsize=self.MEMO_BYTES, getsizeof=_memo_size)

    # ------------------------------------------------------------ opening
    def _ensure_created(self) -> None:
        if self.idir.current() is not None:
            return
        with self._write_lock():
            if self.idir.current() is None:
                build = self.idir.new_build_dir()
                create_index(build, self.defn)
                write_meta(build, self.defn, {"created_at": now_iso()})
                self.idir.publish(build)

    def _open(self) -> tantivy.Index:
        self._ensure_created()
        token = self.idir.current_token()
        with self._lock:
            if self._index is None or token != self._token:
                path = self.idir.current()
                self._index, _ = open_index(path, self.defn)
                self._token = token
                self._searcher_cache = None
                self._memo.clear()
            return self._index

    def _generation(self) -> tuple:
        """What changes on every commit: CURRENT's build name and that build's meta.json stat."""
        try:
            st = (self.idir.builds / (self._token or "") / "meta.json").stat()
            return (self._token, st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return (self._token, None)

    def _searcher(self) -> tuple[tantivy.Index, tantivy.Searcher]:
        index = self._open()
        gen = self._generation()
        with self._lock:
            cached = self._searcher_cache
            if cached is not None and cached[1] == gen:
                return index, cached[0]
        index.reload()
        searcher = index.searcher()
        with self._lock:
            self._searcher_cache = (searcher, gen)
            self._memo.clear()
        return index, searcher

    def _memoized(self, key: tuple, compute):
        """Per-generation memo for derived answers (versions, act counts): cleared on any commit."""
        _, searcher = self._searcher()
        with self._lock:
            hit = self._memo.get(key)
        if hit is not None and hit[0] is searcher:
            return hit[1]
        value = compute()
        with self._lock:
            try:
                self._memo[key] = (searcher, value)
            except ValueError:  # larger than the whole memo: served, not kept
                pass
        return value

    def _invalidate(self) -> None:
        with self._lock:
            self._searcher_cache = None
            self._memo.clear()

    @contextmanager
    def _write_lock(self):
        busy = ItEliError("the statute index is busy (another process is writing)", valid="retry shortly")
        with exclusive(self.idir.root / "write.lock", timeout=self.WRITE_LOCK_TIMEOUT, busy=busy):
            yield

    # ------------------------------------------------------------ writing
    def add_act(self, act: Act, *, source_url: str, raw_xml: bytes | None = None, fetched_at: str | None = None,
                current: bool = True, as_of: str | None = None) -> int:
        """Store (or replace) every article of one version of an act. Returns the article count.

        `current`: this export is the text in force today (a fetch without a date, an import);
        False for an export fetched for a past date (`as_of`), which then says nothing about
        today. What was known before about the same version (when it was current, the latest date
        it was in force) is kept.
        """
        ident = act.identity
        if not ident.urn:
            raise InvalidArg("the act has no URN:NIR in its metadata", valid="a Normattiva Akoma Ntoso export")
        fetched_at = fetched_at or now_iso()
        version = version_label(ident.version_date)
        act_version = f"{ident.urn}@{version}"
        prev = next((v for v in self.versions(ident.urn) if v.version == version), None)
        current_at = fetched_at if current else (prev.current_at if prev else None)
        known = [d for d in (as_of, prev.known_to if prev else None) if d]
        known_to = max(known) if known else None
        meta = {"fetched_at": fetched_at, "current_at": current_at, "known_to": known_to}
        if raw_xml is not None:
            self._keep_raw(ident.urn, version, raw_xml, source_url, meta)
        docs = [self._document(act, a, version, act_version, source_url, fetched_at, meta) for a in act.articles]
        self._replace("act_version", act_version, docs, heap_size=64_000_000)
        return len(docs)

    def _replace(self, field: str, value: str, docs: list[tantivy.Document], *, heap_size: int) -> None:
        """Delete the documents whose `field` is `value` and add `docs`, in one commit under the lock."""
        self._open()  # creates the index if needed: that takes the write lock itself, so not inside it
        with self._write_lock(), _committing(self._open(), heap_size) as writes:
            writes.delete(field, value)
            for d in docs:
                writes.add(d)
        self._invalidate()

    def _add_texts(self, doc: tantivy.Document, heading: str | None, text: str, act_title: str | None,
                   context: list[str] | None = None) -> None:
        """The searchable parts, char-filtered, each in its field and again in the catch-all (and,
        folded but unstemmed, in the exact-form field)."""
        add_searchable(doc, self.defn, {"heading": heading, "text": text, "act_title": act_title,
                                        "context": "\n".join(context or [])}, self._an)

    def _keep_raw(self, urn: str, version: str, raw: bytes, source_url: str, meta: dict | None = None) -> None:
        self.raw_dir.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(f"{urn}@{version}".encode()).hexdigest()[:24]
        tmp = self.raw_dir / f"{name}.{os.getpid()}.{threading.get_ident()}.tmp"  # concurrent importers
        with gzip.open(tmp, "wb") as fh:
            fh.write(raw)
        tmp.replace(self.raw_dir / f"{name}.xml.gz")
        (self.raw_dir / f"{name}.url").write_text(source_url, encoding="utf-8")
        if meta is not None:  # what `rebuild` needs to keep the version's freshness and coverage
            (self.raw_dir / f"{name}.meta.json").write_bytes(msgspec.json.encode(meta))

    def _document(self, act: Act, a, version: str, act_version: str, source_url: str, fetched_at: str,
                  meta: dict | None = None) -> tantivy.Document:
        ident = act.identity
        meta = meta or {}
        src = {
            "num": a.num, "heading": a.heading, "text": a.text,
            "commi": [{"num": c.num, "text": c.text} for c in a.commi],
            "amended": a.amended, "act_title": ident.title, "act_type": ident.act_type,
            "act_number": ident.number, "act_date": ident.date, "act_year": ident.year,
            "source_url": source_url, "eli": ident.eli, "context": a.context,
            # absent in documents written before: read as current when fetched (the old rule)
            "current_at": meta.get("current_at", fetched_at), "known_to": meta.get("known_to"),
            "lifecycle": msgspec.to_builtins(a.lifecycle), "text_gaps": list(a.text_gaps),
            # a decree-law's preface note: the law that converted it, or that it lapsed
            "converted_by": ident.lifecycle.converted_by if ident.lifecycle else None,
            "lapsed": bool(ident.lifecycle and ident.lifecycle.lapsed),
        }
        doc = tantivy.Document(
            doc_id=f"{ident.urn}#{a.key}@{version}", act_version=act_version, urn=ident.urn, eli=ident.eli or "",
            article=a.key, in_force_date=version, fetched_at=fetched_at, order=a.order, kind="act", valid_to="",
            repealed=1 if a.repealed else 0, src=msgspec.msgpack.encode(src),
        )
        self._add_texts(doc, a.heading, a.text, ident.title, a.context)
        return doc

    # ------------------------------------------------------------ reading
    def _docs_where(self, searcher, index, query, limit=100_000):
        res = searcher.search(query, limit=limit)
        return [searcher.doc(addr).to_dict() for _, addr in res.hits]

    def versions(self, urn: str, *, with_keys: bool = False) -> list[ActVersion]:
        """Every cached whole-act version of an act, newest first; memoized until the next commit."""
        return self._memoized(("versions", urn, with_keys), lambda: self._versions(urn, with_keys))

    def _versions(self, urn: str, with_keys: bool) -> list[ActVersion]:
        index, searcher = self._searcher()
        schema = index.schema
        base = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "urn", urn)),
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "kind", "act")),
        ])
        agg = searcher.aggregate(base, {"v": {"terms": {"field": "in_force_date", "size": 1000}}})
        out = []
        for bucket in agg["v"]["buckets"]:
            version, count = bucket["key"], int(bucket["doc_count"])
            vq = tantivy.Query.term_query(schema, "act_version", f"{urn}@{version}")
            first = searcher.search(vq, limit=1, order_by_field="order", order=tantivy.Order.Asc).hits
            last = searcher.search(vq, limit=1, order_by_field="order", order=tantivy.Order.Desc).hits
            f0 = searcher.doc(first[0][1]).to_dict()
            f1 = searcher.doc(last[0][1]).to_dict()
            src = msgspec.msgpack.decode(f0["src"][0])
            keys: list[str] = []
            if with_keys:
                hits = searcher.search(vq, limit=count, order_by_field="order", order=tantivy.Order.Asc).hits
                keys = [searcher.doc(a).to_dict()["article"][0] for _, a in hits]
            out.append(ActVersion(
                urn=urn, eli=src.get("eli"), title=src.get("act_title"), act_type=src.get("act_type"),
                number=src.get("act_number"), date=src.get("act_date"), year=src.get("act_year"), version=version,
                in_force_date=None if version == ORIGINAL else version, fetched_at=f0["fetched_at"][0],
                source_url=src.get("source_url", ""), article_count=count,
                first_article=f0["article"][0], last_article=f1["article"][0], keys=keys,
                current_at=src.get("current_at", f0["fetched_at"][0]), known_to=src.get("known_to"),
                converted_by=src.get("converted_by"), lapsed=src.get("lapsed"),
            ))
        out.sort(key=lambda v: ("0" if v.version == ORIGINAL else v.version), reverse=True)
        return out

    def choose_version(self, urn: str, at_date: str | None) -> ActVersion | None:
        """The cached version in force on `at_date` (None: today), see `version_on`."""
        from it_eli.runtime.clock import today_iso

        return version_on(self.versions(urn), at_date or today_iso())

    def covers(self, versions: list[ActVersion], v: ActVersion, day: str, today: str, *, now: bool = False) -> bool:
        """Whether the cached version `v` is known to be THE text of the act on `day`.

        Only then may its content (or the absence of an article from it) be relied on without
        asking Normattiva: `day` is its first day; or a day up to the latest one it was fetched for
        (`known_to`); or, for the version cached as today's text and still fresh (`current_at`
        within the TTL), any day from its start to today. `now`: the question is "today's text",
        which only freshness answers (IT_ELI_STATUTE_TTL_DAYS). A version only proves what it covers.
        """
        if not now:
            if v.in_force_date is not None and v.in_force_date == day:
                return True
            if v.in_force_date and v.known_to and v.in_force_date <= day <= v.known_to:
                return True
        current = version_on(versions, today)
        if current is None or current.version != v.version or not v.current_at or not self.is_fresh(v.current_at):
            return False
        if v.in_force_date is None:
            return day == today  # an original with no known start: only "today's text" is settled
        return v.in_force_date <= day <= today

    def article_candidates(self, urn: str, key: str) -> list[StoredArticle]:
        """Every cached text of one article (all versions, exports and single fetches), newest first."""
        index, searcher = self._searcher()
        schema = index.schema
        q = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "urn", urn)),
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "article", normalize_article_key(key))),
        ])
        res = searcher.search(q, limit=200)
        out = [self._stored(searcher.doc(addr).to_dict()) for _, addr in res.hits]
        out.sort(key=lambda a: (a.in_force_date or "0", a.kind == "act", a.fetched_at), reverse=True)
        return out

    def get_article(self, urn: str, key: str, version: str) -> StoredArticle | None:
        index, searcher = self._searcher()
        doc_id = f"{urn}#{normalize_article_key(key)}@{version}"
        res = searcher.search(tantivy.Query.term_query(index.schema, "doc_id", doc_id), limit=1)
        if not res.hits:
            return None
        return self._stored(searcher.doc(res.hits[0][1]).to_dict())

    def add_single_article(self, *, urn: str, key: str, heading: str | None, text: str, in_force_from: str | None,
                           in_force_to: str | None, repealed: bool, act_title: str | None, act_type: str | None,
                           act_number: str | None, act_date: str | None, act_year: int | None, eli: str | None,
                           source_url: str, commi: list[dict] | None = None, original: bool = False,
                           lifecycle: list[ProvisionEvent] | None = None, amended: bool | None = None) -> None:
        """Keep one article fetched through the OpenData API (its own in-force window).

        `original`: the answer to `@originale` (the first version), so a later request for the
        original text can be served locally.
        """
        version = in_force_from or ORIGINAL
        src = {
            "num": key, "heading": heading, "text": text, "commi": commi or [],
            "amended": ("((" in text) if amended is None else amended,
            "act_title": act_title, "act_type": act_type, "act_number": act_number, "act_date": act_date,
            "act_year": act_year, "source_url": source_url, "eli": eli, "original": original,
            "lifecycle": msgspec.to_builtins(lifecycle or []),
        }
        doc_id = f"{urn}#{normalize_article_key(key)}@{version}"
        doc = tantivy.Document(
            doc_id=doc_id, act_version=f"{urn}@single", urn=urn, eli=eli or "", article=normalize_article_key(key),
            in_force_date=version, fetched_at=now_iso(), order=0, kind="article", valid_to=in_force_to or "",
            repealed=1 if repealed else 0, src=msgspec.msgpack.encode(src),
        )
        self._add_texts(doc, heading, text, act_title)
        self._replace("doc_id", doc_id, [doc], heap_size=15_000_000)

    def any_eli(self, urn: str) -> str | None:
        """The ELI (without version) of an act, from any cached export of it."""
        index, searcher = self._searcher()
        q = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, tantivy.Query.term_query(index.schema, "urn", urn)),
            (tantivy.Occur.Must, tantivy.Query.term_query(index.schema, "kind", "act")),
        ])
        res = searcher.search(q, limit=1)
        if not res.hits:
            return None
        return searcher.doc(res.hits[0][1]).to_dict()["eli"][0] or None

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

    def find_full_urn(self, partial) -> str | None:
        """A year-only URN (urn:nir:stato:legge:1990;241) -> the full URN of a cached act."""
        index, searcher = self._searcher()
        head = partial.act_urn().rsplit(":", 1)[0]
        pattern = re.escape(head) + r":" + str(partial.year) + r"-\d\d-\d\d;" + re.escape(str(partial.number))
        res = searcher.search(tantivy.Query.regex_query(index.schema, "urn", pattern), limit=1)
        if not res.hits:
            return None
        return searcher.doc(res.hits[0][1]).to_dict()["urn"][0]

    def raw_xml(self, urn: str, version: str) -> bytes | None:
        name = hashlib.sha256(f"{urn}@{version}".encode()).hexdigest()[:24]
        path = self.raw_dir / f"{name}.xml.gz"
        return gzip.decompress(path.read_bytes()) if path.exists() else None

    def find_urn_by_eli(self, eli_path: str) -> str | None:
        """The URN of a cached act with this ELI (Gazzetta date + codice redazionale; the kind,
        CONSOLIDATED or ORIGINAL, and the version part are not compared: they name the same act)."""
        index, searcher = self._searcher()
        m = re.match(r"^(eli/id/\d{4}/\d{2}/\d{2}/[0-9A-Za-z]{8})", eli_path.strip("/"))
        head = m.group(1) if m else eli_path.rstrip("/")
        pattern = re.escape(head) + "(/.*)?"
        res = searcher.search(tantivy.Query.regex_query(index.schema, "eli", pattern), limit=1)
        if not res.hits:
            return None
        return searcher.doc(res.hits[0][1]).to_dict()["urn"][0]

    def articles(self, urn: str, version: str) -> list[StoredArticle]:
        index, searcher = self._searcher()
        q = tantivy.Query.term_query(index.schema, "act_version", f"{urn}@{version}")
        out = [self._stored(f) for f in self._docs_where(searcher, index, q)]
        out.sort(key=lambda a: a.order)
        return out

    def _stored(self, f: dict) -> StoredArticle:
        src = msgspec.msgpack.decode(f["src"][0])
        version = f["in_force_date"][0]
        return StoredArticle(
            urn=f["urn"][0], eli=src.get("eli"), article=f["article"][0], num=src.get("num", ""),
            heading=src.get("heading"), text=src.get("text", ""),
            commi=[StoredComma(num=c["num"], text=c["text"]) for c in src.get("commi", [])],
            repealed=bool(f["repealed"][0]), amended=bool(src.get("amended")), order=f["order"][0],
            in_force_date=None if version == ORIGINAL else version, version=version, fetched_at=f["fetched_at"][0],
            source_url=src.get("source_url", ""), act_title=src.get("act_title"), act_type=src.get("act_type"),
            act_number=src.get("act_number"), act_date=src.get("act_date"), act_year=src.get("act_year"),
            kind=f["kind"][0], valid_to=f["valid_to"][0] or None,
            original=bool(src.get("original")) or (version == ORIGINAL and f["kind"][0] == "act"),
            lifecycle=with_effect_by(msgspec.convert(src.get("lifecycle") or [], list[ProvisionEvent]),
                                     None if version == ORIGINAL else version),
            text_gaps=list(src.get("text_gaps") or []),
        )

    def is_fresh(self, fetched_at: str) -> bool:
        try:
            when = dt.datetime.fromisoformat(fetched_at)
        except ValueError:
            return False
        age = dt.datetime.now(dt.timezone.utc) - when
        return age.total_seconds() <= self.settings.statute_ttl_days * 86400

    def acts_count(self) -> int:
        return len(self.list_acts())

    def list_acts(self) -> list[str]:
        """URNs of every act with something cached (memoized until the next commit)."""
        return self._memoized(("acts",), self._list_acts)

    def _list_acts(self) -> list[str]:
        index, searcher = self._searcher()
        agg = searcher.aggregate(tantivy.Query.all_query(), {"u": {"terms": {"field": "urn", "size": 100000}}})
        return sorted(b["key"] for b in agg["u"]["buckets"])

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
        aliases = {"rubrica": ["heading"], "heading": ["heading"], "testo": ["text"], "text": ["text"], "titolo": ["act_title"],
                   "contesto": ["context"], "context": ["context"]}
        aliases[EXPANSION_ALIAS] = expansion_fields(self.defn)
        analyzers = {"heading": self._an, "text": self._an, "act_title": self._an, "context": self._an}
        for f in self.defn.exact_fields or ():
            analyzers[f] = self._exact_an
        if self.defn.catch_all:
            analyzers[self.defn.catch_all] = self._an
        day = at_date or today_iso()
        filt = [tantivy.Query.term_query(index.schema, "urn", urn)] if urn else []
        excluded = self._not_in_force(day)
        if excluded is not None:
            filt.append(tantivy.Query.boolean_query([
                (tantivy.Occur.Must, tantivy.Query.all_query()), (tantivy.Occur.MustNot, excluded),
            ]))

        ranked = ranked_search(
            searcher, index.schema, parsed, self.defn.boosts, aliases, analyzers, window=window, filters=filt,
            tie_breaker=self.defn.tie_breaker, proximity_fields=self.defn.proximity_boosts,
            exact_fields=self.defn.exact_boosts, proximity_of=assisted.typed,
        )
        text_q, relaxed = ranked.query, ranked.relaxed
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
                human_readable_citation=_citation(src, key[1]), source_url=src.get("source_url", ""),
                repealed=bool(f["repealed"][0]), score=round(float(score), 4),
                provision_status=status, status_note=status_note,
            ))
            if len(hits) >= window.size + len(first):
                break
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

    # ------------------------------------------------------------ rebuild
    def rebuild(self) -> int:
        """Re-create the index from the kept raw exports (after a schema version change).

        Built aside in a new build directory while holding the write lock, and published only
        once complete: readers keep the old index meanwhile, writers wait. Each act keeps its
        original fetch time (the raw file's mtime) so TTL freshness is unchanged. Articles that
        came one by one from the OpenData API have no raw export: they are fetched again on use.
        """
        with self._write_lock():
            build = self.idir.new_build_dir()
            index = create_index(build, self.defn)
            n = 0
            with _committing(index, 128_000_000) as writes:
                for gz in sorted(self.raw_dir.glob("*.xml.gz")):
                    url_file = gz.with_suffix("").with_suffix(".url")
                    source_url = url_file.read_text(encoding="utf-8") if url_file.exists() else ""
                    fetched_at = dt.datetime.fromtimestamp(gz.stat().st_mtime, dt.timezone.utc).isoformat(timespec="seconds")
                    meta_file = gz.with_suffix("").with_suffix(".meta.json")
                    meta = None
                    if meta_file.exists():
                        try:
                            meta = msgspec.json.decode(meta_file.read_bytes())
                            fetched_at = meta.get("fetched_at") or fetched_at
                        except (msgspec.DecodeError, OSError, AttributeError):
                            meta = None
                    try:
                        act = parse_act(gzip.decompress(gz.read_bytes()))
                    except (ItEliError, OSError, EOFError) as exc:
                        log.warning("rebuild: skipping %s: %s", gz.name, exc)
                        continue
                    if not act.identity.urn:
                        continue
                    version = version_label(act.identity.version_date)
                    act_version = f"{act.identity.urn}@{version}"
                    writes.delete("act_version", act_version)  # same version kept twice
                    for a in act.articles:
                        writes.add(self._document(act, a, version, act_version, source_url, fetched_at, meta))
                        n += 1
            write_meta(build, self.defn, {"created_at": now_iso(), "rebuilt": True})
            self.idir.publish(build)
            # keep the previous build too: another process may still be reading it
            self.idir.cleanup(keep=2)
        with self._lock:
            self._index = None
            self._token = None
            self._searcher_cache = None
            self._memo.clear()
        return n


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


class _Writes:
    """What a caller may do inside `_committing`; holds the only reference to the writer so that
    Tantivy's directory lock is released as soon as the block ends (before our file lock is)."""

    def __init__(self, writer) -> None:
        self._writer = writer

    def delete(self, field: str, value: str) -> None:
        self._writer.delete_documents_by_term(field, value)

    def add(self, doc: tantivy.Document) -> None:
        self._writer.add_document(doc)


@contextmanager
def _committing(index: tantivy.Index, heap_size: int):
    """A single-threaded writer whose work is committed (and merged) on success, rolled back on
    any failure, and released either way so the next writer can take Tantivy's lock."""
    writes = _Writes(index.writer(heap_size=heap_size, num_threads=1))
    try:
        yield writes
        writes._writer.commit()
        writes._writer.wait_merging_threads()
    except BaseException:
        writes._writer.rollback()
        raise
    finally:
        writes._writer = None


def expansion_fields(defn) -> list[str]:
    """Where thesaurus expansions are searched: the rubrica, the partition headings and the
    catch-all, where the names of institutes stand (one clause per word and field, so an
    expansion costs a third of the default fields; measured in benchmarks/RESULTS.md)."""
    return [f for f in ("heading", "context") if defn.field(f)] + ([defn.catch_all] if defn.catch_all else ["text"])


def add_searchable(doc: tantivy.Document, defn, parts: dict[str, str | None], an: Analyzer) -> None:
    """Index an article's texts as the statute index definition says: each part (char-filtered)
    in its field and again in the catch-all; the parts other than the act title also in the
    exact-form field (the benchmark builds its documents with this too)."""
    for field, value in parts.items():
        if not value or defn.field(field) is None:
            continue
        prepared = an.prepare(value)
        doc.add_text(field, prepared)
        if defn.catch_all:
            doc.add_text(defn.catch_all, prepared)
        if field != "act_title":
            for exact in defn.exact_fields or ():
                doc.add_text(exact, prepared)


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


def portal_source_url(settings: Settings, act: Act) -> str:
    """Where a person can read this act: the portal's URN resolver (with the in-force date)."""
    ident = act.identity
    base = "https://www.normattiva.it/uri-res/N2Ls?"
    urn = ident.urn or ""
    if ident.version_date:
        urn += f"!vig={ident.version_date}"
    return base + urn


def read_bounded(path: Path, limit: int) -> bytes:
    """A file read whole only once it is known to be a regular file of at most `limit` bytes (the
    largest upstream body accepted): a 2 GB sparse file or a device is refused, not read."""
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InvalidArg("not a regular file", valid="an Akoma Ntoso export (.xml) saved from Normattiva")
        if st.st_size > limit:
            raise InvalidArg(f"{st.st_size:,} bytes is more than the {limit:,} accepted (IT_ELI_MAX_BODY_BYTES)",
                             valid="an Akoma Ntoso export of one act (the largest codes are a few MB)")
        raw = fh.read(limit + 1)
    if len(raw) > limit:  # grew while being read
        raise InvalidArg(f"more than the {limit:,} bytes accepted (IT_ELI_MAX_BODY_BYTES)",
                         valid="an Akoma Ntoso export of one act")
    return raw


def import_files(settings: Settings, files: list[str]) -> ImportReport:
    """`it-eli statutes import`: load Akoma Ntoso exports (offline deployments, tests, benchmarks)."""
    store = StatuteStore(settings)
    started = time.monotonic()
    acts = articles = 0
    errors: list[str] = []
    imported: list[str] = []
    for name in files:
        path = Path(name)
        try:
            raw = read_bounded(path, settings.max_body_bytes)
        except OSError as exc:
            errors.append(f"{name}: {exc.strerror or exc}")
            continue
        except ItEliError as exc:
            errors.append(f"{name}: {exc.message} (valid: {exc.valid})")
            continue
        try:
            act = parse_act(raw, user_supplied=True)
            n = store.add_act(act, source_url=portal_source_url(settings, act), raw_xml=raw)
        except ItEliError as exc:
            errors.append(f"{name}: {exc.message}" + (f" (valid: {exc.valid})" if exc.valid else ""))
            continue
        acts += 1
        articles += n
        imported.append(f"{act.identity.urn}@{version_label(act.identity.version_date)}")
    return ImportReport(acts=acts, articles=articles, seconds=round(time.monotonic() - started, 2), errors=errors, imported=imported)
