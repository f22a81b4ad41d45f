"""Cross-process file locks, portable (POSIX and Windows) through `filelock`.

Why a module: the index builder, the statute writer and anything else that must be alone on an
IT_ELI_HOME take their lock here, so no POSIX-only call (fcntl) is imported by the package.
A lock is only ever needed to *write*: readers never take one (a read-only home serves searches).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import ItEliError


@contextmanager
def exclusive(path: Path, *, timeout: float, busy: ItEliError) -> Iterator[None]:
    """Hold the lock file `path` exclusively; raise `busy` if another holder keeps it past `timeout`
    seconds (0: do not wait)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path), timeout=timeout, thread_local=False)
    try:
        lock.acquire(poll_interval=0.05)
    except Timeout:
        raise busy from None
    try:
        yield
    finally:
        lock.release()
