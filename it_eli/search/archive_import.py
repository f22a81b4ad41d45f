"""Importing a pre-built index archive: all-or-nothing, verified while it streams in.

Apart from the archive's format and export (it_eli.search.index_archive) because this side reads
untrusted bytes: every bound and check of a member as it is unpacked lives here.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import shutil
import tarfile
import time
import uuid
from pathlib import Path

import zstandard

from it_eli.runtime.config import Settings
from it_eli.runtime.errors import (
    ArchiveInvalid,
    IndexSchemaMismatch,
    InvalidArg,
    ItEliError,
)

from .index_archive import (
    ARCHIVE_VALID,
    CHUNK,
    DECISIONS,
    FRAME_HEADER_MAX,
    INDEX_ROOTS,
    MANIFEST_NAME,
    MAX_MANIFEST_BYTES,
    MAX_MEMBERS,
    MAX_UNPACKED_BYTES,
    STATUTE_ACTS,
    STATUTE_INDEX,
    ArchiveFile,
    ImportReport,
    Manifest,
    check_manifest,
    check_member_kind,
    check_sha256_arg,
    decode_manifest,
    member_path,
    sha256_file,
)
from .indexdir import IndexDir
from .schema import META_FILE, load_index_def, open_index, read_meta


def import_archive(
    settings: Settings,
    archive: Path,
    *,
    sha256: str | None = None,
    source: str | None = None,
    max_unpacked_bytes: int = MAX_UNPACKED_BYTES,
    max_members: int = MAX_MEMBERS,
) -> ImportReport:
    """Check `archive` and publish the indexes it holds, or refuse it and change nothing.

    `source` is what provenance records as the archive's origin (its URL when downloaded).
    """
    started = time.monotonic()
    archive = Path(archive)
    expected = check_sha256_arg(sha256)
    if not archive.is_file():
        raise InvalidArg(f"archive {str(archive)!r} does not exist", valid="a file written by `it-eli index export`, or an http(s) URL")
    staged: list[Path] = []
    try:
        with contextlib.ExitStack() as stack:
            # the archive's sha256 is taken in the same pass as the unpacking (one read of a large
            # file less on first use) and checked before anything is published; when a pinned
            # digest differs, that is the error reported, whatever else went wrong
            hashed = _Hashing(stack.enter_context(open(archive, "rb")))
            try:
                manifest, targets, written, unpacked = _unpack(settings, hashed, stack, staged, max_unpacked_bytes, max_members)
                hashed.drain()
            except ItEliError:
                if expected:
                    _check_digest(sha256_file(archive)[1], expected)
                raise
            digest = hashed.hexdigest()
            _check_digest(digest, expected)
            _check_indexes_open(manifest, targets)
            origin = {
                "archive": source or str(archive.resolve()),
                "sha256": digest,
                "imported_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "exported_by": manifest.it_eli_version,
                "exported_at": manifest.created_at,
            }
            published = _publish(settings, manifest, targets, origin)
            staged.clear()
    finally:
        for path in staged:
            shutil.rmtree(path, ignore_errors=True)
    return ImportReport(
        archive=source or str(archive), sha256=digest, indexes=manifest.indexes, files=len(written),
        unpacked_bytes=unpacked, published=published, seconds=round(time.monotonic() - started, 2),
    )


def _check_digest(digest: str, expected: str | None) -> None:
    if expected and digest != expected:
        raise ArchiveInvalid(
            f"the archive's sha256 is {digest}, not the {expected} it was expected to have",
            valid="the archive the digest was published for (download it again, or check the digest)",
            reason="sha256_mismatch", sha256=digest,
        )


class _Hashing:
    """The archive file read once: hashed as it is read, its first bytes peeked at."""

    def __init__(self, fh) -> None:
        self._fh = fh
        self._sha = hashlib.sha256()
        self._pending = b""

    def peek(self, n: int) -> bytes:
        self._pending = self._fh.read(n)
        self._sha.update(self._pending)
        return self._pending

    def read(self, n: int = -1) -> bytes:
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        data = self._fh.read(n)
        self._sha.update(data)
        return data

    def drain(self) -> None:
        while self.read(CHUNK):
            pass

    def hexdigest(self) -> str:
        return self._sha.hexdigest()


class _Unpacked:
    """The tar stream out of the zstd frame, counted against the frame's declared size."""

    def __init__(self, raw: _Hashing, max_bytes: int) -> None:
        params = zstandard.get_frame_parameters(raw.peek(FRAME_HEADER_MAX))
        if params.content_size in (zstandard.CONTENTSIZE_UNKNOWN, zstandard.CONTENTSIZE_ERROR):
            raise ArchiveInvalid("the archive does not declare its unpacked size", valid=ARCHIVE_VALID, reason="manifest")
        if params.content_size > max_bytes:
            raise ArchiveInvalid(f"the archive would unpack to {params.content_size} bytes, more than the {max_bytes} allowed",
                                 valid=ARCHIVE_VALID, reason="too_large")
        self.size = params.content_size
        self.count = 0
        self._reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=False, closefd=False)
        # the manifest's header is checked before tarfile sees it: tarfile reads the first member
        # as it opens, and an extended header (pax, GNU long name) would be buffered whole
        self._pending = self._reader.read(tarfile.BLOCKSIZE)
        first = tarfile.TarInfo.frombuf(self._pending, "utf-8", "surrogateescape")
        if first.name != MANIFEST_NAME or first.type not in (tarfile.REGTYPE, tarfile.AREGTYPE) or first.size > MAX_MANIFEST_BYTES:
            raise ArchiveInvalid("the archive does not start with its manifest", valid=ARCHIVE_VALID, reason="manifest")
        self.count = len(self._pending)

    def read(self, n: int = -1) -> bytes:
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        data = self._reader.read(n if n >= 0 else CHUNK)
        self.count += len(data)
        if self.count > self.size:
            raise ArchiveInvalid("the archive unpacks to more than it declares", valid=ARCHIVE_VALID, reason="corrupt")
        return data

    def finish(self) -> None:
        while self.read(CHUNK):
            pass
        if self.count != self.size:
            raise ArchiveInvalid(
                f"the archive is truncated: it unpacks to {self.count} of the {self.size} bytes it declares",
                valid="a complete archive written by `it-eli index export` (download it again)", reason="corrupt",
            )


