"""Building the Court's index and bringing it up to date: the open-data decisions streamed into a
new build directory (an update starts from a hard-linked copy of the current one and adds only
what changed), published by an atomic swap. Apart from searching: a server only reads.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import msgspec
import tantivy

from it_eli import __version__
from it_eli.runtime.config import Settings
from it_eli.sources.cortecost import Decision, SourceReport, iter_source, summarize_rejections

from ..analysis import Analyzer
from ..indexdir import IndexDir
from ..schema import create_index, load_index_def, open_index, read_meta, write_meta
from .model import DEFN_NAME, PARTS, BuildReport, index_root, shared_analyzer


def _document(d: Decision) -> tantivy.Document:
    an = shared_analyzer()
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


class BuildStopped(Exception):
    """The build was asked to stop (Ctrl-C, a cancelled call): its directory is removed, nothing
    is published, the previous index keeps serving."""


def _check_stop(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise BuildStopped("the index build was stopped before it was published")


def _index_sources(writer, sources: list[Path], digests: dict[str, bytes], *, incremental: bool,
                   progress, commit_every: int, stop: threading.Event | None = None) -> _Pass:
    """Add every decision of the sources that `digests` (ecli -> digest, updated in place) does not
    already hold as it is; a decision whose digest changed replaces the indexed one."""
    out = _Pass(reports=[])
    seen: set[str] = set()
    written = 0
    for src in sources:
        report = SourceReport(source=str(src))
        out.reports.append(report)
        for d in iter_source(src, report):
            _check_stop(stop)
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
    stop: threading.Event | None = None,
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
            return _build(idir, build, [Path(s) for s in sources], base, progress, heap_bytes, threads, commit_every,
                          stop)


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
           threads: int, commit_every: int, stop: threading.Event | None = None) -> BuildReport:
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
                          commit_every=commit_every, stop=stop)
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
    write_meta(build, defn, {
        "built_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "sources": all_sources,
        "count": count,
        "year_range": year_range,
        "by_type": by_type,
        "rejected": rejected,
        "errors": errors[:50],
        "it_eli_version": __version__,
        "updated_from": base.name if base is not None else None,
    })
    _check_stop(stop)  # a stop asked during the last commit still publishes nothing
    idir.publish(build)
    idir.cleanup(keep=2)
    if progress:
        progress(done.added + done.replaced, "done")
    return BuildReport(
        indexed=done.added + done.replaced, errors=errors, seconds=round(time.monotonic() - started, 2),
        index_path=str(build), published=True, year_range=year_range, total=count, **common,
    )
