"""The statute store: what a caller holds to read, search and write the local statute index.

Writing lives here: one version of an act, or one article from the OpenData API, stored in a
single commit under the write lock; the raw exports are kept (gzip) so `it-eli statutes rebuild`
can re-create the index under a new schema version.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import logging
import os
import threading
from contextlib import contextmanager

import msgspec
import tantivy

from it_eli.law.provision_status import ProvisionEvent
from it_eli.runtime.errors import InvalidArg, ItEliError
from it_eli.sources.normattiva.akn import Act, normalize_article_key, parse_act

from ..schema import create_index, write_meta
from .records import ORIGINAL, add_searchable, now_iso, version_label
from .search import StatuteSearcher

log = logging.getLogger(__name__)


class StatuteStore(StatuteSearcher):
    """Reader/writer over the statute index in IT_ELI_HOME."""

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


