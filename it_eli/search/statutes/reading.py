"""Reading the statute index: an act's cached versions, the one in force on a day and whether
it settles that day, an article's cached texts, an act found by URN or ELI."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import re

import msgspec
import tantivy

from it_eli.law.provision_status import ProvisionEvent
from it_eli.sources.normattiva.akn import normalize_article_key

from .index import StatuteIndex
from .records import ORIGINAL, ActVersion, StoredArticle, StoredComma, with_effect_by


def version_on(versions: list[ActVersion], day: str) -> ActVersion | None:
    """The cached version in force on `day`: the newest one starting on or before it (a version
    starting later, even a future one, is not that day's text); the original (no start date) when
    no dated version starts by then. `versions` newest first, as `StatuteStore.versions` gives."""
    for v in versions:
        if v.in_force_date is not None and v.in_force_date <= day:
            return v
    return next((v for v in versions if v.in_force_date is None), None)


class StatuteReader(StatuteIndex):
    """Lookups over the statute index: versions, articles, acts."""

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
