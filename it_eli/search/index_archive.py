"""Pre-built index archives: build an index once, ship it verified, publish it anywhere.

An archive is one tar in a single zstd frame (content size and checksum in the frame; zstd
because a Tantivy index barely compresses and gzip's inflate made unpacking the slowest step of
first use) whose first member is `manifest.json`: the format version,
the it_eli and analyzer versions, each index's schema version and fingerprint, counts, year range,
sources, build time, and the size and sha256 of every other member. Members live under one root
per part: `decisions/` (the Constitutional Court index), and with `--with-statutes`
`statute_articles/` (the statute index) and `statute_acts/` (the kept Akoma Ntoso exports).

Import (it_eli.search.archive_import) is all-or-nothing: the archive is read as a stream, every
member is checked (a plain file, a relative name under a known root, listed in the manifest, within
the declared size) and written into a fresh build directory beside the current index while it is
hashed; only when every file matches the manifest and the index opens under this install's schema
is CURRENT swapped, exactly as a build does. Anything else raises a typed error and leaves the
current index serving. This module holds the format, its pure checks and export.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import io
import tarfile
import time
from pathlib import Path, PurePosixPath

import msgspec
import zstandard

from it_eli import __version__
from it_eli.runtime.config import Settings, is_sha256
from it_eli.runtime.errors import (
    ArchiveInvalid,
    IndexSchemaMismatch,
    InvalidArg,
)

from .analysis import analyzer_specs
from .indexdir import IndexDir
from .schema import META_FILE, load_index_def, open_index

FORMAT = "it_eli-index-archive"
FORMAT_VERSION = 1
MANIFEST_NAME = "manifest.json"
MAX_MANIFEST_BYTES = 32 * 1024 * 1024
# Bounds against archive bombs: what a full index (every decision since 1956 plus a large statute
# store) needs, with room to spare; an archive declaring or unpacking more is refused.
MAX_UNPACKED_BYTES = 16 * 1024**3
MAX_MEMBERS = 200_000
CHUNK = 1024 * 1024
FRAME_HEADER_MAX = 18  # bytes: the largest zstd frame header

DECISIONS = "decisions"
STATUTE_INDEX = "statute_articles"
STATUTE_ACTS = "statute_acts"
ROOTS = (DECISIONS, STATUTE_INDEX, STATUTE_ACTS)
# archive root -> the index definition (index_schema/<name>.toml) it must match
INDEX_ROOTS = {DECISIONS: "decisions", STATUTE_INDEX: "statute_articles"}
SKIP_FILES = {".tantivy-writer.lock", ".tantivy-meta.lock"}


# ---------------------------------------------------------------- contract

class ArchiveFile(msgspec.Struct, frozen=True):
    path: str  # archive member name, e.g. "decisions/meta.json"
    size: int
    sha256: str


class ArchivedIndex(msgspec.Struct, kw_only=True):
    root: str  # decisions | statute_articles
    schema: str
    schema_version: int
    fingerprint: str
    count: int | None = None
    year_range: list[int] | None = None
    by_type: dict[str, int] | None = None
    sources: list[str] = msgspec.field(default_factory=list)
    built_at: str | None = None


class Manifest(msgspec.Struct, kw_only=True):
    format: str
    format_version: int
    it_eli_version: str
    analyzer_version: int
    created_at: str
    indexes: list[ArchivedIndex]
    files: list[ArchiveFile]
    statute_acts: int = 0


class ExportReport(msgspec.Struct, kw_only=True):
    path: str
    sha256: str
    bytes: int
    unpacked_bytes: int
    files: int
    indexes: list[ArchivedIndex]
    seconds: float


class ImportReport(msgspec.Struct, kw_only=True):
    archive: str
    sha256: str
    indexes: list[ArchivedIndex]
    files: int
    unpacked_bytes: int
    published: list[str]
    seconds: float


# ---------------------------------------------------------------- pure checks

def analyzer_version() -> int:
    return int(analyzer_specs().get("version", 0))


def check_sha256_arg(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    value = value.strip().lower()
    if not is_sha256(value):
        raise InvalidArg(f"sha256 {value!r} is not a sha256 digest", valid="64 hexadecimal characters (sha256sum's output)")
    return value


def member_path(name: str) -> PurePosixPath:
    """The relative path a member may be written to, or ArchiveInvalid: absolute names, `..`,
    empty or `.` parts, backslashes and names outside the known roots are refused."""
    if not name or name.startswith("/") or "\\" in name or "\x00" in name:
        raise ArchiveInvalid(f"archive member {name!r} has an absolute or unusable name", valid=ARCHIVE_VALID, reason="member_name")
    path = PurePosixPath(name)
    if any(part in ("..", ".", "") for part in name.split("/")) or path.is_absolute():
        raise ArchiveInvalid(f"archive member {name!r} points outside the index directory", valid=ARCHIVE_VALID, reason="member_outside")
    if path.parts[0] not in ROOTS or len(path.parts) < 2:
        raise ArchiveInvalid(f"archive member {name!r} is not under {', '.join(ROOTS)}", valid=ARCHIVE_VALID, reason="member_outside")
    return path


def check_member_kind(member: tarfile.TarInfo) -> None:
    if member.isdir() or member.isreg():
        return
    kind = ("a symbolic link" if member.issym() else "a hard link" if member.islnk()
            else "a device file" if member.isdev() else "a FIFO" if member.isfifo() else "not a regular file")
    raise ArchiveInvalid(f"archive member {member.name!r} is {kind}", valid=ARCHIVE_VALID, reason="member_kind")


ARCHIVE_VALID = "an archive written by `it-eli index export`: regular files under decisions/, statute_articles/, statute_acts/"


def decode_manifest(data: bytes) -> Manifest:
    try:
        manifest = msgspec.json.decode(data, type=Manifest)
    except msgspec.DecodeError as exc:
        raise ArchiveInvalid(f"the archive's manifest cannot be read: {exc}", valid=ARCHIVE_VALID, reason="manifest")
    if manifest.format != FORMAT:
        raise ArchiveInvalid(f"not an it_eli index archive (format {manifest.format!r})", valid=ARCHIVE_VALID, reason="manifest")
    return manifest


def check_manifest(manifest: Manifest, *, max_unpacked_bytes: int = MAX_UNPACKED_BYTES, max_members: int = MAX_MEMBERS) -> None:
    """Everything that can be refused before a byte is unpacked: format and versions against this
    install, the file list's names, sizes and digests, and the bombs' bounds."""
    if manifest.format_version != FORMAT_VERSION:
        raise IndexSchemaMismatch(
            f"the archive is in index-archive format {manifest.format_version}; this it_eli {__version__} reads format {FORMAT_VERSION}",
            valid="an archive exported by an it_eli of the same release line, or build the index here: `it-eli index build`",
            command="it-eli index build",
        )
    if manifest.analyzer_version != analyzer_version():
        raise IndexSchemaMismatch(
            f"the archive was built with analyzer version {manifest.analyzer_version}; this it_eli {__version__} "
            f"analyzes with version {analyzer_version()} (it was exported by it_eli {manifest.it_eli_version})",
            valid="an archive exported by an it_eli with the same analyzers, or build the index here: `it-eli index build`",
            command="it-eli index build",
        )
    roots = [ix.root for ix in manifest.indexes]
    if not roots or len(set(roots)) != len(roots) or any(r not in INDEX_ROOTS for r in roots):
        raise ArchiveInvalid(f"the archive's manifest lists indexes {roots}", valid="decisions and/or statute_articles, once each", reason="manifest")
    for ix in manifest.indexes:
        defn = load_index_def(INDEX_ROOTS[ix.root])
        if ix.schema != defn.name or ix.schema_version != defn.version or ix.fingerprint != defn.fingerprint:
            raise IndexSchemaMismatch(
                f"the archive's {ix.root} index was built under schema {ix.schema} version {ix.schema_version} "
                f"({ix.fingerprint}); this it_eli {__version__} expects version {defn.version} ({defn.fingerprint})",
                valid="an archive exported by an it_eli with the same index schema, or build the index here: `it-eli index build`",
                command="it-eli index build",
            )
    if len(manifest.files) > max_members:
        raise ArchiveInvalid(f"the archive lists {len(manifest.files)} files, more than the {max_members} allowed",
                             valid=ARCHIVE_VALID, reason="too_many_members")
    total = 0
    seen: set[str] = set()
    for f in manifest.files:
        path = member_path(f.path)
        if len(path.parts) != 2 or (path.parts[0] not in roots and not (path.parts[0] == STATUTE_ACTS and STATUTE_INDEX in roots)):
            raise ArchiveInvalid(f"manifest file {f.path!r} belongs to no index of the archive", valid=ARCHIVE_VALID, reason="manifest")
        if f.path in seen or f.size < 0 or not is_sha256(f.sha256):
            raise ArchiveInvalid(f"manifest entry {f.path!r} is repeated or malformed", valid=ARCHIVE_VALID, reason="manifest")
        seen.add(f.path)
        total += f.size
    if total > max_unpacked_bytes:
        raise ArchiveInvalid(f"the archive would unpack to {total} bytes, more than the {max_unpacked_bytes} allowed",
                             valid=ARCHIVE_VALID, reason="too_large")
    for root in roots:
        if f"{root}/{META_FILE}" not in seen:
            raise ArchiveInvalid(f"the archive's {root} index has no {META_FILE}", valid=ARCHIVE_VALID, reason="manifest")


# ---------------------------------------------------------------- export

def _files_of(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and not p.is_symlink() and p.name not in SKIP_FILES)


def sha256_file(path: Path) -> tuple[int, str]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


def _archived_index(root: str, build: Path) -> ArchivedIndex:
    defn = load_index_def(INDEX_ROOTS[root])
    index, meta = open_index(build, defn)  # refuses an index of another schema: nothing stale is shipped
    count = meta.get("count")
    if count is None:
        index.reload()
        count = index.searcher().num_docs
    return ArchivedIndex(
        root=root, schema=defn.name, schema_version=defn.version, fingerprint=defn.fingerprint, count=count,
        year_range=meta.get("year_range"), by_type=meta.get("by_type"), sources=list(meta.get("sources") or []),
        built_at=meta.get("built_at") or meta.get("created_at"),
    )


def export_index(settings: Settings, dest: Path, *, with_statutes: bool = False, level: int = 3) -> ExportReport:
    """Write the current decisions index (and on request the statute store) to one archive.

    The index is held still while it is read (the build lock; the statute write lock), and the
    archive is written to `dest.part` and renamed, so a half-written archive never has its name.
    """
    from .decisions.model import index_root as decisions_root

    started = time.monotonic()
    dest = Path(dest)
    idir = IndexDir(decisions_root(settings))
    with contextlib.ExitStack() as stack:
        stack.enter_context(idir.build_lock())
        build = idir.current()
        if build is None:
            raise InvalidArg(f"there is no Constitutional Court index in {settings.home} to export",
                             valid="build one first: `it-eli index build`")
        parts: list[tuple[str, Path]] = [(DECISIONS, p) for p in _files_of(build)]
        indexes = [_archived_index(DECISIONS, build)]
        acts = 0
        if with_statutes:
            acts = _add_statutes(settings, stack, parts, indexes)
        files = []
        for root, path in parts:
            size, digest = sha256_file(path)
            files.append(ArchiveFile(path=f"{root}/{path.name}", size=size, sha256=digest))
        manifest = Manifest(
            format=FORMAT, format_version=FORMAT_VERSION, it_eli_version=__version__, analyzer_version=analyzer_version(),
            created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), indexes=indexes, files=files,
            statute_acts=acts,
        )
        manifest_bytes = msgspec.json.format(msgspec.json.encode(manifest), indent=1)
        _write_archive(dest, manifest_bytes, files, parts, level)
    size, digest = sha256_file(dest)
    return ExportReport(
        path=str(dest), sha256=digest, bytes=size, unpacked_bytes=sum(f.size for f in files), files=len(files),
        indexes=indexes, seconds=round(time.monotonic() - started, 2),
    )


def _add_statutes(settings: Settings, stack: contextlib.ExitStack, parts: list[tuple[str, Path]],
                  indexes: list[ArchivedIndex]) -> int:
    """Add the statute index and the kept acts to what is exported, the store held still by its
    write lock; the number of acts."""
    from .statutes import StatuteStore

    acts = 0
    store = StatuteStore(settings)
    stack.enter_context(store._write_lock())
    sbuild = store.idir.current()
    if sbuild is None:
        raise InvalidArg(f"there is no statute index in {settings.home} to export",
                         valid="import statutes first (`it-eli statutes import`), or export without --with-statutes")
    parts += [(STATUTE_INDEX, p) for p in _files_of(sbuild)]
    indexes.append(_archived_index(STATUTE_INDEX, sbuild))
    if store.raw_dir.is_dir():
        raw = _files_of(store.raw_dir)
        parts += [(STATUTE_ACTS, p) for p in raw]
        acts = sum(1 for p in raw if p.name.endswith(".xml.gz"))
    return acts


def _write_archive(dest: Path, manifest_bytes: bytes, files: list[ArchiveFile], parts: list[tuple[str, Path]],
                   level: int) -> None:
    """The manifest and the files as one tar in one zstd frame, written to `dest.part` and renamed."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    try:
        # the tar's exact length goes in the zstd frame header: import compares it with what
        # it unpacked, so an archive cut short anywhere is refused
        tar_size = _write_tar(_Counter(), manifest_bytes, files, [_Zeros(f.size) for f in files])
        cctx = zstandard.ZstdCompressor(level=level, write_checksum=True, write_content_size=True)
        with open(tmp, "wb") as raw, cctx.stream_writer(raw, size=tar_size, closefd=False) as zw:
            with contextlib.ExitStack() as files_open:
                sources = [files_open.enter_context(open(path, "rb")) for _, path in parts]
                _write_tar(zw, manifest_bytes, files, sources)
        tmp.replace(dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_tar(out, manifest_bytes: bytes, files: list[ArchiveFile], sources: list) -> int:
    with tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(_tarinfo(MANIFEST_NAME, len(manifest_bytes)), io.BytesIO(manifest_bytes))
        for entry, src in zip(files, sources):
            tar.addfile(_tarinfo(entry.path, entry.size), src)
    return getattr(out, "count", 0)


class _Counter:
    """A sink that only counts: the tar's length before it is written for real."""

    count = 0

    def write(self, data) -> int:
        self.count += len(data)
        return len(data)


class _Zeros:
    def __init__(self, size: int) -> None:
        self.left = size

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return bytes(n)


def _tarinfo(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mode = 0o644
    info.mtime = int(time.time())
    info.uname = info.gname = ""
    return info
