"""Audit trail: one JSONL line per tool call, under IT_ELI_HOME/logs/audit.jsonl.

Why: an operator must be able to say what the appliance was asked and how it answered (when,
which tool, how big, how long, ok or which error) without the log itself becoming a store of
what users searched for. So a line carries the SHA-256 of the canonical JSON of the arguments,
never the arguments: identical calls hash alike (repeats can be matched, a known query can be
checked against the log), but the query text is not written anywhere.

Writing is best-effort by design yet never silent: a failure (disk full, unwritable directory)
must not break the tool call, but it is counted, logged to stderr once per run of failures, and
exposed by `status()`. The file rotates by size (`audit.jsonl.1` … `.N`); several processes on
one IT_ELI_HOME append to the same file (one write() per line, O_APPEND) and rotate under a file
lock, so a line is never split or lost by a concurrent rotation.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

import msgspec

log = logging.getLogger(__name__)

FILE_NAME = "audit.jsonl"


def input_hash(arguments: Any) -> str:
    """sha256 of the canonical JSON (sorted keys, no spaces, UTF-8) of the arguments."""
    canonical = json.dumps(
        arguments if arguments is not None else {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _output_size(out: Any) -> int:
    try:
        return len(msgspec.json.encode(out))
    except Exception:
        return len(json.dumps(out, default=str).encode("utf-8"))


class AuditLog:
    """Appends audit lines to `<dir>/audit.jsonl`, rotating at `max_bytes`, keeping `keep` old files."""

    def __init__(self, directory: Path, *, max_bytes: int = 10_485_760, keep: int = 5) -> None:
        self.dir = Path(directory)
        self.path = self.dir / FILE_NAME
        self.max_bytes = max(1024, int(max_bytes))
        self.keep = max(0, int(keep))
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._ino: int | None = None
        self.lines = 0
        self.failures = 0
        self.last_error: str | None = None
        self._failing = False

    @classmethod
    def for_settings(cls, settings) -> AuditLog:
        return cls(settings.home / "logs", max_bytes=settings.audit_max_bytes, keep=settings.audit_keep)

    # ------------------------------------------------------------ public
    def record(self, tool: str, arguments: Any, out: Any, seconds: float, status: str) -> bool:
        """Write one line; never raises. Returns whether the line was written."""
        try:
            line = msgspec.json.encode({
                "ts": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
                "tool": tool,
                "input_sha256": input_hash(arguments),
                "output_bytes": _output_size(out),
                "ms": round(seconds * 1000, 2),
                "status": status,
                "pid": os.getpid(),
            }) + b"\n"
            with self._lock:
                self._write(line)
                self.lines += 1
                if self._failing:
                    self._failing = False
                    log.warning("audit log %s is writable again (%d lines were lost)", self.path, self.failures)
            return True
        except Exception as exc:  # the tool call must go on; the loss must be visible
            with self._lock:
                self.failures += 1
                self.last_error = f"{type(exc).__name__}: {exc}"
                first = not self._failing
                self._failing = True
                self._close_fd()
            if first:
                log.error("audit log %s cannot be written (%s); tool calls go on UNAUDITED", self.path, self.last_error)
            return False

    def status(self) -> dict[str, Any]:
        """For status answers and tests: where, how many lines, how many lost, the last error."""
        return {
            "path": str(self.path), "lines": self.lines, "failures": self.failures,
            "last_error": self.last_error, "ok": not self._failing,
        }

    def close(self) -> None:
        with self._lock:
            self._close_fd()

    # ------------------------------------------------------------ internals
    def _close_fd(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd = self._ino = None

    def _open(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o640)
        self._fd, self._ino = fd, os.fstat(fd).st_ino

    def _write(self, line: bytes) -> None:
        # another process (or App) may have rotated the file under us: follow the name
        try:
            ino = os.stat(self.path).st_ino
        except FileNotFoundError:
            ino = None
        if self._fd is None or ino != self._ino:
            self._close_fd()
            self._open()
        if os.fstat(self._fd).st_size + len(line) > self.max_bytes:
            self._rotate()
        n = os.write(self._fd, line)
        if n != len(line):
            raise OSError(f"short write to the audit log ({n} of {len(line)} bytes)")

    def _rotate(self) -> None:
        with open(self.dir / "audit.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                # re-check under the lock: someone else may have rotated already
                st = os.stat(self.path) if self.path.exists() else None
                if st is not None and st.st_ino == self._ino and st.st_size > 0:
                    if self.keep == 0:
                        os.unlink(self.path)
                    else:
                        for i in range(self.keep - 1, 0, -1):
                            older = self.dir / f"{FILE_NAME}.{i}"
                            if older.exists():
                                os.replace(older, self.dir / f"{FILE_NAME}.{i + 1}")
                        os.replace(self.path, self.dir / f"{FILE_NAME}.1")
                self._close_fd()
                self._open()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
