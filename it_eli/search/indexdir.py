"""Versioned index directories with an atomic CURRENT pointer.

Builds write into a fresh `builds/<id>` directory; only when the build has committed is
`CURRENT` replaced (write temp file + os.replace, atomic on POSIX). A build killed at any point
leaves CURRENT naming the previous, complete index. Readers re-read CURRENT to switch over.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from collections.abc import Iterator

from it_eli.runtime.errors import IndexCorrupt, IndexSchemaMismatch, InvalidArg, ItEliError
from .schema import META_FILE, open_checked
from it_eli.runtime.locking import exclusive

_SERVING_NOTES: ContextVar[list[str] | None] = ContextVar("index_serving_notes", default=None)


@contextmanager
def collecting_serving_notes() -> Iterator[list[str]]:
    """What the indexes had to say while serving one call (an earlier build standing in for a
    corrupt one): the face puts it in that call's answer, whichever service read the index."""
    notes: list[str] = []
    token = _SERVING_NOTES.set(notes)
    try:
        yield notes
    finally:
        _SERVING_NOTES.reset(token)


def note_serving(note: str) -> None:
    """Tell the call being served (if any is collecting) how its index was read."""
    notes = _SERVING_NOTES.get()
    if notes is not None and note not in notes:
        notes.append(note)


class IndexDir:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.builds = root / "builds"

    def current(self) -> Path | None:
        """The published build CURRENT names, or None (no pointer, or one naming no build)."""
        name = self.current_token()
        if not name or "/" in name or "\\" in name or name in (".", "..") or "\x00" in name:
            return None
        path = self.builds / name
        return path if path.is_dir() else None

    def current_token(self) -> str | None:
        try:
            raw = (self.root / "CURRENT").read_bytes()
        except FileNotFoundError:
            return None
        return raw.decode("utf-8", "replace").strip() or None

    def has_pointer(self) -> bool:
        return (self.root / "CURRENT").exists()

    def open_served(self, defn, name: str, *, valid: str, command: str):
        """(path, index, meta, why): the CURRENT build, or, when it cannot be read, the newest
        earlier complete build that can, with `why` the current one could not (the store words
        its `index_corrupt` warning); IndexCorrupt naming `command` when no build can be read."""
        path = self.current()
        try:
            if path is None:
                raise IndexCorrupt(f"CURRENT in {self.root} names no build on disk")
            return (path, *open_checked(path, defn), None)
        except IndexSchemaMismatch:
            raise
        except Exception as exc:
            why = exc.message if isinstance(exc, ItEliError) else f"{type(exc).__name__}: {str(exc)[:200]}"
        for prev in self.complete_builds(exclude=path):
            try:
                return (prev, *open_checked(prev, defn), why)
            except Exception:
                continue
        raise IndexCorrupt(f"{name} cannot be read ({why}) and no earlier complete build is on disk",
                           valid=valid, command=command)

    def complete_builds(self, exclude: Path | None = None) -> list[Path]:
        """Builds that finished (their it_eli meta was written last), newest first."""
        if not self.builds.is_dir():
            return []
        done = [p for p in self.builds.iterdir() if p.is_dir() and p != exclude and (p / META_FILE).exists()]
        return sorted(done, key=lambda p: p.name, reverse=True)

    @contextmanager
    def building(self) -> Iterator[Path]:
        """A new build directory, removed again if the block fails."""
        build = self.new_build_dir()
        try:
            yield build
        except BaseException:
            self.discard(build)
            raise

    def discard(self, build: Path) -> None:
        """Remove a build that failed (disk full, error, interrupted): the disk as it was."""
        if build != self.current():
            shutil.rmtree(build, ignore_errors=True)

    def clean_orphans(self) -> list[str]:
        """At start: remove what killed builds left (unfinished build directories, CURRENT temp
        files). Skipped while another process builds (its lock is held); never touches CURRENT or
        a complete build. Returns what was removed."""
        if not self.builds.is_dir() or not os.access(self.root, os.W_OK):
            return []
        removed: list[str] = []
        try:
            with self.build_lock():
                current = self.current()
                for p in self.builds.iterdir():
                    if p.is_dir() and p != current and not (p / META_FILE).exists():
                        shutil.rmtree(p, ignore_errors=True)
                        removed.append(p.name)
                for tmp in self.root.glob("CURRENT.*.tmp"):
                    tmp.unlink(missing_ok=True)
                    removed.append(tmp.name)
        except (InvalidArg, OSError):  # a build is running, or the home is read-only
            return removed
        return removed

    def new_build_dir(self) -> Path:
        self.builds.mkdir(parents=True, exist_ok=True)
        name = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
        path = self.builds / name
        path.mkdir()
        return path

    def publish(self, build: Path) -> None:
        tmp = self.root / f"CURRENT.{uuid.uuid4().hex}.tmp"
        tmp.write_text(build.name + "\n", encoding="utf-8")
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, self.root / "CURRENT")
        dir_fd = os.open(self.root, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def cleanup(self, keep: int = 2) -> None:
        """Remove old and abandoned builds, keeping CURRENT and the newest `keep` others."""
        if not self.builds.is_dir():
            return
        current = self.current()
        # incomplete builds (killed before their meta was written) go first, so the one kept
        # besides CURRENT is the previous complete index, not a newer half-written one
        others = sorted(
            (p for p in self.builds.iterdir() if p.is_dir() and p != current),
            key=lambda p: ((p / "it_eli_meta.json").exists(), p.name),
        )
        for stale in others[: max(0, len(others) - (keep - 1))]:
            shutil.rmtree(stale, ignore_errors=True)
        for tmp in self.root.glob("CURRENT.*.tmp"):
            tmp.unlink(missing_ok=True)

    @contextmanager
    def build_lock(self) -> Iterator[None]:
        busy = InvalidArg(f"another index build is running on {self.root}", valid="wait for it to finish, then try again")
        with exclusive(self.root / "build.lock", timeout=0, busy=busy):
            yield
