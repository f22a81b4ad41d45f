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
from pathlib import Path
from collections.abc import Iterator

from .errors import InvalidArg
from .locking import exclusive


class IndexDir:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.builds = root / "builds"

    def current(self) -> Path | None:
        try:
            name = (self.root / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        path = self.builds / name
        return path if name and path.is_dir() else None

    def current_token(self) -> str | None:
        try:
            return (self.root / "CURRENT").read_text(encoding="utf-8").strip() or None
        except FileNotFoundError:
            return None

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