class _BoundedReads:
    """Stands between tarfile and its stream: every legitimate read is a 512-byte header, a small
    extended header or a member chunk of at most CHUNK bytes; a larger one is an extended header
    built to exhaust memory (tarfile reads those whole), refused."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > CHUNK:
            raise ArchiveInvalid(f"an archive header asks for {size} bytes at once", valid=ARCHIVE_VALID, reason="too_large")
        return self._stream.read(size)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _unpack(settings: Settings, raw: _Hashing, stack: contextlib.ExitStack, staged: list[Path],
            max_unpacked_bytes: int, max_members: int) -> tuple[Manifest, dict[str, Path], set[str], int]:
    """Stream the archive into fresh build directories, checking every member as it comes."""
    try:
        # bound: the largest manifest plus every file it may declare, with their tar headers
        unpacked_stream = _Unpacked(raw, max_unpacked_bytes + MAX_MANIFEST_BYTES + 4096 * (max_members + 2))
        tar = stack.enter_context(tarfile.open(fileobj=unpacked_stream, mode="r|", bufsize=CHUNK))
        tar.fileobj = _BoundedReads(tar.fileobj)
        members = iter(tar)
        first = next(members, None)
        if first is None or first.name != MANIFEST_NAME or not first.isreg() or first.size > MAX_MANIFEST_BYTES:
            raise ArchiveInvalid("the archive does not start with its manifest", valid=ARCHIVE_VALID, reason="manifest")
        manifest = decode_manifest(_read_all(tar.extractfile(first)))
        check_manifest(manifest, max_unpacked_bytes=max_unpacked_bytes, max_members=max_members)
        roots = {ix.root for ix in manifest.indexes}
        if STATUTE_INDEX in roots:
            roots.add(STATUTE_ACTS)
        targets = _stage_targets(settings, roots, stack, staged)
        expected_files = {f.path: f for f in manifest.files}
        written: set[str] = set()
        unpacked = 0
        count = 1
        for member in members:
            count += 1
            if count > max_members + 1:
                raise ArchiveInvalid(f"the archive holds more than {max_members} members", valid=ARCHIVE_VALID, reason="too_many_members")
            path = member_path(member.name)
            check_member_kind(member)
            if member.isdir():
                continue
            entry = expected_files.get(member.name)
            if entry is None or member.name in written:
                raise ArchiveInvalid(f"archive member {member.name!r} is not in the manifest (or repeated)", valid=ARCHIVE_VALID, reason="manifest")
            if path.parts[0] not in targets or len(path.parts) != 2:
                raise ArchiveInvalid(f"archive member {member.name!r} is not where its index keeps files", valid=ARCHIVE_VALID, reason="member_outside")
            _write_member(tar, member, entry, targets[path.parts[0]] / path.parts[1])
            written.add(member.name)
            unpacked += entry.size
        unpacked_stream.finish()
    except (tarfile.TarError, EOFError, zstandard.ZstdError, OSError) as exc:
        if isinstance(exc, OSError) and exc.filename:
            raise ItEliError(f"could not write the imported index: {exc}", valid="free disk space in IT_ELI_HOME and try again")
        raise ArchiveInvalid(
            f"the archive is truncated or corrupt: {type(exc).__name__}: {exc}",
            valid="a complete archive written by `it-eli index export` (download it again)", reason="corrupt",
        )
    missing = sorted(set(expected_files) - written)
    if missing:
        raise ArchiveInvalid(f"the archive lacks {len(missing)} files its manifest lists, e.g. {missing[0]!r}",
                             valid=ARCHIVE_VALID, reason="missing_member")
    return manifest, targets, written, unpacked


def _read_all(fh) -> bytes:
    out = bytearray()
    while chunk := fh.read(CHUNK):
        out += chunk
    return bytes(out)


def _stage_targets(settings: Settings, roots: set[str], stack: contextlib.ExitStack, staged: list[Path]) -> dict[str, Path]:
    """A fresh directory beside the live one for each part, with the lock its writers take."""
    from .decisions.model import index_root as decisions_root
    from .statutes import StatuteStore

    targets: dict[str, Path] = {}
    if DECISIONS in roots:
        idir = IndexDir(decisions_root(settings))
        stack.enter_context(idir.build_lock())
        targets[DECISIONS] = idir.new_build_dir()
        staged.append(targets[DECISIONS])
    if STATUTE_INDEX in roots:
        store = StatuteStore(settings)
        stack.enter_context(store._write_lock())
        targets[STATUTE_INDEX] = store.idir.new_build_dir()
        staged.append(targets[STATUTE_INDEX])
        acts = store.raw_dir.parent / f"acts.import-{uuid.uuid4().hex[:8]}"
        acts.mkdir(parents=True)
        staged.append(acts)
        targets[STATUTE_ACTS] = acts
    return targets


def _write_member(tar: tarfile.TarFile, member: tarfile.TarInfo, entry: ArchiveFile, dest: Path) -> None:
    if member.size != entry.size:
        raise ArchiveInvalid(f"archive member {member.name!r} is {member.size} bytes, its manifest says {entry.size}",
                             valid=ARCHIVE_VALID, reason="member_mismatch")
    src = tar.extractfile(member)
    h = hashlib.sha256()
    size = 0
    with open(dest, "xb") as out:
        while chunk := src.read(CHUNK):
            size += len(chunk)
            if size > entry.size:
                raise ArchiveInvalid(f"archive member {member.name!r} is longer than its manifest says", valid=ARCHIVE_VALID, reason="member_mismatch")
            h.update(chunk)
            out.write(chunk)
    if size != entry.size or h.hexdigest() != entry.sha256:
        raise ArchiveInvalid(f"archive member {member.name!r} does not match its sha256 in the manifest",
                             valid="an unaltered archive written by `it-eli index export`", reason="member_mismatch")


def _check_indexes_open(manifest: Manifest, targets: dict[str, Path]) -> None:
    for ix in manifest.indexes:
        try:
            open_index(targets[ix.root], load_index_def(INDEX_ROOTS[ix.root]))
        except IndexSchemaMismatch:
            raise
        except ItEliError as exc:
            raise ArchiveInvalid(f"the archive's {ix.root} index does not open: {exc.message}", valid=ARCHIVE_VALID, reason="index")
        except (ValueError, OSError) as exc:
            raise ArchiveInvalid(f"the archive's {ix.root} index does not open: {exc}", valid=ARCHIVE_VALID, reason="index")


def _publish(settings: Settings, manifest: Manifest, targets: dict[str, Path], origin: dict) -> list[str]:
    """Record where each index came from in its meta, then swap CURRENT as a build does."""
    from .decisions.model import index_root as decisions_root
    from .statutes import StatuteStore

    published = []
    for ix in manifest.indexes:
        build = targets[ix.root]
        meta = read_meta(build)
        meta["imported"] = origin
        tmp = build / (META_FILE + ".tmp")
        tmp.write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(build / META_FILE)
    if DECISIONS in targets:
        idir = IndexDir(decisions_root(settings))
        idir.publish(targets[DECISIONS])
        idir.cleanup(keep=2)
        published.append(DECISIONS)
    if STATUTE_INDEX in targets:
        store = StatuteStore(settings)
        store.idir.publish(targets[STATUTE_INDEX])
        store.idir.cleanup(keep=2)
        store.raw_dir.mkdir(parents=True, exist_ok=True)
        for f in sorted(targets[STATUTE_ACTS].iterdir()):
            os.replace(f, store.raw_dir / f.name)
        shutil.rmtree(targets[STATUTE_ACTS], ignore_errors=True)
        published.append(STATUTE_INDEX)
    return published
