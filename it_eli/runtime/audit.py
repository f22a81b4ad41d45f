"""Audit trail: one JSONL line per tool call, under IT_ELI_HOME/logs/audit.jsonl.

Why: an operator must be able to say what the appliance was asked and how it answered (when,
which tool, how big, how long, ok or which error) without the log itself becoming a store of
what users searched for. So a line carries an HMAC-SHA256 of the canonical JSON of the
arguments, keyed with a secret made once per install (IT_ELI_HOME/logs/audit.key): identical
calls hash alike (repeats can be matched), but a guessed query cannot be confirmed against the
log without that key. A tool name outside the registry is written as `unknown` (it is
client-chosen text and could carry client data).

Writing is best-effort by design yet never silent: a failure (disk full, unwritable directory)
must not break the tool call, but it is counted, logged to stderr once per run of failures, and
exposed by `status()`. Rotation by size (`audit.jsonl.1` … `.N`) is done by
concurrent-log-handler, which locks across processes (portalocker: fcntl on POSIX, msvcrt on
Windows), so several processes on one IT_ELI_HOME share the file without losing a line. It is
imported on first write, so importing the package needs no POSIX-only module.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
from pathlib import Path
from typing import Any

import msgspec

log = logging.getLogger(__name__)

FILE_NAME = "audit.jsonl"
KEY_FILE = "audit.key"
UNKNOWN_TOOL = "unknown"


def canonical_json(arguments: Any) -> bytes:
    """The canonical JSON (sorted keys, no spaces, UTF-8) of the arguments."""
    return json.dumps(
        arguments if arguments is not None else {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
        default=str,
    ).encode("utf-8")


def input_hash(arguments: Any, key: bytes) -> str:
    """HMAC-SHA256, keyed with the install's secret, of the canonical JSON of the arguments."""
    return hmac.new(key, canonical_json(arguments), hashlib.sha256).hexdigest()


def install_key(directory: Path) -> bytes:
    """The per-install audit secret, made on first use (32 random bytes, owner-only file)."""
    path = Path(directory) / KEY_FILE
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (FileNotFoundError, ValueError):
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    tmp = path.with_name(f"{KEY_FILE}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key.hex())
    try:
        os.link(tmp, path)  # first writer wins; a concurrent one reads the winner's key
    except FileExistsError:
        pass
    except OSError:  # no hard links on this filesystem
        os.replace(tmp, path)
    tmp.unlink(missing_ok=True)
    return bytes.fromhex(path.read_text(encoding="ascii").strip())


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
        self._handler = None
        self._key: bytes | None = None
        self.lines = 0
        self.failures = 0
        self.last_error: str | None = None
        self._failing = False

    @classmethod
    def for_settings(cls, settings) -> AuditLog:
        return cls(settings.home / "logs", max_bytes=settings.audit_max_bytes, keep=settings.audit_keep)

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = install_key(self.dir)
        return self._key

    # ------------------------------------------------------------ public
    def record(self, tool: str, arguments: Any, out: Any, seconds: float, status: str, *,
               output_bytes: int | None = None) -> bool:
        """Write one line; never raises. Returns whether the line was written. `output_bytes`,
        when the caller has already encoded the answer, spares encoding it again to measure it."""
        try:
            with self._lock:
                line = msgspec.json.encode({
                    "ts": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
                    "tool": tool,
                    "input_hmac": input_hash(arguments, self.key),
                    "output_bytes": _output_size(out) if output_bytes is None else output_bytes,
                    "ms": round(seconds * 1000, 2),
                    "status": status,
                    "pid": os.getpid(),
                }).decode("utf-8")
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
                self._close_handler()
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
            self._close_handler()

    # ------------------------------------------------------------ internals
    def _close_handler(self) -> None:
        if self._handler is not None:
            try:
                self._handler.close()
            except Exception:
                pass
        self._handler = None

    def _write(self, line: str) -> None:
        if self._handler is None:
            self._handler = _handler(self.path, self.max_bytes, self.keep)
        self._handler.emit(logging.makeLogRecord({"msg": line, "levelno": logging.INFO, "levelname": "INFO"}))


def _handler(path: Path, max_bytes: int, keep: int):
    """A concurrent-log-handler whose write errors raise (to be counted), not print a traceback."""
    from concurrent_log_handler import ConcurrentRotatingFileHandler

    class _Handler(ConcurrentRotatingFileHandler):
        def handleError(self, record):  # noqa: N802 (logging's name)
            raise

    path.parent.mkdir(parents=True, exist_ok=True)
    h = _Handler(str(path), mode="a", maxBytes=max_bytes, backupCount=keep, encoding="utf-8", umask=0o027)
    h.setFormatter(logging.Formatter("%(message)s"))
    return h
