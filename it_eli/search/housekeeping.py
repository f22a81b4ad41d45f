"""What a killed process leaves behind is cleaned at the next start.

Why: a build or an import killed (kill -9, power loss, disk full) leaves an unfinished build
directory or a `*.tmp` file; left alone they pile up (hundreds of MB per killed build) until the
disk is full and the next build fails too.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from it_eli.runtime.config import Settings
from .indexdir import IndexDir

log = logging.getLogger(__name__)

TMP_MIN_AGE = 3600.0  # a younger *.tmp may belong to an import running right now


def stale_tmp_files(directory: Path, *, min_age: float = TMP_MIN_AGE) -> list[Path]:
    if not directory.is_dir():
        return []
    cutoff = time.time() - min_age
    out = []
    for p in directory.glob("*.tmp"):
        try:
            if p.is_file() and p.stat().st_mtime < cutoff:
                out.append(p)
        except OSError:
            continue
    return out


def clean_at_start(settings: Settings) -> list[str]:
    """Remove orphans of killed builds and imports under IT_ELI_HOME; returns what was removed."""
    from .decisions.model import index_root as decisions_root
    from .statutes.records import index_root as statutes_root

    removed: list[str] = []
    for root in (decisions_root(settings), statutes_root(settings)):
        removed += IndexDir(root).clean_orphans()
    for directory in (settings.home / "statutes" / "acts", settings.home / "logs"):
        for p in stale_tmp_files(directory):
            try:
                p.unlink()
                removed.append(p.name)
            except OSError:
                continue
    if removed:
        log.info("removed %d leftovers of interrupted builds/imports: %s", len(removed), ", ".join(removed[:10]))
    return removed
